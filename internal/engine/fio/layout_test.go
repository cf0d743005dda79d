package fio

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// A stop while the files are laid out (before the phase starts) ends fio
// and its job processes: Prepare returns within the bound and no process
// of the layout pass stays behind. fio's job processes leave its process
// group; killed outright, fio would leave one waiting for it forever.
func TestStopDuringLayout(t *testing.T) {
	if _, err := FindFio(""); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	// Laying out 4 x 256 MiB for a read takes a while on any disk.
	b, _ := json.Marshal(Params{Dir: dir, Job: Job{Name: "big", Text: "[global]\nioengine=psync\nsize=256m\nnumjobs=4\ncreate_serialize=0\n[r]\nrw=read\n"}})
	ctx, cancel := context.WithCancel(context.Background())
	var t0 time.Time
	go func() {
		// Stop once fio has started its job processes.
		for ctx.Err() == nil && len(layoutProcs(dir)) < 2 {
			time.Sleep(5 * time.Millisecond)
		}
		t0 = time.Now()
		cancel()
	}()
	_, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "lay"}, engine.Phase{Name: "big", Engine: "fio", Params: b})
	if err == nil {
		t.Skip("the layout ended before the stop: nothing to show on this disk")
	}
	if el := time.Since(t0); el > stopGrace+2*time.Second {
		t.Errorf("Prepare returned %v after the stop", el)
	}
	time.Sleep(200 * time.Millisecond)
	for _, p := range layoutProcs(dir) {
		t.Errorf("a process of the layout pass outlived the stop: %s", p)
		if pid, err := strconv.Atoi(p); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// layoutProcs are the pids of the processes running the layout pass of a
// job under dir.
func layoutProcs(dir string) []string {
	var pids []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if c, _ := os.ReadFile(p); strings.Contains(string(c), "big.layout.fio") && strings.Contains(string(c), dir) {
			pids = append(pids, filepath.Base(filepath.Dir(p)))
		}
	}
	return pids
}
