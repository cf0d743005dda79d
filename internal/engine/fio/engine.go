// Package fio is storbench's file engine: it runs fio job files (the embedded
// four-corners workloads or the user's own), keeps fio's raw json+ output,
// and turns it into per-direction statistics whose latency bins merge exactly
// across hosts.
package fio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// Params are a fio phase's settings: one job file, the target directory and
// the overrides.
type Params struct {
	// Dir is the target directory; files go under Dir/storbench/<run id>/.
	Dir string `json:"dir"`
	// Job is the job file's name and text, read on the controller.
	Job Job `json:"job"`
	Overrides
}

// Engine runs fio.
type Engine struct{}

var (
	_ engine.Engine    = Engine{}
	_ engine.Validator = Engine{}
	_ engine.Planner   = Engine{}
	_ engine.Prepared  = (*prepared)(nil)
)

func decode(p engine.Phase) (*Params, *JobFile, error) {
	var ps Params
	if err := engine.DecodeStrict(p.Params, &ps); err != nil {
		return nil, nil, fmt.Errorf("fio phase %s: %v", p.Name, err)
	}
	jf, err := ParseJobFile(ps.Job.Name, ps.Job.Text)
	if err != nil {
		return nil, nil, err
	}
	return &ps, jf, nil
}

// Validate checks the job file parses and, with its overrides, keeps to
// PathRules. It lets through the options that --allow-exec governs: that is
// decided by CheckPhase on the controller and by each agent, from their own
// flags.
func (Engine) Validate(p engine.Phase) error {
	ps, jf, err := decode(p)
	if err != nil {
		return err
	}
	jf.Apply(ps.Overrides)
	return jf.CheckSafe(ps.Job.Name, true)
}

// Planned estimates the phase's duration from the job file with overrides.
func (Engine) Planned(p engine.Phase) (time.Duration, error) {
	ps, jf, err := decode(p)
	if err != nil {
		return 0, err
	}
	jf.Apply(ps.Overrides)
	return jf.Duration(), nil
}

// FindFio resolves the fio binary, with a one-line error saying what to do.
func FindFio(bin string) (string, error) {
	if bin == "" {
		bin = "fio"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		if bin == "fio" {
			return "", errors.New("fio is not installed: install it (apt-get install fio, dnf install fio) or pass --fio-bin PATH")
		}
		return "", fmt.Errorf("fio binary %s not found or not executable (--fio-bin)", bin)
	}
	return path, nil
}

// Version returns "fio-3.33" for the given binary.
func Version(bin string) (string, error) {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", bin, err)
	}
	return strings.TrimSpace(string(out)), nil
}

type prepared struct {
	env     engine.Env
	phase   engine.Phase
	params  *Params
	job     *JobFile
	bin     string
	ws      *engine.Workspace
	jobPath string
	planned time.Duration
}

// Prepare resolves fio, checks the job file (PathRules with this agent's own
// --allow-exec, whatever the controller checked; then fio's own --parse-only,
// so fio's message reaches the user before anything runs), creates the
// phase's directory and writes the resolved job file into it.
func (Engine) Prepare(ctx context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	ps, jf, err := decode(p)
	if err != nil {
		return nil, err
	}
	// Options may add settings: check the file as fio will run it.
	jf.Apply(ps.Overrides)
	if err := jf.CheckSafe(ps.Job.Name, env.AllowExec); err != nil {
		return nil, err
	}
	bin, err := FindFio(env.FioBin)
	if err != nil {
		return nil, err
	}
	// fio cuts a job file line at ';' or '#', so it could not be told this
	// directory; it splits directory= at ':' unless escaped.
	if d := filepath.Join(ps.Dir, "storbench", env.RunID, env.Host, ps.Job.Name); strings.ContainsAny(d, ";#") {
		return nil, fmt.Errorf("fio cannot be given a directory whose path holds ';' or '#' (%s); choose another DIR or job file name", d)
	}
	if err := checkLevels(ps.Dir, env.RunID, env.Host); err != nil {
		return nil, err
	}
	ws, err := engine.NewWorkspace(ps.Dir, env.RunID, env.Host, ps.Job.Name)
	if err != nil {
		return nil, err
	}
	if err := checkWorkspace(ps.Dir, ws.Path, jf); err != nil {
		ws.Remove()
		return nil, err
	}
	dataDir := filepath.Join(ws.Path, "data")
	if err := os.Mkdir(dataDir, 0o755); err != nil {
		ws.Remove()
		return nil, err
	}
	jf.Global().Set("directory", strings.ReplaceAll(dataDir, ":", `\:`))
	jobPath := filepath.Join(ws.Path, ps.Job.Name+".fio")
	if err := os.WriteFile(jobPath, []byte(jf.Render()), 0o644); err != nil {
		ws.Remove()
		return nil, err
	}
	out, err := exec.CommandContext(ctx, bin, "--parse-only", jobPath).CombinedOutput()
	if err != nil {
		ws.Remove()
		return nil, fmt.Errorf("fio rejects job file %s: %s", ps.Job.Name, fioMessage(string(out), err))
	}
	return &prepared{env: env, phase: p, params: ps, job: jf, bin: bin, ws: ws, jobPath: jobPath,
		planned: jf.Duration()}, nil
}

