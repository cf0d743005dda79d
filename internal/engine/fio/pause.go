package fio

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
)

var _ engine.Pauser = (*prepared)(nil)

// pauseRescan is how often a pause looks for job processes fio forked
// since it began (the next group of a job file with stonewall, jobs
// forked late on a loaded machine).
const pauseRescan = 100 * time.Millisecond

// Pause stops fio's job processes for d (SIGSTOP, then SIGCONT): a client
// that hangs. fio prints no status while its jobs are stopped (it waits
// for each running job's figures), so its first status after the pause
// covers the pause and the time around it: the series takes the paused
// time out of that interval (addSeconds), and the paused seconds are in
// it as seconds without I/O. fio's runtime runs on meanwhile (time_based
// jobs end on time, their bandwidth over the whole runtime), and an I/O
// in flight when its job stopped counts the pause in its latency, as
// fio's clock sees it. fio's job processes leave fio's process group
// (setsid), so they are found as fio's children. Jobs run as threads
// (thread=1) share fio's process and cannot be stopped apart from it: the
// pause fails, saying so.
func (r *prepared) Pause(ctx context.Context, d time.Duration) error {
	pid := int(r.fioPid.Load())
	if pid == 0 {
		return errors.New("fio is not running on this host")
	}
	end := time.NewTimer(d)
	defer end.Stop()
	r.pausedTo.Store(0)
	r.pausedFrom.Store(time.Now().UnixNano())
	stopped := map[int]bool{}
	defer func() {
		// Set before the jobs go on, so the status they let fio print
		// finds it.
		r.pausedTo.Store(time.Now().UnixNano())
		for c := range stopped {
			_ = syscall.Kill(c, syscall.SIGCONT)
		}
	}()
	stop := func() {
		for _, c := range childrenOf(pid) {
			if !stopped[c] && syscall.Kill(c, syscall.SIGSTOP) == nil {
				stopped[c] = true
			}
		}
	}
	stop()
	tick := time.NewTicker(pauseRescan)
	defer tick.Stop()
	for {
		select {
		case <-end.C:
			if len(stopped) == 0 {
				return errors.New("fio had no job process to stop (thread=1 runs the jobs in fio's own process, which must go on printing its status)")
			}
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			stop()
		}
	}
}

// running notes fio's process pid for Pause until the function it
// returns is called.
func (r *prepared) running(pid int) func() {
	r.fioPid.Store(int64(pid))
	return func() { r.fioPid.Store(0) }
}

// addSeconds adds fio's status output o, which closes the interval
// [from, to), to the series. When the interval overlaps the last pause
// (from its start to its end, or to now while it goes on), its operations
// were done before the pause or after it: they are shared between the
// parts of the interval outside the pause in proportion to their lengths
// (fio's figures say no better), the latency to the part after the pause,
// and the pause itself has none. A status may fall on either side of the
// pause's edges: fio can print one just after the pause began (its jobs
// stop a moment later) or while it goes on, covering the time just before
// it; the next one then covers only the rest of the pause and after it.
func (r *prepared) addSeconds(p *perSecond, o *Output, from, to int64) {
	p0, p1 := r.pausedFrom.Load(), r.pausedTo.Load()
	if p1 == 0 {
		p1 = to // the pause goes on
	}
	a, b := max(p0, from), min(p1, to)
	if p0 == 0 || a >= b || (a == from && b == to) {
		p.add(o, from, to)
		return
	}
	n := len(p.secs)
	p.add(o, from, to)
	added := append([]jobSecond(nil), p.secs[n:]...)
	p.secs = p.secs[:n]
	share := float64(a-from) / float64(a-from+to-b)
	for _, s := range added {
		bef, aft := s, s
		bef.StartNs, bef.EndNs, bef.lat = from, a, record.LatSecond{}
		bef.Ops = uint64(float64(s.Ops)*share + 0.5)
		// result gives each part its operations' bytes (bytesByOps);
		// the status's, which lag its operations, go with the later.
		bef.Bytes = 0
		aft.StartNs, aft.lat.StartNs = b, b
		aft.Ops = s.Ops - bef.Ops
		if aft.Ops == 0 {
			bef.lat = s.lat // every operation was before the pause
			bef.lat.StartNs, bef.lat.EndNs = from, a
		}
		for _, x := range []jobSecond{bef, aft} {
			if x.Ops > 0 {
				p.secs = append(p.secs, x)
			}
		}
	}
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	var out []int
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	want := strconv.Itoa(pid)
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold blanks and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		if f := strings.Fields(string(b[i+1:])); len(f) > 1 && f[1] == want {
			if c, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}
