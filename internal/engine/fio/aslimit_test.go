package fio

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// vmSize is this process's address space in use, in bytes (VmSize).
func vmSize(t *testing.T) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmSize:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	t.Skip("no VmSize in /proc/self/status")
	return 0
}

// fio under an address-space limit (ulimit -v) too small for its buffers
// (256 MiB blocks, deep enough to pass the limit by 1 GiB), the limit set
// on this process, which fio inherits as it does from storbench or an
// agent: the phase's one line names the limit as the cause. Before, it
// said only fio's "iomem allocation: Cannot allocate memory".
func TestAddressLimitNamedWhenFioRunsOut(t *testing.T) {
	if _, err := FindFio(""); err != nil {
		t.Skip(err)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &old); err != nil {
		t.Fatal(err)
	}
	// Room for this process (its threads, fio's start) and not for fio's
	// buffers.
	lim := syscall.Rlimit{Cur: vmSize(t) + 1<<30, Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		t.Skip(err)
	}
	defer func() { _ = syscall.Setrlimit(syscall.RLIMIT_AS, &old) }()
	depth := (lim.Cur+1<<30)/(256<<20) + 1
	text := fmt.Sprintf("[big]\nrw=read\nbs=256m\niodepth=%d\nioengine=libaio\nsize=256m\n", depth)
	b, _ := json.Marshal(Params{Dir: t.TempDir(), Job: Job{Name: "big", Text: text}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "aslimit"}, engine.Phase{Name: "big", Engine: "fio", Params: b})
	if err == nil {
		defer p.Cleanup(context.Background())
		_, err = p.Run(ctx, time.Now(), nil)
	}
	want := fmt.Sprintf("the address-space limit (ulimit -v) is %d KiB", lim.Cur>>10)
	if err == nil || !strings.Contains(err.Error(), "Cannot allocate memory") || !strings.Contains(err.Error(), want) {
		t.Errorf("fio under the limit: %v, want the limit named (%q)", err, want)
	}
}
