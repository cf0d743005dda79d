// Package fio is storbench's file engine: it runs fio job files (the embedded
// four-corners workloads or the user's own), keeps fio's raw json+ output,
// and turns it into per-direction statistics whose latency bins merge exactly
// across hosts.
package fio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/storbench/storbench/internal/cpuload"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/units"
)

// Params are a fio phase's settings: one job file, the target directory and
// the overrides, and where the phase's files are.
type Params struct {
	// Dir is the target directory; files go under Dir/storbench/<run id>/.
	Dir string `json:"dir"`
	// Job is the job file's name and text, read on the controller.
	Job Job `json:"job"`
	Overrides
	// Shared runs the job's files in the run's shared area, one set for
	// all hosts (N-to-1 files, IOR-hard's shape): fio's directory= is
	// Dir/storbench/<run id>/shared/fio on every host. Every section opens
	// its files with create_on_open=1, so no host lays out (unlinks and
	// re-creates) a file the others are writing.
	Shared bool `json:"shared,omitempty"`
	// ReadFrom, "neighbour", makes host i play host (i+1) mod n's part in
	// a read phase (IOR's -C, mdtest's -N), so that no host reads its own
	// cached pages: ${STORBENCH_HOST_INDEX} is that host's index, and in a
	// phase that is not shared fio reads the files that host wrote in an
	// earlier phase (Link finds it). fio runs with --readonly and
	// allow_file_create=0: it never writes, lays out or creates a file.
	ReadFrom string `json:"read_from,omitempty"`
	// RunFiles keeps the phase's files in the run-level place of this
	// host, Dir/storbench/<run id>/shared/fio-<host>, instead of the job's
	// directory, because a later read_from phase reads them (set by Link).
	RunFiles bool `json:"run_files,omitempty"`
	// Later says a later phase of the run uses fio's files in the shared
	// area of Dir, so they stay after this phase (set by Link). Without
	// it, the phase's first host removes them once every host finished.
	Later bool `json:"later,omitempty"`
	// Stonewall, on a write phase, is IOR's deadline (-D) with its
	// wear-out (stoneWallingWearOut=1): every job writes until the
	// deadline, the jobs of all hosts agree on the most blocks any wrote,
	// and every job writes on to that count (runStonewall). nil: none.
	Stonewall *units.Duration `json:"stonewall,omitempty"`
	// StonewallOf, set by Link on a read_from phase that reads what a
	// stonewall phase wrote, names that phase; ReadBlocks, set by the run
	// once that phase ended (WithWritten), is the blocks each of its jobs
	// wrote, which each job of this phase then reads: IO500's stonewall
	// file, passed from the write to the read.
	StonewallOf string `json:"stonewall_of,omitempty"`
	ReadBlocks  int64  `json:"read_blocks,omitempty"`
}

// ReadFromNeighbour is the one value of Params.ReadFrom.
const ReadFromNeighbour = "neighbour"

// sharedEntry is the entry of the run's shared area that holds shared
// phases' files; runEntry(host) holds the files a host keeps for a later
// phase. Every fio entry of the shared area is one of these (isFioEntry).
const sharedEntry = "fio"

func runEntry(host string) string { return sharedEntry + "-" + host }

func isFioEntry(name string) bool {
	return name == sharedEntry || strings.HasPrefix(name, sharedEntry+"-")
}

// usesArea reports a phase whose files are in the run's shared area.
func (ps *Params) usesArea() bool { return ps.Shared || ps.ReadFrom != "" || ps.RunFiles }

// Engine runs fio.
type Engine struct{}

var (
	_ engine.Engine   = Engine{}
	_ engine.Prepared = (*prepared)(nil)
)

// resolve decodes a phase and makes its job file what fio will run: the
// overrides applied, storbench's variables filled in (with placeholders
// when vars is nil: the controller's checks, made before any host has its
// own values), and the settings of a shared or read_from phase.
func resolve(p engine.Phase, vars *Vars) (*Params, *JobFile, error) {
	ps, jf, err := decode(p)
	if err != nil {
		return nil, nil, err
	}
	// Options may add settings: check the file as fio will run it.
	jf.Apply(ps.Overrides)
	v := placeholderVars(ps.Shared)
	if vars != nil {
		v = *vars
	}
	if err := jf.Fill(v); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", ps.Job.Name, err)
	}
	if err := jf.share(ps); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", ps.Job.Name, err)
	}
	if err := jf.stonewall(ps); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", ps.Job.Name, err)
	}
	return ps, jf, nil
}

