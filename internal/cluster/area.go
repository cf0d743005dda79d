package cluster

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
)

// The run's shared area, DIR/storbench/<run id>/shared, is where phases
// that share work across hosts keep it (fio's N-to-1 files, files one host
// writes and another reads back; md's trees). Two steps of the run work
// there besides the phases, both run through the same controller path as
// a phase, as phases of AreaEngine, which every agent has built in:
//
//   - the probe (ProveShared), before any phase: every host writes a file
//     holding a random nonce under the shared area, and every host must
//     read every host's file back through its own mount. Hosts that see
//     another file system at the same path (a local disk mounted where the
//     shared one should be) are named, and the run is refused before any
//     load.
//   - the run-level cleanup (RemoveShared), after the last phase, also
//     after a failure or Ctrl-C: one agent removes the shared area with
//     whatever phases left in it (engine.Plan.SharedDir says who removes what
//     before).

// AreaEngine is the engine name of the shared area's own steps. It is no
// engine a suite can name: every agent runs it built in.
const AreaEngine model.EngineName = "storbench-shared-area"

// areaParams are the parameters of an AreaEngine phase.
type areaParams struct {
	// Op is "pin", "probe", "remove" or "target".
	Op  string `json:"op"`
	Dir string `json:"dir"`
	// Dirs are the target directories a "target" step looks at.
	Dirs []string `json:"dirs,omitempty"`
	// RemoveStale has the "target" step remove what killed runs left
	// in Dirs (findStale).
	RemoveStale bool `json:"remove_stale,omitempty"`
	// Nonce is the probe's random token: the name of its directory and the
	// content of every host's file.
	Nonce string `json:"nonce,omitempty"`
}

const (
	areaPin    = "pin"
	areaTarget = "target"
	// targetsKey is where a host's result of the target step holds its
	// targets, as JSON.
	targetsKey = "targets"
	areaProbe  = "probe"
	areaRemove = "remove"
	// seenKey is where a probing host's result says whose files it read
	// back: ranks, comma-separated.
	seenKey = "shared_area_seen"
)

// areaEngine runs AreaEngine phases.
type areaEngine struct{ engine.Base }

var _ engine.Engine = areaEngine{}

func (areaEngine) Prepare(ctx context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	var ap areaParams
	if err := engine.DecodeStrict(p.Params, &ap); err != nil {
		return nil, fmt.Errorf("shared area: %v", err)
	}
	switch ap.Op {
	case areaRemove:
		return &areaRemoval{env: env, dir: ap.Dir}, nil
	case areaTarget:
		return &areaTargets{env: env, dirs: ap.Dirs, removeStale: ap.RemoveStale}, nil
	case areaPin:
		if err := engine.PinSharedArea(ap.Dir, env.RunID); err != nil {
			return nil, fmt.Errorf("shared area: %w", err)
		}
		pinned(env.RunID, ap.Dir)
		if ap.Nonce != "" {
			if !validNonce(ap.Nonce) {
				return nil, errors.New("shared area: the probe needs a nonce of hex digits")
			}
			// The probe's directory, made by this host alone before
			// the others join it (engine.SharedWorkspaceOf says why).
			p := filepath.Join(engine.SharedArea(ap.Dir, env.RunID), "probe-"+ap.Nonce)
			if err := os.Mkdir(p, 0o755); err != nil {
				return nil, fmt.Errorf("shared area: %w", err)
			}
		}
		return &areaRemoval{env: env}, nil
	case areaProbe:
	default:
		return nil, fmt.Errorf("shared area: unknown step %q", ap.Op)
	}
	if !validNonce(ap.Nonce) {
		return nil, errors.New("shared area: the probe needs a nonce of hex digits")
	}
	ws, err := engine.SharedWorkspace(ap.Dir, env.RunID, "probe-"+ap.Nonce)
	if err != nil {
		return nil, err
	}
	pr := &areaProbing{env: env, ws: ws, nonce: ap.Nonce, file: filepath.Join(ws.Path, strconv.Itoa(env.Rank))}
	if err := writeSynced(pr.file, []byte(ap.Nonce)); err != nil {
		_ = os.Remove(pr.file)
		_ = ws.Leave()
		return nil, fmt.Errorf("shared area: write the probe file %s: %v", pr.file, err)
	}
	return pr, nil
}