// checkWorkspace makes sure the job's directory is inside dir once resolved
// (a level made a symbolic link after checkLevels looked), and that no path
// a confined option names leads out of it through a symbolic link.
func checkWorkspace(dir, wsPath string, jf *JobFile) error {
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	realWs, err := filepath.EvalSymlinks(wsPath)
	if err != nil {
		return err
	}
	if !within(realDir, realWs) {
		return fmt.Errorf("%s resolves to %s, outside %s: a symbolic link leads out of DIR", wsPath, realWs, dir)
	}
	for _, p := range jf.diskPaths() {
		if err := checkOnDisk(wsPath, p); err != nil {
			return err
		}
	}
	return nil
}

// ResolvedText is the job file as fio runs it.
func (r *prepared) ResolvedText() string { return r.job.Render() }

// Run starts fio at startAt and follows its per-second status output.
func (r *prepared) Run(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	if err := engine.WaitUntil(ctx, startAt); err != nil {
		return nil, err
	}
	res := &engine.HostResult{
		Host: r.env.Host,
		Meta: map[string]string{"job": r.params.Job.Name, model.MetaReport: r.job.Report, "fio_bin": r.bin},
		Raw:  map[string][]byte{r.params.Job.Name + ".fio": []byte(r.job.Render())},
	}
	cmd := exec.Command(r.bin, "--output-format=json+", "--status-interval=1", r.jobPath)
	cmd.Dir = r.ws.Path
	var stderr bytes.Buffer
	cmd.Stderr = &limitWriter{w: &stderr, n: 1 << 20}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start fio: %v", err)
	}
	// Ctrl-C or a lost controller: SIGINT makes fio stop and still print what
	// it measured; a second, harder stop follows if it lingers.
	stopped := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = cmd.Process.Signal(syscall.SIGINT)
			select {
			case <-stopped:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
			}
		case <-stopped:
		}
	}()

	var last []byte
	var prev []record.Count
	prevNs := start.UnixNano()
	var warnings []string
	splitErr := SplitObjects(stdout, func(obj []byte) {
		last = append(last[:0], obj...)
		o, err := ParseOutput(obj)
		if err != nil {
			return
		}
		now := time.Now().UnixNano()
		cur := o.Counts()
		res.Series = append(res.Series, deltas(prev, cur, prevNs, now)...)
		prev, prevNs = cur, now
		if live != nil {
			live(engine.Snapshot{Host: r.env.Host, Phase: r.phase.Name, Stage: "run",
				Elapsed: time.Since(start), Planned: r.planned, Ops: cur, Lat: o.LiveLat()})
		}
	}, func(line string) {
		if len(warnings) < 20 {
			warnings = append(warnings, line)
		}
	})
	waitErr := cmd.Wait()
	res.Meta["fio_wall_s"] = fmt.Sprintf("%.3f", time.Since(start).Seconds())
	close(stopped)
	if splitErr != nil && waitErr == nil {
		waitErr = splitErr
	}
	if stderr.Len() > 0 {
		res.Raw["fio.stderr"] = stderr.Bytes()
	}
	if len(warnings) > 0 {
		res.Raw["fio.stdout-other"] = []byte(strings.Join(warnings, "\n") + "\n")
	}
	var ops []record.OpStats
	failedJob, errno := "", 0
	if len(last) > 0 {
		res.Raw["fio.json"] = append([]byte(nil), last...)
		if o, err := ParseOutput(last); err == nil {
			res.Meta["fio_version"] = o.Version
			ops, _ = o.OpStats()
			failedJob, errno = o.FirstError()
		}
	}
	if ctx.Err() != nil {
		// What fio measured until it was stopped stays; the agent marks it
		// interrupted unless it asked for the stop.
		res.Ops = ops
		return res, engine.Interrupted(ctx.Err())
	}
	if waitErr != nil || errno != 0 {
		// A failed run's figures are not results (a job that read files
		// whose layout failed measured nothing worth showing): no figure,
		// fio's raw output kept, and fio's own reason as the error.
		msg := failure(stderr.String(), warnings, failedJob, errno, waitErr)
		res.Err = msg
		return res, fmt.Errorf("fio job %s failed: %s", r.params.Job.Name, msg)
	}
	res.Ops = ops
	if len(last) == 0 {
		res.Err = "fio printed no results"
		return res, fmt.Errorf("fio job %s printed no results", r.params.Job.Name)
	}
	return res, nil
}