// SharedDir names the directory whose shared area a shared or read_from
// phase, or one that keeps its files for such a phase, works in.
func (pl plan) SharedDir(int) (string, bool) {
	if !pl.decoded.usesArea() {
		return "", false
	}
	return pl.decoded.Dir, true
}

// FindFio resolves the fio binary, with a one-line error saying what to do
// in the generic spelling of its path, --tool fio=PATH (--fio-bin PATH is
// its older alias).
func FindFio(bin string) (string, error) { return tool.Find(bin) }

// Version returns "fio-3.33" for the given binary.
func Version(bin string) (string, error) { return engine.ToolVersion(bin, tool.VersionArgs...) }

type prepared struct {
	env     engine.Env
	phase   engine.Phase
	params  *Params
	job     *JobFile
	bin     string
	ws      *engine.Workspace
	jobPath string
	planned time.Duration
	// dataDir is fio's directory=: the job's data/ directory, or a place
	// in the run's shared area.
	dataDir string
	// fioEnv is the environment of the fio process: the agent's without
	// storbench's own settings, with storbench's variables.
	fioEnv []string
	// clock is fio's clock option (clockArgs): the clock it would pick,
	// given so that it picks it once.
	clock []string
	// For Pause (pause.go): the running fio (0: none), when its jobs
	// were last stopped and continued (Unix ns).
	fioPid, pausedFrom, pausedTo atomic.Int64
	// held is the fio Prepare started, its jobs at the start gate, until
	// Run takes it (launch).
	held atomic.Pointer[fioRun]
}

// places returns where a phase's files are on this host (fio's
// directory=), the variables it fills in, and, for a read_from phase that
// is not shared, the host whose files it reads.
func places(ps *Params, env engine.Env, wsPath string) (dataDir string, v Vars, from string) {
	n := max(env.Hosts, 1)
	v = Vars{Index: env.Rank, Count: n}
	from = env.Host
	if ps.ReadFrom != "" {
		v.Index = (env.Rank + 1) % n
		if env.Next != "" {
			from = env.Next
		}
	}
	area := engine.SharedArea(ps.Dir, env.RunID)
	switch {
	case ps.Shared:
		dataDir = filepath.Join(area, sharedEntry)
		v.SharedDir = dataDir
	case ps.ReadFrom != "":
		dataDir = filepath.Join(area, runEntry(from))
	case ps.RunFiles:
		dataDir = filepath.Join(area, runEntry(env.Host))
	default:
		dataDir = filepath.Join(wsPath, "data")
	}
	return dataDir, v, from
}

// Prepare resolves fio, checks the job file (PathRules with this agent's own
// --allow-exec, whatever the controller checked), creates the phase's
// directory and writes the resolved job file into it. Then it starts the
// phase's fio, which lays out the files and brings every job to the start
// gate (launch), or, for a job file it cannot hold there, lays out the
// files by a pass of their own; either way fio's own message about a job
// file it rejects reaches the user before anything runs. A shared or
// read_from phase has its files in the run's shared area, which the run
// proved every host sees before any phase.
func (Engine) Prepare(ctx context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	ps, _, err := decode(p)
	if err != nil {
		return nil, err
	}
	wsPath := filepath.Join(ps.Dir, "storbench", env.RunID, env.Host, ps.Job.Name)
	awaitSamePath(ctx, env, wsPath)
	dataDir, vars, from := places(ps, env, wsPath)
	ps, jf, err := resolve(p, &vars)
	if err != nil {
		return nil, err
	}
	if err := jf.CheckSafe(ps.Job.Name, env.AllowExec); err != nil {
		return nil, err
	}
	bin, err := FindFio(env.Tools.Path(tool.Name))
	if err != nil {
		return nil, err
	}
	// fio cuts a job file line at ';' or '#', so it could not be told this
	// directory; it splits directory= at ':' unless escaped.
	for _, d := range []string{wsPath, dataDir} {
		if strings.ContainsAny(d, ";#") {
			return nil, fmt.Errorf("fio cannot be given a directory whose path holds ';' or '#' (%s); choose another DIR or job file name", d)
		}
	}
	if ps.ReadFrom == "" && ps.Stonewall == nil {
		// Files read from a neighbour are there already; a stonewall
		// phase's size is a cap (IO500's 9,920,000 MiB per process), what
		// it writes is what its deadline allows.
		if err := checkSpaceAfterRemovals(ctx, env, jf, ps); err != nil {
			return nil, err
		}
	}
	if err := checkLevels(ps.Dir, env.RunID, env.Host); err != nil {
		return nil, err
	}
	if ps.usesArea() {
		if err := checkLevels(ps.Dir, env.RunID, engine.SharedName, filepath.Base(dataDir)); err != nil {
			return nil, err
		}
	}
	ws, err := engine.NewWorkspace(ps.Dir, env.RunID, env.Host, ps.Job.Name)
	if err != nil {
		return nil, err
	}
	err = makeDataDir(ps, env, jf, dataDir, from)
	if err == nil {
		err = checkWorkspace(ps.Dir, ws.Path, dataDir, jf)
	}
	if err != nil {
		ws.Remove()
		return nil, err
	}
	jf.Global().Set("directory", strings.ReplaceAll(dataDir, ":", `\:`))
	jobPath := filepath.Join(ws.Path, ps.Job.Name+".fio")
	if err := os.WriteFile(jobPath, []byte(jf.Render()), 0o644); err != nil {
		ws.Remove()
		return nil, err
	}
	r := &prepared{env: env, phase: p, params: ps, job: jf, bin: bin, ws: ws, jobPath: jobPath,
		planned: runDuration(jf), dataDir: dataDir, fioEnv: fioEnviron(os.Environ(), vars), clock: clockArgs(jf)}
	if err := r.ready(ctx); err != nil {
		ws.Remove()
		return nil, err
	}
	return r, nil
}