// validNonce says n can name the probe's directory: 16 hex digits or more.
func validNonce(n string) bool {
	return len(n) >= 16 && strings.Trim(n, "0123456789abcdef") == ""
}

// writeSynced creates path (it must not exist) holding b, on disk when it
// returns: another client opens it next.
func writeSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// areaProbing is one host's part of the probe: its file is written (every
// host prepared before any runs); Run reads every host's file back.
type areaProbing struct {
	env   engine.Env
	ws    *engine.Workspace
	nonce string
	file  string
}

// Run opens every host's file by name (a lookup through this host's mount,
// never a cached listing) and says whose held the nonce.
func (pr *areaProbing) Run(ctx context.Context, _ time.Time, _ engine.LiveFunc) (*engine.HostResult, error) {
	var seen []string
	for r := 0; r < max(pr.env.Hosts, 1); r++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name := filepath.Join(pr.ws.Path, strconv.Itoa(r))
		b, err := os.ReadFile(name)
		switch {
		case err == nil && bytes.Equal(b, []byte(pr.nonce)):
			seen = append(seen, strconv.Itoa(r))
		case err != nil && !errors.Is(err, os.ErrNotExist):
			// Not an answer about sharing: the file system failed
			// (ESTALE, EIO, a timeout). The run stops on it, as it
			// would on a phase's error, without saying the hosts do
			// not share.
			return nil, fmt.Errorf("shared-area probe: read %s (rank %d's file): %v", name, r, err)
		}
	}
	return &engine.HostResult{Host: pr.env.Host, Meta: map[string]string{seenKey: strings.Join(seen, ",")}}, nil
}

// Cleanup removes this host's file; the last host out removes the probe's
// directory and the run's levels it made (on hosts that do not share the
// directory, each its own).
func (pr *areaProbing) Cleanup(context.Context) error {
	if err := os.Remove(pr.file); err != nil && !errors.Is(err, os.ErrNotExist) {
		return &engine.LeftoverError{Items: []engine.Leftover{{What: "probe file", Where: pr.file, Reason: "cleanup: " + err.Error()}}}
	}
	return pr.ws.Leave()
}

// areaRemoval is the run-level cleanup, on one agent: all is done in
// Cleanup, as any phase's removal is.
type areaRemoval struct {
	env engine.Env
	dir string
}

func (r *areaRemoval) Run(context.Context, time.Time, engine.LiveFunc) (*engine.HostResult, error) {
	return &engine.HostResult{Host: r.env.Host}, nil
}

func (r *areaRemoval) Cleanup(context.Context) error {
	if r.dir == "" {
		return nil // the pin: nothing to remove after it
	}
	unpinned(r.env.RunID)
	return engine.RemoveShared(r.dir, r.env.RunID)
}

// withAgents runs fn with the controller's agents set to agents and no
// progress reports (the shared area's steps are no phase of the run), and
// puts both back.
func (c *Controller) withAgents(agents []Agent, fn func()) {
	saved, progress := c.Agents, c.Progress
	c.Agents, c.Progress = agents, nil
	defer func() { c.Agents, c.Progress = saved, progress }()
	fn()
}

// PinArea makes the run's shared area on dir, with the levels above it,
// from the first agent alone, and pins it there until the run-level
// cleanup (engine.PinSharedArea). A run on several hosts does so for
// every target directory before its first phase, so that no two clients
// of a shared file system create DIR/storbench or its run's level at the
// same instant, nor remove and re-create them between phases: GlusterFS's
// replicated volumes answer concurrent creation of one directory from
// several clients with a lasting EIO on it.
func (c *Controller) PinArea(ctx context.Context, runID, dir string) error {
	return c.pinOn(ctx, runID, dir, c.Agents[0], "")
}

