package fio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/supervise"
)

// fioRun is one fio process, its output followed from its start. Its jobs
// may be held at a start gate; the phase's start (begin) comes later.
type fioRun struct {
	r      *prepared
	cmd    *exec.Cmd
	proc   *supervise.Process
	g      *gate // nil: no gate
	ran    ran
	res    *engine.HostResult
	stdout io.ReadCloser
	stderr *stderrLog
	// begun is the phase's start and where its live figures go, set when
	// the run begins: fio's outputs before it hold no operation and go to
	// no second.
	begun atomic.Pointer[begin]
	// jobFailed is closed when fio says one of its jobs failed ("fio:
	// pid=N, err=..." or "got signal"), on either of its outputs.
	jobFailed chan struct{}
	failOnce  sync.Once
	// Set by the goroutine that follows fio, read once read (the output)
	// or exited (fio reaped) is closed; warnings (fio's other lines on
	// standard output, the first 20) under stderr's lock before.
	read, exited      chan struct{}
	exitErr, splitErr error
	last              []byte
	warnings          []string
}

type begin struct {
	at   time.Time
	live engine.LiveFunc
}

// startFio starts fio on the job file at runPath (jf, with its jobs held
// at g unless g is nil) and follows its output. fio runs under a
// supervisor (internal/supervise), in a process group of its own: when
// storbench dies, even by SIGKILL, or when fio's main process dies alone,
// the supervisor kills fio and its job processes (which leave fio's
// process group), and the end of fio's output says so at once.
func (r *prepared) startFio(res *engine.HostResult, jf *JobFile, runPath string, g *gate, perJob bool) (*fioRun, error) {
	f := &fioRun{r: r, g: g, ran: ran{jf: jf, perJob: perJob}, res: res, stderr: newStderrLog(1 << 20),
		jobFailed: make(chan struct{}), read: make(chan struct{}), exited: make(chan struct{})}
	f.stderr.onJobFailure = f.failed
	f.cmd = r.command(runPath, f.stderr)
	var err error
	if f.stdout, err = f.cmd.StdoutPipe(); err != nil {
		return nil, fmt.Errorf("start fio: %v", err)
	}
	growPipe(f.stdout)
	if f.proc, err = supervise.Start(f.cmd); err != nil {
		return nil, fmt.Errorf("start fio: %v", err)
	}
	go func() {
		// fio's output is read, then fio reaped (the pipe must be read
		// to its end before Wait).
		r.follow(f)
		close(f.read)
		f.exitErr = killedAlone(f.proc.Pid, f.proc.Wait())
		close(f.exited)
	}()
	return f, nil
}

// killedAlone words fio's end by a signal that storbench did not send
// (storbench's stops are interruptions, said apart): its main process was
// killed from outside, and its job processes were ended with it.
func killedAlone(pid int, err error) error {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return err
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return err
	}
	return fmt.Errorf("fio's main process (pid %d) was killed by signal %d (%v); its job processes were ended with it", pid, ws.Signal(), ws.Signal())
}

func (f *fioRun) failed() { f.failOnce.Do(func() { close(f.jobFailed) }) }

// finish runs the phase from startAt: the gate opens then (a stop before
// opens it too), and finish waits for fio to end, or stops it on ctx.
// From then on fio's outputs count from startAt (or now, when that has
// passed), and its figures go to live.
func (f *fioRun) finish(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	r := f.r
	start := startAt
	if now := time.Now(); now.After(start) {
		start = now
	}
	f.begun.Store(&begin{at: start, live: live})
	defer r.running(f.proc.Pid)()
	if f.g != nil {
		go f.g.openAt(ctx, startAt, f.exited)
	}
	stuck := ""
	select {
	case <-f.exited:
	case <-ctx.Done():
		stuck = stopFio(f.proc.Pid, f.stdout, f.exited, f.read)
	}
	res := f.res
	var passed []int64
	if f.g != nil {
		var opened int64
		passed, opened = f.g.close()
		res.Meta["gate_opened_ns"] = strconv.FormatInt(opened, 10)
	}
	res.Meta["fio_wall_s"] = fmt.Sprintf("%.3f", time.Since(start).Seconds())
	var waitErr error
	if stuck == "" {
		waitErr = f.exitErr
	}
	if f.splitErr != nil && waitErr == nil {
		waitErr = f.splitErr
	}
	stderr := ""
	if stuck == "" {
		// Read only once fio ended: a stuck fio may still write it.
		if stderr = f.stderr.String(); stderr != "" {
			res.Raw["fio.stderr"] = []byte(stderr)
		}
	}
	if len(f.warnings) > 0 {
		res.Raw["fio.stdout-other"] = []byte(strings.Join(f.warnings, "\n") + "\n")
	}
	return r.outcome(ctx, res, f.ran, f.last, f.warnings, passed, stderr, waitErr, stuck)
}