// ready makes the phase ready to start. Most phases start fio here, which
// lays out the files and brings its jobs to the start gate: Run only opens
// it (launch). Others are checked by fio --parse-only and their files laid
// out by a pass of their own; that pass parses the job file as
// --parse-only would, which is asked only when the layout failed, to tell
// a job file fio rejects from a layout that failed.
func (r *prepared) ready(ctx context.Context) error {
	if r.params.Stonewall == nil {
		if launched, err := r.launch(ctx); err != nil || launched {
			return err
		}
	}
	if !r.laysOut() {
		return r.parseOnly(ctx)
	}
	err := r.layOut(ctx)
	if err != nil && ctx.Err() == nil {
		if perr := r.parseOnly(ctx); perr != nil {
			err = perr
		}
	}
	return err
}

// parseOnly has fio check the phase's job file (fio --parse-only) on this
// host: its fio, its directory.
func (r *prepared) parseOnly(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, r.bin, "--parse-only", untimedClock, r.jobPath).CombinedOutput()
	if err != nil {
		return fmt.Errorf("fio rejects job file %s: %s", r.params.Job.Name, fioMessage(string(out), err))
	}
	return nil
}

// makeDataDir makes the job's data directory: its place in the run's
// shared area (shared, run_files), none for read_from (a neighbour's
// files, which must be there), or its own. A place in the shared area is
// never removed here when preparing fails: other hosts may be in it; the
// run removes it at its end. A shared phase's first host also makes the
// files its jobs share (createShared).
func makeDataDir(ps *Params, env engine.Env, jf *JobFile, dataDir, from string) error {
	var err error
	switch {
	case ps.Shared || ps.RunFiles && ps.ReadFrom == "":
		rank := 0
		if ps.Shared {
			rank = env.Rank // one directory for all hosts: the first makes it
		}
		var ws *engine.Workspace
		if ws, err = engine.SharedWorkspaceOf(ps.Dir, env.RunID, filepath.Base(dataDir), rank); err == nil {
			ws.Keep() // the run's shared area: RemoveSharedEntries takes it
			if ps.Shared && rank == 0 {
				err = createShared(jf, dataDir)
			}
		}
	case ps.ReadFrom != "":
		if _, serr := os.Stat(dataDir); serr != nil {
			err = fmt.Errorf("read_from: %s: the files %s wrote in an earlier phase are not in %s (%v); did its write phase run?", ReadFromNeighbour, from, dataDir, unwrapPath(serr))
		}
	default:
		err = os.Mkdir(dataDir, 0o755)
	}
	return err
}

