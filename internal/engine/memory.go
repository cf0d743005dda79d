package engine

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/storbench/storbench/internal/units"
)

// AvailableMemory returns the bytes of memory this process can still take
// before the kernel must reclaim or kill: /proc/meminfo's MemAvailable, or
// less when the process's cgroup has a limit (cgroup v2 memory.max, or v1
// memory.limit_in_bytes) minus what the cgroup uses already. ok is false
// where neither can be read (not Linux): then no plan is refused for its
// memory.
func AvailableMemory() (bytes int64, ok bool) {
	avail, ok := memAvailable("/proc/meminfo")
	if lim, used, cok := cgroupMemory(); cok {
		left := max(lim-used, 0)
		if !ok || left < avail {
			avail, ok = left, true
		}
	}
	return avail, ok
}

// CheckMemory refuses, as bad input found before any load, a plan that
// needs more memory than this host has available: what is the thing that
// needs it, in the user's words ("--objects 10000000000000"), need its
// estimate in bytes, and fix what to do instead.
func CheckMemory(what string, need int64, fix string) error {
	avail, ok := AvailableMemory()
	if !ok || need <= avail {
		return nil
	}
	return Unsupported(fmt.Sprintf("%s needs about %s of memory on this host, which has %s available: %s", what, units.Bytes(float64(need)), units.Bytes(float64(avail)), fix))
}

// memAvailable reads MemAvailable (in kB) from a meminfo file.
func memAvailable(path string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, found := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !found {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}

// cgroupMemory returns the memory limit of this process's cgroup and what
// the cgroup uses, when a limit is set.
func cgroupMemory() (limit, used int64, ok bool) {
	cg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0, 0, false
	}
	for _, line := range strings.Split(strings.TrimSpace(string(cg)), "\n") {
		// "0::/path" (v2) or "N:memory:/path" (v1).
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		// In a container the cgroup's own directory is often the mount's
		// root: look there when the path is not found.
		switch {
		case f[0] == "0" && f[1] == "":
			limit, used, ok = cgroupFiles([]string{"/sys/fs/cgroup" + f[2], "/sys/fs/cgroup"}, "memory.max", "memory.current")
		case strings.Contains(","+f[1]+",", ",memory,"):
			limit, used, ok = cgroupFiles([]string{"/sys/fs/cgroup/memory" + f[2], "/sys/fs/cgroup/memory"}, "memory.limit_in_bytes", "memory.usage_in_bytes")
			// v1 says "no limit" with a huge number.
			ok = ok && limit < 1<<62
		default:
			continue
		}
		if ok {
			return limit, used, true
		}
	}
	return 0, 0, false
}

// cgroupFiles reads the limit and usage files in the first of dirs that
// has them.
func cgroupFiles(dirs []string, limitFile, usedFile string) (limit, used int64, ok bool) {
	for _, d := range dirs {
		if limit, ok = readBytes(d + "/" + limitFile); ok {
			used, _ = readBytes(d + "/" + usedFile)
			return limit, used, true
		}
	}
	return 0, 0, false
}

// readBytes reads a cgroup file holding a number of bytes ("max" is no
// limit: not ok).
func readBytes(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	return n, err == nil
}