// deltas turns two cumulative samples into one interval per direction.
func deltas(prev, cur []record.Count, fromNs, toNs int64) []record.Second {
	var out []record.Second
	for _, c := range cur {
		var p record.Count
		for _, x := range prev {
			if x.Op == c.Op {
				p = x
			}
		}
		if c.Ops > p.Ops {
			out = append(out, record.Second{StartNs: fromNs, EndNs: toNs, Op: c.Op,
				Ops: c.Ops - p.Ops, Bytes: c.Bytes - p.Bytes})
		}
	}
	return out
}

// Cleanup removes the phase directory with fio's files, unless Keep.
func (r *prepared) Cleanup(ctx context.Context) error {
	if r.env.Keep {
		return nil
	}
	return r.ws.Remove()
}

// fioMessage picks fio's own words out of its stderr: the lines that say what
// went wrong, joined on one line.
func fioMessage(stderr string, err error) string {
	if m := errorLines(strings.Split(stderr, "\n")); m != "" {
		return m
	}
	if s := strings.TrimSpace(stderr); s != "" {
		return firstLine(s)
	}
	return err.Error()
}

// failure says why a fio run failed, in fio's words: its error lines from
// stderr and from stdout (where fio's job processes print theirs, among the
// JSON), and the errno of the first failed job from the JSON when those lines
// do not already say it. err (fio's exit status) is the last resort.
func failure(stderr string, stdoutOther []string, job string, errno int, err error) string {
	msg := errorLines(append(strings.Split(stderr, "\n"), stdoutOther...))
	if errno != 0 {
		reason := syscall.Errno(errno).Error()
		switch {
		case msg == "":
			msg = reason
		case !strings.Contains(strings.ToLower(msg), strings.ToLower(reason)):
			msg += "; " + reason
		}
		msg = "job " + job + ": " + msg
	}
	if msg == "" {
		if s := strings.TrimSpace(stderr); s != "" {
			return firstLine(s)
		}
		if err == nil {
			return "fio reported an error"
		}
		return err.Error()
	}
	return msg
}

// pidLine is fio's per-process error line: "fio: pid=123, err=28/file:
// filesetup.c:240, func=write, error=No space left on device".
var pidLine = regexp.MustCompile(`^fio: pid=\d+, err=\d+/[^,]*, func=([^,]*), error=(.*)$`)

// errorLines joins, on one line, up to three distinct lines of fio's that
// say what went wrong, each without the "fio: " prefix, a per-process error
// line shortened to "func: error".
func errorLines(lines []string) string {
	var picked []string
	seen := map[string]bool{}
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if m := pidLine.FindStringSubmatch(l); m != nil {
			l = m[1] + ": " + m[2]
		} else if !strings.Contains(l, "fio:") && !strings.HasPrefix(l, "verify:") && !strings.Contains(strings.ToLower(l), "error") && !strings.Contains(l, "bad option") {
			continue
		}
		l = strings.TrimPrefix(l, "fio: ")
		if l == "" || seen[l] {
			continue
		}
		seen[l] = true
		picked = append(picked, l)
		if len(picked) == 3 {
			break
		}
	}
	return strings.Join(picked, "; ")
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

type limitWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// CheckPhase runs the safety check a controller can make before any agent
// starts work; each agent checks again with its own --allow-exec.
func CheckPhase(p engine.Phase, allowExec bool) error {
	ps, jf, err := decode(p)
	if err != nil {
		return err
	}
	jf.Apply(ps.Overrides)
	return jf.CheckSafe(ps.Job.Name, allowExec)
}