// fioEnviron is the environment of a fio process: the agent's, without
// any STORBENCH_ variable of its own (an agent's S3 keys are among them:
// no job file can have fio put them in its output), plus storbench's
// variables, for a program --allow-exec lets a job file run.
func fioEnviron(environ []string, v Vars) []string {
	out := make([]string, 0, len(environ)+3)
	for _, kv := range environ {
		if !strings.HasPrefix(strings.ToUpper(kv), "STORBENCH_") {
			out = append(out, kv)
		}
	}
	out = append(out, VarHostIndex+"="+strconv.Itoa(v.Index), VarHostCount+"="+strconv.Itoa(v.Count))
	if v.SharedDir != "" {
		out = append(out, VarSharedDir+"="+v.SharedDir)
	}
	return out
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkWorkspace makes sure the job's directory and its data directory are
// inside dir once resolved (a level made a symbolic link after checkLevels
// looked), and that no path a confined option names leads out of them
// through a symbolic link.
func checkWorkspace(dir, wsPath, dataDir string, jf *JobFile) error {
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	for _, p := range []string{wsPath, dataDir} {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return err
		}
		if !within(realDir, real) {
			return fmt.Errorf("%s resolves to %s, outside %s: a symbolic link leads out of DIR", p, real, dir)
		}
	}
	for _, p := range jf.diskPaths() {
		root := wsPath
		if p.inData {
			root = dataDir
		}
		if err := checkOnDisk(root, p.rel); err != nil {
			return err
		}
	}
	return nil
}

// ResolvedText is the job file as fio runs it.
func (r *prepared) ResolvedText() string { return r.job.Render() }

// Run opens the start gate of the fio Prepare started at startAt, or
// starts fio at once with its jobs held at a start gate which opens then
// (so fio's start-up is outside the measured window on every host), and
// follows fio's per-second status output. Without a gate, fio starts at
// startAt.
//
// A phase with a stonewall runs in two passes (runStonewall).
func (r *prepared) Run(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	if r.params.Stonewall != nil {
		return r.runStonewall(ctx, startAt, live)
	}
	if f := r.held.Swap(nil); f != nil {
		return f.finish(ctx, startAt, live)
	}
	return r.runFio(ctx, startAt, live, r.job, r.jobPath, false)
}

// runFio runs job file jf (written at path) as Run does. perJob says
// fio reports every job apart (no group_reporting): the operations are
// then its jobs' figures combined, as group_reporting would have them.
func (r *prepared) runFio(ctx context.Context, startAt time.Time, live engine.LiveFunc, jf *JobFile, path string, perJob bool) (*engine.HostResult, error) {
	res := r.newResult(jf)
	g, runPath := r.gateMeasured(res.Meta, jf, path)
	if g == nil {
		if err := engine.WaitUntil(ctx, startAt); err != nil {
			return nil, err
		}
	}
	f, err := r.startFio(res, jf, runPath, g, perJob)
	if err != nil {
		if g != nil {
			g.close()
		}
		return nil, err
	}
	return f.finish(ctx, startAt, live)
}

// command is fio's command line for the job file at runPath, its
// standard error into stderr, to be started under a supervisor (startFio),
// which puts it in a process group of its own.
func (r *prepared) command(runPath string, stderr io.Writer) *exec.Cmd {
	args := []string{"--output-format=json+", "--status-interval=1"}
	if r.params.ReadFrom != "" {
		// Another host's files: fio refuses to write, and to lay out (unlink
		// and re-create) a file shorter than the job's region.
		args = append(args, "--readonly")
	}
	args = append(args, r.clock...)
	cmd := exec.Command(r.bin, append(args, runPath)...)
	cmd.Dir = r.ws.Path
	cmd.Env = r.fioEnv
	cmd.Stderr = stderr
	return cmd
}

// openAt opens the gate at startAt; a stop before (ctx) opens it too, so
// jobs held at it end at once on fio's stop, and so does fio's end.
func (g *gate) openAt(ctx context.Context, startAt time.Time, exited <-chan struct{}) {
	t := time.NewTimer(time.Until(startAt))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	case <-exited:
	}
	g.open()
}

