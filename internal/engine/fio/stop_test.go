package fio

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// fakeFio writes a FAKE fio: a shell script that answers --version and
// --parse-only, and otherwise behaves as a fio whose job comes to the
// start gate and, once through, is stuck in I/O
// on a stalled file system: it ignores SIGINT, and its job process (a
// sleep) holds fio's output open. With escape, that process leaves fio's
// process group, as a process in uninterruptible sleep escapes SIGKILL:
// the signal cannot end it. The job's pid is written to pidFile. No real
// fio can be made to hang on demand without a stalled file system.
func fakeFio(t *testing.T, escape bool) (bin, pidFile string) {
	t.Helper()
	dir := t.TempDir()
	bin, pidFile = filepath.Join(dir, "fio"), filepath.Join(dir, "job.pid")
	job := "sleep 300 &"
	if escape {
		job = "setsid sleep 300 &"
	}
	script := "#!/bin/sh\n" +
		"case \"$1\" in --version) echo fio-3.99; exit 0;; --parse-only) exit 0;; esac\n" +
		"case \"$*\" in *.layout.fio) exit 0;; esac\n" + // the layout pass: nothing to lay out
		"trap '' INT\n" +
		// The job comes to the start gate as fio's would: it runs the job
		// file's exec_prerun, which returns when the gate opens.
		"for a; do last=$a; done\n" +
		"pre=$(sed -n 's/^exec_prerun=//p' \"$last\" | head -n 1)\n" +
		"if [ -n \"$pre\" ]; then sh -c \"$pre\"; fi\n" +
		job + "\n" +
		"echo $! > " + pidFile + "\n" +
		"wait\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, pidFile
}

// alive says whether pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	for i := 0; i < 200; i++ {
		if b, err := os.ReadFile(file); err == nil && len(strings.TrimSpace(string(b))) > 0 {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the fake fio wrote no pid")
	return 0
}

// A stopped fio that ignores SIGINT ends by SIGKILL, job processes
// included, within the bound; one that even SIGKILL does not end is
// reported and left behind after the bound, and the agent goes on.
func TestStopIsBounded(t *testing.T) {
	defer func(g, k time.Duration) { stopGrace, killWait = g, k }(stopGrace, killWait)
	stopGrace, killWait = 500*time.Millisecond, 500*time.Millisecond
	for _, tc := range []struct {
		name   string
		escape bool
	}{{"job processes killed", false}, {"unkillable job left", true}} {
		t.Run(tc.name, func(t *testing.T) {
			bin, pidFile := fakeFio(t, tc.escape)
			dir := t.TempDir()
			b, _ := json.Marshal(Params{Dir: dir, Job: Job{Name: "j", Text: "[j]\nrw=read\nsize=1m\n"}})
			pr, err := Engine{}.Prepare(context.Background(), engine.Env{Host: "h", RunID: "stop", FioBin: bin}, engine.Phase{Name: "j", Engine: "fio", Params: b})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			type out struct {
				res *engine.HostResult
				err error
			}
			done := make(chan out, 1)
			go func() {
				res, err := pr.Run(ctx, time.Now(), nil)
				done <- out{res, err}
			}()
			pid := readPid(t, pidFile)
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			cancel()
			t0 := time.Now()
			var o out
			select {
			case o = <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("Run did not return within 5s of the stop (bound: %v + %v)", stopGrace, killWait)
			}
			el := time.Since(t0)
			if o.res == nil || !errors.Is(o.err, engine.ErrInterrupted) {
				t.Fatalf("Run returned %v, %+v: want the interruption with the result", o.err, o.res)
			}
			if tc.escape {
				if !strings.Contains(o.err.Error(), "did not end") || !strings.Contains(o.res.Err, "left running") {
					t.Errorf("the stuck process is not reported: %v / %q", o.err, o.res.Err)
				}
				if el < stopGrace+killWait {
					t.Errorf("gave up after %v, before the bound", el)
				}
				return
			}
			if el > stopGrace+killWait {
				t.Errorf("took %v, SIGKILL should have ended it after %v", el, stopGrace)
			}
			time.Sleep(100 * time.Millisecond)
			if alive(pid) {
				t.Errorf("fio's job process %d outlived the stop", pid)
			}
			if err := pr.Cleanup(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	}
}