// pinOn pins the shared area on dir from agent a alone, with the probe's
// directory for nonce when it is not empty.
func (c *Controller) pinOn(ctx context.Context, runID, dir string, a Agent, nonce string) (err error) {
	pin, _ := json.Marshal(areaParams{Op: areaPin, Dir: dir, Nonce: nonce})
	c.withAgents([]Agent{a}, func() {
		_, err = c.RunPhase(ctx, runID, false, engine.Phase{Name: "shared-area-create", Engine: AreaEngine, Params: pin})
	})
	return err
}

// NotSharedError is the probe's verdict that some hosts see another file
// system at the run's directory than the others: bad input. Any other
// error of ProveShared is the file system or a host failing.
type NotSharedError struct{ Err error }

func (e *NotSharedError) Error() string { return e.Err.Error() }
func (e *NotSharedError) Unwrap() error { return e.Err }

// ProveShared checks that agents see one file system at dir: the first
// makes the run's shared area, DIR/storbench/<run id>/shared/, and pins it
// there for the phases (engine.PinSharedArea: one host creates it, and
// nothing removes it before the run-level cleanup); then each writes a
// file under it, and each must read every other's back. It returns nil
// when they do; a *NotSharedError naming the hosts that see another file
// system there than the others (the largest group that agrees, or the
// first host's when none is larger); or the error of a host or the file
// system that kept the probe from giving a verdict. The probe's files
// are removed whatever happens, and the shared area too unless it
// returns nil.
func (c *Controller) ProveShared(ctx context.Context, runID, dir string, agents []Agent) (err error) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	nonce := hex.EncodeToString(b[:])
	if err := c.pinOn(ctx, runID, dir, agents[0], nonce); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			c.withAgents(agents[:1], func() { _ = c.RemoveShared(context.WithoutCancel(ctx), runID, dir) })
		}
	}()
	params, _ := json.Marshal(areaParams{Op: areaProbe, Dir: dir, Nonce: nonce})
	var out *Outcome
	c.withAgents(agents, func() {
		out, err = c.RunPhase(ctx, runID, false, engine.Phase{Name: "shared-area-probe", Engine: AreaEngine, Params: params})
	})
	if err != nil {
		return err
	}
	if len(out.Leftovers) > 0 {
		return withLeftovers(errors.New("the shared-area probe could not remove its files"), out.Leftovers)
	}
	if gone := append(append([]string(nil), out.Lost...), out.Stopped...); len(gone) > 0 {
		return fmt.Errorf("%s left during the shared-area probe", strings.Join(gone, ", "))
	}
	names := make([]string, len(agents))
	seen := make([]string, len(agents))
	for i, a := range agents {
		names[i] = a.Name()
		for _, r := range out.Results {
			if r.Host == names[i] {
				seen[i] = r.Meta[seenKey]
			}
		}
	}
	if err := sharedVerdict(dir, runID, names, seen); err != nil {
		return &NotSharedError{Err: err}
	}
	return nil
}

