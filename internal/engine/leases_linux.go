//go:build linux

package engine

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
)

var machine = sync.OnceValue(func() string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(boot)) + "/" + ns
})

// machineKey names the kernel this process runs on (its boot) and its PID
// namespace: two processes with the same key see each other's pids.
func machineKey() string { return machine() }

// processStart is when process pid started, in clock ticks since boot
// (/proc/<pid>/stat's 22nd field), "" when there is no such process or
// it has ended (a zombie): a pid used again is another process.
func processStart(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The command's name, in parentheses, may hold spaces and ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is the state (field 3), so field 22 is f[19].
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return ""
	}
	return f[19]
}
