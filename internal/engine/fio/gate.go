package fio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// gate holds a fio phase's jobs at the start line until the phase's
// common start time, so that hosts start together. Every job section that
// does I/O runs, as fio's exec_prerun, a command that blocks reading a FIFO
// of the agent's and then writes one byte to a second FIFO, which the agent
// timestamps: that job's start. fio runs exec_prerun in each job process
// after laying out the job's files and allocating its buffers, right
// before it takes the job's start time (fio 3.33 backend.c thread_main:
// setup_files, init_random_map, exec_prerun, set_epoch_time). fio's own
// start-up - forking job processes, which fio polls for every 100 ms, and
// laying out files - is therefore behind the gate and outside the window.
//
// While the agent holds the gate FIFO open for writing, a reader blocks
// until it closes it; the agent then puts an empty file in the FIFO's
// place first, so a job that comes to the gate late passes at once.
type gate struct {
	dir     string
	hold    *os.File // the gate FIFO, open for writing
	started *os.File // the FIFO jobs write to when they pass, open read-write
	read    chan struct{}
	once    sync.Once

	mu     sync.Mutex
	stamps []int64 // Unix ns at which each job passed the gate
	opened int64   // Unix ns at which the gate opened
	// arrived counts the jobs that came to the gate; all is closed when
	// want of them did (want 0: nobody waits for it), failed when a job's
	// own exec_prerun failed before it.
	arrived, want int
	all, failed   chan struct{}
}

// gatePathRE is what a gate's directory may hold: it goes into a shell
// command and a fio option unquoted.
var gatePathRE = regexp.MustCompile(`^[A-Za-z0-9/._-]+$`)

// newGate makes a closed gate in a local temporary directory (FIFOs on a
// network file system are not shared across hosts, and some do not have
// them).
func newGate() (*gate, error) {
	dir, fs, err := openFifos(gateDirPrefix, "gate", "started")
	if err != nil {
		return nil, err
	}
	g := &gate{dir: dir, hold: fs[0], started: fs[1], read: make(chan struct{}), all: make(chan struct{}), failed: make(chan struct{})}
	go g.readStarts()
	return g, nil
}

// openFifos makes a temporary directory (fifoDir) holding a FIFO of each
// name, each open read-write: O_RDWR opens a FIFO without waiting for the
// other end (Linux), and its reader sees no end until it is closed. The
// directory's path goes into shell commands unquoted. On an error nothing
// is left.
func openFifos(prefix string, names ...string) (string, []*os.File, error) {
	dir, err := fifoDir(prefix)
	if err != nil {
		return "", nil, err
	}
	var fs []*os.File
	fail := func(err error) (string, []*os.File, error) {
		for _, f := range fs {
			f.Close()
		}
		os.RemoveAll(dir)
		return "", nil, err
	}
	if !gatePathRE.MatchString(dir) {
		return fail(fmt.Errorf("the temporary directory %q holds characters a shell command cannot take unquoted", dir))
	}
	for _, name := range names {
		path := filepath.Join(dir, name)
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			return fail(fmt.Errorf("mkfifo: %v", err))
		}
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			return fail(err)
		}
		fs = append(fs, f)
	}
	return dir, fs, nil
}

// The temporary directories of gates and of jobs' end signals are named
// <prefix><pid>-<random>, by the process that made them.
const (
	gateDirPrefix = "storbench-gate-"
	endsDirPrefix = "storbench-ends-"
)

// fifoNames are the names a gate's or an end signal's directory holds.
var fifoNames = map[string]bool{"gate": true, "started": true, "open": true, "ended": true}

// fifoDir makes a temporary directory for FIFOs, named by this process's
// pid, and first removes those that processes now gone left behind (an
// agent killed while a phase ran cannot remove its own).
func fifoDir(prefix string) (string, error) {
	sweepStale(os.TempDir(), prefix)
	return os.MkdirTemp("", prefix+strconv.Itoa(os.Getpid())+"-")
}

// sweepStale removes the directories <prefix><pid>-* in tmp whose process
// is gone and that hold nothing but FIFO names of storbench's: a directory
// of a live process (or of one whose pid was reused), or with anything
// else in it, stays.
func sweepStale(tmp, prefix string) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, prefix+"*-*"))
	for _, d := range dirs {
		pid, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(filepath.Base(d), prefix), "-", 2)[0])
		if err != nil || pid <= 0 || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue
		}
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		ours := true
		for _, e := range ents {
			ours = ours && fifoNames[e.Name()]
		}
		if ours {
			os.RemoveAll(d)
		}
	}
}

// prerun is the command a job runs at the gate, after own (the job's own
// exec_prerun, if any). fio sends the output of the whole line to
// <job>.prerun.txt by appending a redirection, which binds to the line's
// last command: one subshell holds it all, so own's output goes there.
// It uses no ';', which would end fio's option line.
func (g *gate) prerun(own string) string {
	started := " 1<>" + g.dir + "/started"
	if own = strings.TrimSpace(own); own != "" {
		// A job whose own command failed says so ('f'): it never comes
		// to the gate, and a Prepare counting arrivals would wait for it.
		own = "((" + own + ") || (echo f" + started + " && false)) && "
	}
	// 'a' says the job came to the gate. The shell's read returns at the
	// end of the gate FIFO, which comes when the agent opens the gate (an
	// empty file put in the FIFO's place) and also when the agent dies
	// (the FIFO's writer is gone): test -f tells the two apart, and a job
	// whose agent died fails its prerun, so fio does no I/O for nobody. It
	// is the shell's own (cat was a program to start for every job: 64
	// jobs took 30 ms longer to pass). "1<>" opens the started FIFO
	// read-write, which never waits for a reader: a dead agent's job does
	// not hang there, holding fio.
	//
	//
	// The gate is opened (exec 3<) before 'a' is said: a FIFO's open for
	// reading waits for a writer, and an agent that dies after hearing
	// 'a' (its writer closed) must find the job already reading, which
	// then sees the end, rather than waiting in open for a writer that
	// never comes. No ';' and no braces: fio takes ';' for a comment.
	gate := g.dir + "/gate"
	return "(" + own + "(exec 3<" + gate + " && echo a" + started + " && read x <&3 || test -f " + gate + ") && echo s" + started + ")"
}