// sharedVerdict judges the probe from what each host (by rank) read back:
// seen[i] lists the ranks whose files host i found. Hosts that agree form
// a group; one group that saw every host's file is one file system.
func sharedVerdict(dir, runID string, names, seen []string) error {
	var all []string
	for r := range names {
		all = append(all, strconv.Itoa(r))
	}
	var groups [][]int
	byKey := map[string]int{}
	for i, s := range seen {
		g, ok := byKey[s]
		if !ok {
			g = len(groups)
			byKey[s] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	if len(groups) == 1 && seen[0] == strings.Join(all, ",") {
		return nil
	}
	// The reference is the largest group; on a tie the first host's.
	ref := 0
	for g := range groups {
		if len(groups[g]) > len(groups[ref]) {
			ref = g
		}
	}
	var others, refs []string
	for g, members := range groups {
		for _, i := range members {
			if g == ref {
				refs = append(refs, names[i])
			} else {
				others = append(others, names[i])
			}
		}
	}
	if len(others) == 0 {
		// One group, yet some files unseen: hosts that all fail to read
		// what some of them wrote (a file system that hides other
		// clients' files for a while, say).
		return fmt.Errorf("%s do not read back each other's probe files under %s: they do not see one file system there", strings.Join(refs, ", "), engine.SharedArea(dir, runID))
	}
	return fmt.Errorf("%s %s another file system at %s than %s (each host wrote a probe file under it and read the others' back); mount the shared file system there on every host",
		strings.Join(others, ", "), verb(len(others)), dir, strings.Join(refs, ", "))
}

func verb(n int) string {
	if n == 1 {
		return "sees"
	}
	return "see"
}

// RemoveShared removes the run's shared area on dir, with whatever phases
// left in it, on the first agent not lost: the run-level cleanup after the
// last phase. It returns what could not be removed.
func (c *Controller) RemoveShared(ctx context.Context, runID, dir string) []engine.Leftover {
	lost := c.Lost()
	var agent Agent
	for _, a := range c.Agents {
		if _, gone := lost[a.Name()]; !gone {
			agent = a
			break
		}
	}
	where := engine.SharedArea(dir, runID)
	if agent == nil {
		return []engine.Leftover{{What: "files and directories", Where: where, Reason: "every host was lost before the run-level cleanup"}}
	}
	params, _ := json.Marshal(areaParams{Op: areaRemove, Dir: dir})
	var out *Outcome
	var err error
	c.withAgents([]Agent{agent}, func() {
		out, err = c.RunPhase(ctx, runID, false, engine.Phase{Name: "shared-area-cleanup", Engine: AreaEngine, Params: params})
	})
	if err != nil {
		base, left := engine.SplitLeftovers(err)
		if len(left) > 0 {
			return engine.Leftovers(agent.Name(), &engine.LeftoverError{Items: left})
		}
		return []engine.Leftover{{Host: agent.Name(), What: "files and directories", Where: where, Reason: "cleanup: " + base.Error()}}
	}
	return out.Leftovers
}

// areaTargets is the target step on one host: what file system each target
// directory is on, seen from this host (its mount namespace, its client),
// and what runs killed earlier left there (findStale).
type areaTargets struct {
	env         engine.Env
	dirs        []string
	removeStale bool
}

func (a *areaTargets) Run(ctx context.Context, _ time.Time, _ engine.LiveFunc) (*engine.HostResult, error) {
	var ts []model.Target
	for _, d := range a.dirs {
		t := model.TargetOf(d)
		t.Host = a.env.Host
		ts = append(ts, t)
	}
	b, err := json.Marshal(ts)
	if err != nil {
		return nil, err
	}
	stale, err := findStale(ctx, a.env, a.dirs, a.removeStale)
	if err != nil {
		return nil, err
	}
	return &engine.HostResult{Host: a.env.Host, Meta: map[string]string{targetsKey: string(b), staleKey: stale}}, nil
}

func (a *areaTargets) Cleanup(context.Context) error { return nil }

// Targets asks every agent what file system each of dirs is on where it
// runs (a mount of its own at the same path, another client of a shared
// file system), for run.json: host by host, in the agents' order; and
// what runs killed earlier left in dirs, removed with removeStale
// (stale.go), a run found by several hosts once.
func (c *Controller) Targets(ctx context.Context, runID string, dirs []string, removeStale bool) ([]model.Target, []StaleFind, error) {
	params, _ := json.Marshal(areaParams{Op: areaTarget, Dirs: dirs, RemoveStale: removeStale})
	var out *Outcome
	var err error
	c.withAgents(c.Agents, func() {
		out, err = c.RunPhase(ctx, runID, false, engine.Phase{Name: "targets", Engine: AreaEngine, Params: params})
	})
	if err != nil {
		return nil, nil, err
	}
	var all []model.Target
	var finds staleFinds
	for _, a := range c.Agents {
		for _, r := range out.Results {
			if r.Host != a.Name() {
				continue
			}
			var ts []model.Target
			if err := json.Unmarshal([]byte(r.Meta[targetsKey]), &ts); err != nil {
				return nil, nil, fmt.Errorf("%s's targets: %v", a.Name(), err)
			}
			all = append(all, ts...)
			if err := finds.add(r.Meta[staleKey]); err != nil {
				return nil, nil, fmt.Errorf("%s's stale runs: %v", a.Name(), err)
			}
		}
	}
	return all, finds.all, nil
}
