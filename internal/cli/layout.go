package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/safetext"
	"github.com/storbench/storbench/internal/units"
)

// layoutEvery is how often the layout's progress is read and drawn on a
// terminal (a variable for TestLayoutShowsItsProgress alone: a layout
// faster than a tick shows none).
var layoutEvery = time.Second

// watchLayout shows the progress of a phase's file layout on the live
// line until the phase's first figures come (stopLayout): fio lays out a
// read job's files before the phase starts, 768 MiB in 6 s of silence
// otherwise. The bytes laid out are what this machine's fio processes of
// this run have written by then (wchar of /proc/PID/io: fio
// allocates a file whole before writing it, so the files' sizes and
// blocks say nothing), of what the phase's files need (its plan's
// SpaceOf). Only a run on this machine alone is watched: a remote
// agent's layout is not seen from here.
func (p *progress) watchLayout(ph engine.Phase, hosts []string) {
	if !p.local || p.runID == "" || len(hosts) != 1 {
		return
	}
	sp, ok := p.st.Engines.SpaceOf(ph, 1, 0)
	if !ok || sp.NeedBytes <= 0 {
		return
	}
	self, _ := os.Executable()
	stop, done := make(chan struct{}), make(chan struct{})
	p.mu.Lock()
	p.layoutStop, p.layoutDone = stop, done
	p.mu.Unlock()
	// No leading slash: a relative -d names the job file relatively.
	marker := "storbench/" + p.runID + "/"
	go func() {
		defer close(done)
		t := time.NewTicker(layoutEvery)
		defer t.Stop()
		var lastOut time.Time
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			written, running := layoutWritten(marker, self)
			if !running || written == 0 {
				continue
			}
			p.mu.Lock()
			if p.layoutStop == stop && (p.st.TTY || time.Since(lastOut) >= plainEvery || p.st.Verbosity > 0) {
				p.drawLayout(ph.Name, float64(written), sp.NeedBytes)
				lastOut = time.Now()
			}
			p.mu.Unlock()
		}
	}()
}

// drawLayout draws the layout's line: on a terminal in place with a bar,
// otherwise as a line of its own. Called with p.mu held.
func (p *progress) drawLayout(phase string, written, need float64) {
	need = max(need, written) // the need is a lower bound
	line := fmt.Sprintf("[%s] laying out files: %d%%, %s of %s", phase, int(100*written/need), units.Bytes(written), units.Bytes(need))
	if p.st.TTY {
		line = fmt.Sprintf("[%s] laying out files %s %s of %s", phase, bar(time.Duration(written), time.Duration(need)), units.Bytes(written), units.Bytes(need))
		p.st.control("\r\033[K")
		fmt.Fprint(p.st.Stdout, safetext.Escape(line))
		p.drawn = true
		return
	}
	fmt.Fprintln(p.st.Stdout, safetext.Escape(line))
}

// stopLayout ends the layout's watch, if one runs, and waits for it.
func (p *progress) stopLayout() {
	p.mu.Lock()
	stop, done := p.layoutStop, p.layoutDone
	p.layoutStop, p.layoutDone = nil, nil
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}

// layoutWritten sums what this run's fio processes on this machine have
// written: processes whose command line names a job file under the run's
// directory (marker), storbench's own supervisor left out. Before the
// phase's first figures that is the layout: a pass of its own
// (NAME.layout.fio), or the measured fio laying out its files before its
// start gate (NAME.gated.fio). running is false when none runs.
func layoutWritten(marker, self string) (written uint64, running bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	for _, d := range ents {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		dir := filepath.Join("/proc", d.Name())
		cmd, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if err != nil || !layoutCommand(cmd, marker) {
			continue
		}
		if exe, _ := os.Readlink(filepath.Join(dir, "exe")); exe != "" && exe == self {
			continue
		}
		io, err := os.ReadFile(filepath.Join(dir, "io"))
		if err != nil {
			continue
		}
		running = true
		for _, line := range strings.Split(string(io), "\n") {
			if v, ok := strings.CutPrefix(line, "wchar: "); ok {
				n, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
				written += n
			}
		}
	}
	return written, running
}

// layoutCommand says a process's command line (NUL-separated) runs a
// job file of the run marker names.
func layoutCommand(cmdline []byte, marker string) bool {
	for _, arg := range bytes.Split(cmdline, []byte{0}) {
		if bytes.HasSuffix(arg, []byte(".fio")) && bytes.Contains(arg, []byte(marker)) {
			return true
		}
	}
	return false
}