// expect says how many jobs come to the gate before it opens: all is
// closed once they did. Called before fio starts.
func (g *gate) expect(n int) {
	g.mu.Lock()
	g.want = n
	g.mu.Unlock()
}

func (g *gate) readStarts() {
	defer close(g.read)
	buf := make([]byte, 256)
	for {
		n, err := g.started.Read(buf)
		now := time.Now().UnixNano()
		g.mu.Lock()
		end := false
		for _, b := range buf[:n] {
			switch b {
			case 'e':
				end = true
			case 's':
				g.stamps = append(g.stamps, now)
			case 'a':
				if g.arrived++; g.arrived == g.want {
					close(g.all)
				}
			case 'f':
				select {
				case <-g.failed:
				default:
					close(g.failed)
				}
			}
		}
		g.mu.Unlock()
		if err != nil || end {
			return
		}
	}
}

// open lets every job through, those waiting and those still to come.
func (g *gate) open() {
	g.once.Do(func() {
		tmp := filepath.Join(g.dir, "open")
		if f, err := os.Create(tmp); err == nil {
			f.Close()
			_ = os.Rename(tmp, filepath.Join(g.dir, "gate"))
		}
		g.mu.Lock()
		g.opened = time.Now().UnixNano()
		g.mu.Unlock()
		g.hold.Close()
	})
}

// close opens the gate, stops listening once fio is gone, removes the
// FIFOs and returns when each job passed (Unix ns, in order) and when
// the gate opened: a job that passed well after it came to the gate late.
// Every byte the jobs wrote is read first: an end mark ('e') written
// behind them tells the reader it has them all, where closing the FIFO
// at once lost those it had not read yet (a starved machine runs the
// reader late). The wait for the mark is bounded, as a reader that never
// runs must not hold the phase.
func (g *gate) close() ([]int64, int64) {
	g.open()
	if _, err := g.started.Write([]byte{'e'}); err == nil {
		select {
		case <-g.read:
		case <-time.After(closeWait):
		}
	}
	g.started.Close()
	select {
	case <-g.read:
	case <-time.After(time.Second):
	}
	os.RemoveAll(g.dir)
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]int64(nil), g.stamps...), g.opened
}

// closeWait bounds how long close waits for the reader to reach the end
// mark: long enough for a starved machine to run it.
const closeWait = 30 * time.Second

// shellSafeName reports whether fio can write a job's prerun output file,
// "<name>.prerun.txt", through the shell: names with a '/' or a character
// the shell reads are left ungated.
var shellSafeName = regexp.MustCompile(`^[A-Za-z0-9._+,=@%:-]+$`)

// gated returns the job file fio runs: jf with every job section that
// does I/O held at the gate (its own exec_prerun, if --allow-exec let it
// have one, runs first, before the gate, outside the window). A startdelay that every section
// has alike is dropped: it is there to start the jobs together after fio's
// start-up, which the gate does. It also says which sections are left
// ungated.
func gated(jf *JobFile, prerun func(own string) string) (*JobFile, []string, error) {
	out, err := ParseJobFile("gated", jf.Render())
	if err != nil {
		return nil, nil, err
	}
	delays := map[string]bool{}
	var jobs []*Section
	for _, s := range out.Sections {
		if isGlobal(s.Name) {
			continue
		}
		d, _ := out.Lookup(s, "startdelay")
		delays[strings.TrimSpace(d)] = true
		jobs = append(jobs, s)
	}
	if len(jobs) == 0 {
		return nil, nil, errors.New("no job section")
	}
	var ungated []string
	for _, s := range jobs {
		if len(delays) == 1 {
			s.Set("startdelay", "0")
		}
		if out.flag(s, "create_only") {
			continue
		}
		if !shellSafeName.MatchString(out.jobName(s)) {
			ungated = append(ungated, out.jobName(s))
			continue
		}
		own, _ := out.Lookup(s, "exec_prerun")
		s.Set("exec_prerun", prerun(own))
	}
	return out, ungated, nil
}

// isExecNote reports fio's line about exec_prerun's or exec_postrun's
// output file, which it prints among its JSON for every job that has one.
func isExecNote(line string) bool {
	return strings.Contains(line, " : Saving output of prerun in ") || strings.Contains(line, " : Saving output of postrun in ")
}

// gate makes the start gate and the job file fio runs held at it, and
// records in meta how the phase started. With no gate (none could be
// made), fio runs the job file as prepared, started at the start time.
func (r *prepared) gate(meta map[string]string, job *JobFile, jobPath string) (*gate, string) {
	g, err := newGate()
	if err == nil {
		var jf *JobFile
		var ungated []string
		if jf, ungated, err = gated(job, g.prerun); err == nil {
			path := strings.TrimSuffix(jobPath, ".fio") + ".gated.fio"
			if err = os.WriteFile(path, []byte(jf.Render()), 0o644); err == nil {
				meta["start_gate"] = "every job held at exec_prerun until the start time"
				if len(ungated) > 0 {
					meta["start_gate"] += "; not held (a name the shell cannot take): " + strings.Join(ungated, ", ")
				}
				return g, path
			}
		}
		g.close()
	}
	meta["start_gate"] = "none (" + err.Error() + "): fio started at the start time"
	return nil, jobPath
}