// stopFio stops fio's process group pgid on Ctrl-C or a lost controller:
// SIGINT makes fio stop and still print what it measured; SIGKILL follows
// if it lingers. A process in uninterruptible I/O on a stalled file system
// outlives even SIGKILL: after killWait fio is left to the kernel, and the
// returned text says so ("" when fio ended).
func stopFio(pgid int, stdout io.Closer, exited, read <-chan struct{}) (stuck string) {
	_ = syscall.Kill(-pgid, syscall.SIGINT)
	select {
	case <-exited:
	case <-time.After(stopGrace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		select {
		case <-exited:
		case <-time.After(killWait):
			stuck = fmt.Sprintf("fio (process group %d) did not end %v after SIGINT and %v after SIGKILL: a process in uninterruptible I/O (a stalled file system?) is left running",
				pgid, stopGrace, killWait)
			stdout.Close() // what fio wrote so far is read; the rest is not waited for
			<-read
		}
	}
	return stuck
}

// ran is the job file fio ran; perJob says fio reported every job apart
// (no group_reporting), its figures combined as group_reporting would.
type ran struct {
	jf     *JobFile
	perJob bool
}

// outcome reads fio's last JSON (last) into res and says how the run
// ended: interrupted (what was measured kept), failed (no figure, fio's
// reason), or done. passed are the jobs' times through the gate; stderr
// and warnings what fio printed besides (stderr read only when fio ended:
// a stuck fio may still write it); stuck says fio was left running.
func (r *prepared) outcome(ctx context.Context, res *engine.HostResult, run ran, last []byte, warnings []string, passed []int64, stderr string, waitErr error, stuck string) (*engine.HostResult, error) {
	var ops []record.OpStats
	failedJob, errno := "", 0
	if len(last) > 0 {
		res.Raw["fio.json"] = append([]byte(nil), last...)
		if o, err := ParseOutput(last); err == nil {
			res.Meta["fio_version"] = o.Version
			if run.perJob {
				ops = o.jobsCombined()
			} else {
				// Without group_reporting fio reports every job of a
				// section apart, each under the section's name and over
				// the same seconds: one operation, its jobs added.
				ops, _ = o.OpStats()
				ops = record.CombineAll(ops)
			}
			if len(passed) > 0 {
				o.alignStart(ops, passed, run.jf.rampTime())
				res.Meta["first_io_ns"] = strconv.FormatInt(passed[0], 10)
				res.Meta["last_job_start_ns"] = strconv.FormatInt(passed[len(passed)-1], 10)
			}
			failedJob, errno = o.FirstError()
		}
	}
	if ctx.Err() != nil {
		// What fio measured until it was stopped stays; the agent marks it
		// interrupted unless it asked for the stop.
		res.Ops = ops
		if stuck != "" {
			res.Err = "interrupted; " + stuck
			return res, engine.Interrupted(fmt.Errorf("%w; %s", ctx.Err(), stuck))
		}
		return res, engine.Interrupted(ctx.Err())
	}
	if said := gaveUpStarved(stderr, warnings, errno); said != "" {
		// fio's own words say a starved machine, not the storage: the
		// message names the cause and the load, and the host's result
		// carries it, so the run goes on with its next phase.
		msg := starvedMessage(said)
		res.Err = msg
		res.Client = cpuload.GaveUp(res.Client, said)
		return res, fmt.Errorf("fio job %s failed: %s", r.params.Job.Name, msg)
	}
	if waitErr != nil || errno != 0 {
		// What the host did until fio failed is its own (a job whose
		// layout failed did nothing: no figure), kept with fio's raw
		// output and fio's own reason as the error: the phase's totals
		// hold this host's bytes as its per-host row does.
		msg := failure(stderr, warnings, failedJob, errno, waitErr)
		if note := engine.AddressLimitNote(msg); note != "" {
			msg += "; " + note
		}
		res.Err, res.Ops = msg, ops
		return res, fmt.Errorf("fio job %s failed: %s", r.params.Job.Name, msg)
	}
	res.Ops = ops
	if len(last) == 0 {
		res.Err = "fio printed no results"
		return res, fmt.Errorf("fio job %s printed no results", r.params.Job.Name)
	}
	return res, nil
}

// How long a stopped fio may take: to end after SIGINT (it prints what it
// measured), then to be gone after SIGKILL. Variables for tests.
var (
	stopGrace = 10 * time.Second
	killWait  = 10 * time.Second
)

// statusTaken is called when a status of fio's has been taken in; a test
// makes it slow, as a starved machine makes storbench.
var statusTaken = func() {}

// follow reads fio's output: each JSON object (the per-second status,
// then the final one) is kept in *last and turned into the live series.
func (r *prepared) follow(f *fioRun) {
	var lastOut *Output
	var seconds perSecond
	counts := newLiveCounts(f.ran.jf)
	var prevNs int64
	f.splitErr = SplitObjects(f.stdout, func(obj []byte) {
		f.last = append(f.last[:0], obj...)
		o, err := ParseOutput(obj)
		if err != nil {
			return
		}
		b := f.begun.Load()
		if b == nil {
			// Before the phase began (fio at its gate): no operation yet,
			// and any there were count in the first interval after it.
			lastOut = o
			return
		}
		if seconds.after == 0 {
			// fio's times are in ms, cut down: a second's slack.
			seconds.after = b.at.Add(-time.Second).UnixNano()
			seconds.ramped = f.ran.jf != nil && f.ran.jf.rampTime() > 0
		}
		// Outputs before the gate opened count from it.
		from := max(prevNs, b.at.UnixNano())
		now := statusTime(o, from)
		r.addSeconds(&seconds, o, from, now)
		lastOut, prevNs = o, now
		if b.live != nil {
			b.live(engine.Snapshot{Host: r.env.Host, Phase: r.phase.Name, Stage: "run",
				Elapsed: max(time.Since(b.at), 0), Planned: r.planned, Ops: counts.counts(o), Lat: o.LiveLat()})
		}
		statusTaken()
	}, func(line string) {
		if !isExecNote(line) {
			f.otherLine(line)
		}
	})
	if lastOut != nil {
		var lat []record.LatSecond
		f.res.Series, lat = seconds.result(lastOut)
		if len(lat) > 0 {
			f.res.LatencySeconds, _ = record.EncodeLatSeconds(lat)
		}
	}
}

// statusTime is when fio took the counts of its output o (Unix ns): fio's
// own time stamp (timestamp_ms, the same wall clock), not when storbench
// read it. A starved agent reads fio's statuses late, and an interval
// that ended at the reading held the counts of a second earlier: the
// second after a late status held two seconds' operations, and the last
// status, read after fio's end, fell outside the job's window, where the
// report drew it as a second of 0 ops/s (issue 37). It is never later
// than now (fio's stamp is in ms, cut down) and always later than from,
// where the interval it closes opens, so that no interval with
// operations has no length; an output without a stamp is taken as read.
func statusTime(o *Output, from int64) int64 {
	now := time.Now().UnixNano()
	if o.TimestampMs > 0 {
		now = min(now, o.TimestampMs*int64(time.Millisecond))
	}
	return max(now, from+1)
}

// Cleanup removes the phase directory with fio's files, unless Keep. The
// files of a phase in the run's shared area are removed once, by the
// phase's first host, and only when no later phase uses them (Later); the
// controller cleans up no host before every host's run ended.
func (r *prepared) Cleanup(ctx context.Context) error {
	return r.cleanup(ctx, r.env.Rank == 0)
}

// CleanupLeaving is Cleanup for a host that leaves the phase on its own
// (engine.Cleaner): the phase directory, and what the phase keeps in the
// run's shared area only when this host is the phase's last (last),
// whatever its rank. While others run, a host whose fio opens the shared
// file late would find it gone; a host still running removes it (the
// heir), or the run-level cleanup.
func (r *prepared) CleanupLeaving(ctx context.Context, last bool) error {
	return r.cleanup(ctx, last)
}

// cleanup removes the phase directory, unless Keep, and with area what
// fio's phases keep in the run's shared area, when no later phase uses it.
func (r *prepared) cleanup(ctx context.Context, area bool) error {
	r.abandon()
	if r.env.Keep {
		r.ws.Keep()
		return nil
	}
	err := r.ws.RemoveContext(ctx)
	if area && r.params.usesArea() && !r.params.Later {
		err = joinLeftovers(err, engine.RemoveSharedEntries(r.params.Dir, r.env.RunID, isFioEntry))
	}
	return err
}

// joinLeftovers joins two cleanup errors, the leftovers of both in one
// *engine.LeftoverError when both are.
func joinLeftovers(a, b error) error {
	if a == nil || b == nil {
		return errors.Join(a, b)
	}
	var la, lb *engine.LeftoverError
	if errors.As(a, &la) && errors.As(b, &lb) {
		return &engine.LeftoverError{Items: append(append([]engine.Leftover(nil), la.Items...), lb.Items...)}
	}
	return errors.Join(a, b)
}

// CheckPhase runs the safety check a controller can make before any agent
// starts work; each agent checks again with its own --allow-exec.
func CheckPhase(p engine.Phase, allowExec bool) error {
	ps, jf, err := resolve(p, nil)
	if err != nil {
		return err
	}
	return jf.CheckSafe(ps.Job.Name, allowExec)
}