// kill ends a fio that is not to run (its phase never starts) and its job
// processes, and waits for it a bounded time. The gate opens once they
// are gone: the shells of their exec_prerun hold fio's output open until
// it does.
func (f *fioRun) kill() {
	f.proc.Kill()
	if f.g != nil {
		f.g.open()
	}
	select {
	case <-f.exited:
	case <-time.After(killWait):
		f.stdout.Close()
	}
	if f.g != nil {
		f.g.close()
	}
}

// heldJobs says how many of job file jf's job processes come to the start
// gate as soon as fio starts, and whether all its measured jobs do, so that
// fio can be started before the phase starts (at Prepare) and the phase
// start the moment its hosts open their gates. That is so when the
// measured sections are one group of fio's, the last, every one of them
// held at the gate and started together (no startdelay of its own), and
// the groups before it only create files (create_only, as the seed's job
// files lay theirs out): fio then lays out every file, the jobs come to
// the gate, and nothing of fio's start-up is left for the window. A job
// file with wait_for, or with measured sections in several groups (run
// one after the other, the later ones laying out their files when they
// begin), is started at the phase's start, its files laid out by a pass
// of their own (layOut).
func heldJobs(jf *JobFile) (int, bool) {
	const held = "storbench-held"
	out, ungated, err := gated(jf, func(string) string { return held })
	if err != nil || len(ungated) > 0 {
		return 0, false
	}
	n, group, measuredGroup := 0, -1, -1
	for _, s := range out.Sections {
		if isGlobal(s.Name) {
			continue
		}
		if _, ok := out.Lookup(s, "wait_for"); ok {
			return 0, false
		}
		if group < 0 || out.flag(s, "stonewall", "wait_for_previous") {
			group++
		}
		if out.flag(s, "create_only") {
			if measuredGroup >= 0 && group > measuredGroup {
				return 0, false // files created after the measured jobs
			}
			continue
		}
		if measuredGroup >= 0 && group != measuredGroup {
			return 0, false
		}
		measuredGroup = group
		if v, _ := s.Get("exec_prerun"); v != held {
			return 0, false
		}
		if d, ok := out.Lookup(s, "startdelay"); ok && fioTime(d) != 0 {
			return 0, false
		}
		jobs := 1
		if v, ok := out.Lookup(s, "numjobs"); ok {
			if jobs, err = strconv.Atoi(strings.TrimSpace(v)); err != nil || jobs < 1 {
				return 0, false
			}
		}
		n += jobs
	}
	return n, n > 0
}

// launch starts fio at Prepare with every job held at the start gate
// (heldJobs), and returns once every job came to it: fio has laid out the
// files and started its job processes, and only the gate's opening is
// left for Run. ok false says the phase's job file cannot be started so
// (or no gate could be made): Run starts it.
func (r *prepared) launch(ctx context.Context) (ok bool, err error) {
	want, ok := heldJobs(r.job)
	if !ok {
		return false, nil
	}
	res := r.newResult(r.job)
	g, runPath := r.gate(res.Meta, r.job, r.jobPath)
	if g == nil {
		return false, nil
	}
	res.Meta["start_gate"] += "; fio started, its files laid out and its jobs at the gate when the phase was prepared"
	g.expect(want)
	f, err := r.startFio(res, r.job, runPath, g, false)
	if err != nil {
		g.close()
		return false, err
	}
	if err := f.awaitJobs(ctx, want); err != nil {
		f.kill()
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if perr := r.parseOnly(ctx); perr != nil {
			return false, perr
		}
		return false, fmt.Errorf("fio job %s failed before its start: %v", r.params.Job.Name, err)
	}
	r.held.Store(f)
	return true, nil
}

