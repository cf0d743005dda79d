package fio

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// fakeFio writes a FAKE fio: a shell script that answers --version and
// --parse-only, and otherwise behaves as a fio whose job comes to the
// start gate and, once through, is stuck in I/O on a stalled file
// system: it ignores SIGINT, and its job process (a sleep) holds fio's
// output open. The job's pid is written to pidFile, fio's own to
// pidFile.fio. No real fio can be made to hang on demand without a
// stalled file system.
func fakeFio(t *testing.T) (bin, pidFile string) {
	t.Helper()
	dir := t.TempDir()
	bin, pidFile = filepath.Join(dir, "fio"), filepath.Join(dir, "job.pid")
	script := "#!/bin/sh\n" +
		"case \"$1\" in --version) echo fio-3.99; exit 0;; --parse-only) exit 0;; esac\n" +
		"case \"$*\" in *.layout.fio) exit 0;; esac\n" + // the layout pass: nothing to lay out
		"trap '' INT\n" +
		"echo $$ > " + pidFile + ".fio\n" +
		// The job comes to the start gate as fio's would: it runs the job
		// file's exec_prerun, which returns when the gate opens.
		"for a; do last=$a; done\n" +
		"pre=$(sed -n 's/^exec_prerun=//p' \"$last\" | head -n 1)\n" +
		"if [ -n \"$pre\" ]; then sh -c \"$pre\"; fi\n" +
		"sleep 300 &\n" +
		"echo $! > " + pidFile + "\n" +
		"wait\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, pidFile
}

// holdOutput starts a process outside fio's tree that holds fio's (pid's)
// output open, as a job process in uninterruptible sleep on a stalled
// file system does: no signal ends it, and the supervisor that ends
// everything fio leaves does not end it either.
func holdOutput(t *testing.T, pid int) {
	t.Helper()
	out := "/proc/" + strconv.Itoa(pid) + "/fd/1"
	pipe, err := os.Readlink(out)
	if err != nil {
		t.Fatal(err)
	}
	h := exec.Command("/bin/sh", "-c", "exec sleep 300 >"+out)
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Process.Kill(); _ = h.Wait() })
	for i := 0; ; i++ {
		if l, _ := os.Readlink("/proc/" + strconv.Itoa(h.Process.Pid) + "/fd/1"); l == pipe {
			return
		}
		if i == 1000 {
			t.Fatalf("the process to hold fio's output did not open it")
		}
		time.Sleep(10 * time.Millisecond)
	}
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
			bin, pidFile := fakeFio(t)
			dir := t.TempDir()
			b, _ := json.Marshal(Params{Dir: dir, Job: Job{Name: "j", Text: "[j]\nrw=read\nsize=1m\n"}})
			pr, err := Engine{}.Prepare(testutil.Ctx(t, testutil.Bound), engine.Env{Host: "h", RunID: "stop", Tools: engine.Tools{"fio": bin}}, engine.Phase{Name: "j", Engine: "fio", Params: b})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(testutil.Ctx(t, testutil.Bound))
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
			if tc.escape {
				holdOutput(t, readPid(t, pidFile+".fio"))
			}
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