// awaitJobs waits until want jobs came to the gate. It gives up when fio
// ends first, says a job failed, or when fio's job processes are all at
// the gate, fewer than want, and stay so for a second (a job ended before
// it without a word).
func (f *fioRun) awaitJobs(ctx context.Context, want int) error {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	short, last := 0, -1
	for {
		select {
		case <-f.g.all:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-f.exited:
			return errors.New(f.message(f.exitErr))
		case <-f.jobFailed:
			return errors.New(f.message(nil))
		case <-f.g.failed:
			return errors.New(f.message(errors.New("a job's own exec_prerun failed")))
		case <-tick.C:
			f.g.mu.Lock()
			arrived := f.g.arrived
			f.g.mu.Unlock()
			if arrived > 0 && arrived == last && len(childrenOf(f.proc.Pid)) == arrived {
				if short++; short == 4 {
					return fmt.Errorf("%d of its %d jobs came to the start, the others ended: %s", arrived, want, f.message(nil))
				}
			} else {
				short = 0
			}
			last = arrived
		}
	}
}

// message is what fio said went wrong so far, on either output; err when
// it said nothing.
func (f *fioRun) message(err error) string {
	if err == nil {
		err = errors.New("fio said no more")
	}
	return failure(f.stderr.String(), f.otherLines(), "", 0, err)
}

// otherLines are fio's lines on standard output besides its JSON, as the
// follower has them so far.
func (f *fioRun) otherLines() []string {
	f.stderr.mu.Lock()
	defer f.stderr.mu.Unlock()
	return append([]string(nil), f.warnings...)
}

// otherLine keeps a line fio printed on standard output besides its JSON
// (its job processes print their errors there).
func (f *fioRun) otherLine(line string) {
	f.stderr.mu.Lock()
	if len(f.warnings) < 20 {
		f.warnings = append(f.warnings, line)
	}
	f.stderr.mu.Unlock()
	if isJobFailure(line) {
		f.failed()
	}
}

// newResult is the host's result of the phase, fio's job file jf in it.
func (r *prepared) newResult(jf *JobFile) *engine.HostResult {
	return &engine.HostResult{
		Host: r.env.Host,
		Meta: map[string]string{"job": r.params.Job.Name, model.MetaReport: r.job.Report, "fio_bin": r.bin},
		Raw:  map[string][]byte{r.params.Job.Name + ".fio": []byte(jf.Render())},
	}
}

// abandon ends a fio that Prepare started when its phase will not run.
func (r *prepared) abandon() {
	if f := r.held.Swap(nil); f != nil {
		f.kill()
	}
}

// stderrLog keeps fio's standard error (its first limit bytes) and tells
// onJobFailure when fio says a job failed. Its lock also guards the
// lines fio printed on standard output besides its JSON (fioRun.warnings).
type stderrLog struct {
	mu           sync.Mutex
	buf          bytes.Buffer
	limit        int
	line         []byte // the line being written, its first 256 bytes
	onJobFailure func()
}

func newStderrLog(limit int) *stderrLog { return &stderrLog{limit: limit} }

func (l *stderrLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.limit - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(len(p), room)])
	}
	for _, c := range p {
		if c != '\n' {
			if len(l.line) < 256 {
				l.line = append(l.line, c)
			}
			continue
		}
		if isJobFailure(string(l.line)) && l.onJobFailure != nil {
			l.onJobFailure()
		}
		l.line = l.line[:0]
	}
	return len(p), nil
}

func (l *stderrLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// isJobFailure reports fio's line for a job that failed ("fio: pid=12,
// err=28/...") or was killed ("fio: pid=12, got signal=9").
func isJobFailure(line string) bool {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "fio: pid=")
	return ok && (strings.Contains(rest, ", err=") || strings.Contains(rest, ", got signal="))
}
