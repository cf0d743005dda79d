// Package md is storbench's native metadata benchmark, modelled on mdtest:
// workers each create, stat, read, rename and remove directories and files in
// a directory tree, phase by phase, with a barrier between operations so that
// each operation's rate is the items of all workers over the time of the
// slowest, as mdtest computes it. On several hosts the hosts meet at a barrier
// too (engine.Env.Barrier): every operation starts on all of them at one
// instant, and the total is all hosts' items over the time from that instant
// to the slowest host's end.
//
// It calls the *at system calls directly, relative to an open directory, with
// names built in a buffer each worker reuses, so that it measures the file
// system and not itself: on tmpfs it runs at the rate of a C loop doing the
// same calls (bench/md-vs-limit.sh).
package md

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// Engine is the md engine, registered as "md".
type Engine struct{}

var (
	_ engine.Engine   = Engine{}
	_ engine.Prepared = (*prepared)(nil)
)

// opKind is one of the operations, in the order mdtest runs them: every
// directory operation (its directory_test) before the file ones
// (file_test), between the tree's creation and its removal.
type opKind int

const (
	opTreeCreate opKind = iota
	opDirCreate
	opDirStat
	opDirRename
	opDirRemove
	opFileCreate
	opFind
	opFileStat
	opFileRead
	opFileRename
	opFileRemove
	opTreeRemove
	numOps
)

// OpNames are the operations' names in results, in the order they run.
var OpNames = [numOps]string{
	"tree-create", "dir-create", "dir-stat", "dir-rename", "dir-remove", "file-create", "find",
	"file-stat", "file-read", "file-rename", "file-remove", "tree-remove",
}

func (k opKind) String() string { return OpNames[k] }

// isDirOp and isFileOp say whether k works on directories or on files
// (items, not the tree).
func isDirOp(k opKind) bool  { return k >= opDirCreate && k <= opDirRemove }
func isFileOp(k opKind) bool { return k >= opFileCreate && k <= opFileRemove && k != opFind }

// ops returns the operations p runs, in order. The directory rename runs
// by default, as in mdtest 4.x (which skips it for fewer than 2 items), or
// with only: [rename]; the file rename only when asked for.
func (p Params) ops() []opKind {
	var out []opKind
	for k := opTreeCreate; k < numOps; k++ {
		switch {
		case p.FilesOnly && isDirOp(k):
		case p.DirsOnly && isFileOp(k):
		case k == opFileRename && !p.Rename && !slices.Contains(p.Only, "rename"):
		case k == opDirRename && p.Items < 2:
		case k == opFind && !p.finds():
		case !p.only(groupOf(k)):
		default:
			out = append(out, k)
		}
	}
	return out
}

// shared says whether the phase works in the run's shared area, one
// directory for all hosts, rather than in one of this host's own: when all
// hosts' workers share one tree, when a worker works on another host's
// items (-N), and when phases share a tree.
func (p Params) shared(hosts int) bool {
	return p.Tree != "" || hosts > 1 && (!p.UniqueDir || p.strided() || p.finds() && p.FindIn == FindInData)
}

// sharedName is the phase's entry in the shared area: md- and its tree's
// name, or the phase's (engine.SharedArea: entries start with their maker).
func (p Params) sharedName(phase string) string {
	if p.Tree != "" {
		return "md-" + p.Tree
	}
	return "md-" + phase
}

// prepared is a phase whose workspace exists.
type prepared struct {
	p       Params
	env     engine.Env
	phase   string
	ws      *engine.Workspace
	ops     []opKind
	workers int
	nodes   int64 // directories in one tree
	// inMemory says the workspace is on a file system held in memory,
	// where raw system calls are safe (sys_linux.go).
	inMemory bool
	// shared: the workspace is the run's shared area (Params.shared);
	// makesTree: the phase creates its tree (else an earlier phase did);
	// keepsTree: it leaves the tree for a later phase (Tree, no remove).
	shared, makesTree, keepsTree bool
	// failed is set when Run failed on this host or another: the run
	// stops, and no later phase removes a tree this one keeps.
	failed bool
	// pausedUntil, when not 0, holds the workers between items until
	// then (mono ns): a suite event's pause (Pause), which asks through
	// sampleNow for the per-second series to close an interval at its
	// start and its end.
	pausedUntil atomic.Int64
	sampleNow   chan struct{}
}

// checkOpenFiles refuses p, as bad input, when its trees need more open
// directories than this process may hold (RLIMIT_NOFILE): every tree
// directory stays open while items are worked on - this host's own, and
// with a stride and a tree per worker the trees of the workers whose items
// this host's stat, read and remove (up to three others each).
func checkOpenFiles(p Params) error {
	trees := uint64(p.trees())
	if p.UniqueDir && p.strided() {
		trees *= 4
	}
	need := uint64(treeNodes(p.Depth, p.Branch, 1<<40))*trees + uint64(p.workers()) + 64
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil && need > lim.Cur {
		return engine.Unsupported(fmt.Sprintf("the trees need %d open directories, more than the open-file limit of %d: raise ulimit -n (or LimitNOFILE= of the agent's unit), or give a smaller tree (--depth, --branch) or fewer workers", need, lim.Cur))
	}
	return nil
}

// stateFile is the file beside a shared tree's iteration directory that
// says how many items each rank's share of it holds, for the phases that
// come after the one that made it.
const stateFile = "md-state.json"

// Prepare checks the parameters and creates the phase's workspace:
// <dir>/storbench/<run id>/<host>/<phase>, or, when hosts or phases share
// it, <dir>/storbench/<run id>/shared/md-<tree or phase>.
func (Engine) Prepare(ctx context.Context, env engine.Env, ph engine.Phase) (engine.Prepared, error) {
	p, err := phaseParams(ph)
	if err != nil {
		return nil, err
	}
	if !supported {
		return nil, errors.New("the metadata engine runs on Linux (amd64, arm64) only")
	}
	if p.Workers == 0 && env.CPUs > 0 {
		p.Workers = env.CPUs
	}
	pr := &prepared{p: p, env: env, phase: ph.Name, ops: p.ops(), workers: p.workers(),
		nodes: treeNodes(p.Depth, p.Branch, 1<<40), shared: p.shared(env.Hosts), sampleNow: make(chan struct{}, 1)}
	pr.makesTree = slices.Contains(pr.ops, opTreeCreate)
	pr.keepsTree = p.Tree != "" && !slices.Contains(pr.ops, opTreeRemove)
	if err := checkOpenFiles(p); err != nil {
		return nil, err
	}
	var ws *engine.Workspace
	if pr.shared {
		ws, err = engine.SharedWorkspaceOf(p.Dir, env.RunID, p.sharedName(ph.Name), env.Rank)
	} else {
		awaitSamePath(ctx, env, filepath.Join(p.Dir, "storbench", env.RunID, env.Host, ph.Name))
		ws, err = engine.NewWorkspace(p.Dir, env.RunID, env.Host, ph.Name)
	}
	if err != nil {
		return nil, err
	}
	pr.ws = ws
	pr.inMemory = inMemoryFS(ws.Path)
	if p.Tree != "" {
		if made, err := pr.checkTree(); err != nil {
			if !made {
				// The tree was not there: what SharedWorkspace made
				// for it goes. A tree that was there is the earlier
				// phase's, and stays.
				ws.Remove()
			} else {
				ws.Keep()
			}
			return nil, err
		}
	}
	// The hot loop allocates nothing; collect now what setting up the run
	// left, so that no collection (which takes a P from a worker for its
	// marking) starts during the first operations.
	runtime.GC()
	return pr, nil
}

// checkTree refuses, before any load, a phase whose shared tree is not
// where the phase expects it: made already by an earlier phase when this
// one makes it, or not made when this one works on it.
func (pr *prepared) checkTree() (made bool, err error) {
	st, err := readState(pr.ws.Path)
	made = !errors.Is(err, os.ErrNotExist)
	switch {
	case pr.makesTree && made:
		return made, fmt.Errorf("tree %s: an earlier phase of this run made it already; the phase that creates a tree comes first and only once", pr.p.Tree)
	case pr.makesTree:
		return made, nil
	case !made:
		return made, fmt.Errorf("tree %s does not exist: no earlier phase of this run created it (a phase with only: [create] and tree: %s comes first)", pr.p.Tree, pr.p.Tree)
	case err != nil:
		return made, fmt.Errorf("tree %s: %v", pr.p.Tree, err)
	case st.Layout != pr.p.layout():
		return made, fmt.Errorf("tree %s was made with %s; this phase says %s: give the phases that share a tree the same shape", pr.p.Tree, st.Layout, pr.p.layout())
	}
	return made, nil
}

// Cleanup removes the workspace and everything left in it, unless the run
// keeps its files. Entries that were in Dir before the run are never touched.
// A file system that does not answer before ctx ends leaves the workspace,
// reported as left behind.
//
// A workspace the hosts share is removed by one of them, the first host,
// once every host has finished (the controller cleans up after all hosts'
// runs have ended). A tree kept for a later phase stays, unless the phase
// failed: the run then stops, and no later phase would remove it.
func (pr *prepared) Cleanup(ctx context.Context) error {
	return pr.cleanup(ctx, pr.env.Rank == 0)
}

// cleanup is Cleanup, with first saying this host removes a workspace the
// hosts share (a joined one removes the shared directory all the same).
func (pr *prepared) cleanup(ctx context.Context, first bool) error {
	if pr.ws == nil {
		return nil
	}
	if pr.env.Keep || pr.shared && (!first || pr.keepsTree && !pr.failed) {
		pr.ws.Keep()
		return nil
	}
	return pr.ws.RemoveContext(ctx)
}

// Run waits for startAt, runs every iteration and returns what was measured.
// An operation that fails (a full file system, say) ends early on the worker
// that hit it, later operations work on what exists, and Run returns the
// result, with the error counts and Err, and an error. Cancelling ctx stops
// the workers between operations; Run then returns what was measured with
// ctx's error.
func (pr *prepared) Run(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	r, err := newRun(pr)
	if err != nil {
		return nil, err
	}
	defer r.close()
	r.start(ctx, startAt, live)
	res := r.result()
	if r.stuck != "" {
		// The stage in progress has no figure: its stuck workers' items
		// and end are not known.
		res.Err = "interrupted; " + r.stuck
		return res, engine.Interrupted(fmt.Errorf("%w; %s", ctx.Err(), r.stuck))
	}
	if err := ctx.Err(); err != nil && r.aborted {
		return res, engine.Interrupted(err)
	}
	if res.Err != "" {
		// As the fio engine does: the phase failed, and what it measured is
		// in res.
		return res, errors.New(res.Err)
	}
	return res, nil
}

// result builds the host result from the workers' recorders and the
// iterations' windows.
func (r *run) result() *engine.HostResult {
	pr := r.pr
	res := &engine.HostResult{Host: pr.env.Host, Series: r.series, Meta: map[string]string{
		"dir":        pr.ws.Path,
		"workers":    strconv.Itoa(pr.workers),
		"items":      strconv.FormatInt(pr.p.Items, 10),
		"iterations": strconv.Itoa(pr.p.Iterations),
		"depth":      strconv.Itoa(pr.p.Depth),
		"branch":     strconv.Itoa(pr.p.Branch),
		"tree_dirs":  strconv.FormatInt(pr.nodes*int64(pr.p.trees()), 10),
		"unique_dir": strconv.FormatBool(pr.p.UniqueDir),
	}}
	if r.total > 0 {
		// This host's workers' global ranks: host order x workers.
		res.Meta[model.MetaRankFirst] = strconv.Itoa(r.first)
		res.Meta[model.MetaRanks] = strconv.Itoa(len(r.workers))
		res.Meta["ranks_total"] = strconv.Itoa(r.total)
	}
	if pr.p.Stride > 0 {
		res.Meta["stride"] = strconv.Itoa(pr.p.Stride)
		res.Meta["shift_ranks"] = strconv.Itoa(r.shift)
	}
	if pr.p.RankStride > 0 {
		res.Meta["rank_stride"] = strconv.Itoa(pr.p.RankStride)
	}
	if pr.shared {
		res.Meta["shared"] = "true"
	}
	if pr.p.Tree != "" {
		res.Meta["tree"] = pr.p.Tree
	}
	if pr.p.Stonewall > 0 && r.total > 0 {
		r.stonewallMeta(res.Meta)
	}
	for j, k := range pr.ops {
		its := r.its[j]
		if len(its) == 0 || (r.stuck != "" && j == r.op) {
			// Workers left in a call were recording this operation: its
			// earlier iterations cannot be told from the stuck one.
			continue
		}
		if o, ok := r.opResult(res.Meta, j, k); ok {
			res.Ops = append(res.Ops, o)
		}
	}
	if len(r.latSecs) > 0 {
		if b, err := record.EncodeLatSeconds(r.latSecs); err == nil {
			res.LatencySeconds = b
		}
	}
	raw := 0
	for _, w := range r.workers {
		if w.state.Load() != abandoned && w.raw {
			raw++
		}
	}
	res.Meta["raw_syscall_workers"] = strconv.Itoa(raw)
	if j := slices.Index(pr.ops, opFind); j >= 0 {
		r.findMeta(res, j)
	}
	if pr.env.Barrier != nil {
		// How late this host began a stage after the hosts' common start
		// (its time counts from the common start all the same).
		late := int64(0)
		for _, w := range r.workers {
			if w.state.Load() != abandoned {
				late = max(late, w.late)
			}
		}
		res.Meta["barrier_late_max_ns"] = strconv.FormatInt(late, 10)
	}
	if len(r.errs) > 0 {
		res.Err = joinErrs(r.errs)
	}
	return res
}

func joinErrs(errs []string) string {
	s := errs[0]
	for _, e := range errs[1:] {
		s += "; " + e
	}
	return s
}

// stonewallMeta notes the items per rank at the creates' stonewall (the
// last iteration's), as mdtest reports them: min and max, and with the
// wear-out, which the hosts exchanged, their sum and when the stonewall
// was hit (ns after the create's start).
func (r *run) stonewallMeta(meta map[string]string) {
	pr := r.pr
	for _, c := range []struct {
		k    opKind
		of   []int64
		name string
	}{{opDirCreate, r.dirsOf, "dir"}, {opFileCreate, r.filesOf, "file"}} {
		j := slices.Index(pr.ops, c.k)
		if j < 0 {
			continue
		}
		pfx := "stonewall_" + c.name + "_items"
		if pr.p.wearsOut() {
			w := r.walls[j]
			if w.atNs == 0 {
				continue // the stonewall was never reached: the run stopped
			}
			meta[pfx+"_per_rank_min"] = strconv.FormatInt(w.min, 10)
			meta[pfx+"_per_rank_max"] = strconv.FormatInt(w.max, 10)
			meta[pfx+"_sum"] = strconv.FormatInt(w.sum, 10)
			meta["stonewall_"+c.name+"_hit_ns"] = strconv.FormatInt(w.atNs, 10)
			continue
		}
		of := c.of
		if !pr.shared {
			of = of[r.first : r.first+len(r.workers)]
		}
		meta[pfx+"_per_rank_min"] = strconv.FormatInt(slices.Min(of), 10)
		meta[pfx+"_per_rank_max"] = strconv.FormatInt(slices.Max(of), 10)
	}
}

// findMeta notes what find matched and how evenly the workers shared its
// walk (entries checked per worker), and gives the find operation (op
// index j) its found count.
func (r *run) findMeta(res *engine.HostResult, j int) {
	p := r.pr.p
	var found, listed uint64
	lo, hi := uint64(1<<63), uint64(0)
	for _, w := range r.workers {
		found += w.found
		listed += w.listed
		n := w.rec.Stats(j, "find").Ops
		lo, hi = min(lo, n), max(hi, n)
	}
	res.Meta["find_entries_per_worker_min"] = strconv.FormatUint(lo, 10)
	res.Meta["find_entries_per_worker_max"] = strconv.FormatUint(hi, 10)
	// Entries this host's workers read from directories: those they
	// checked and those of directories read to find more directories
	// (dealt to others).
	res.Meta["find_entries_listed"] = strconv.FormatUint(listed, 10)
	for i := range res.Ops {
		if res.Ops[i].Op == "find" {
			res.Ops[i].Found = &found
		}
	}
	res.Meta["find_found"] = strconv.FormatUint(found, 10)
	res.Meta["find_name"] = p.FindName
	res.Meta["find_size"] = strconv.FormatInt(p.findSize(), 10)
	res.Meta["find_in"] = cmp.Or(p.FindIn, FindInTree)
	if r.findNewer != 0 {
		res.Meta["find_newer_than_ns"] = strconv.FormatInt(r.findNewer, 10)
	}
}

// opResult merges the workers' figures of operation k (op index j), with
// its iterations, and notes its CPU cost per operation in meta. It says
// false for a tree operation on a host other than the first.
func (r *run) opResult(meta map[string]string, j int, k opKind) (record.OpStats, bool) {
	its := r.its[j]
	tree := k == opTreeCreate || k == opTreeRemove
	if tree && r.hostRank != 0 {
		// mdtest counts one tree for all ranks; the first host
		// reports it, over all hosts' time (treeEnds). A host that
		// did no tree work has no tree figure, rather than 0.
		return record.OpStats{}, false
	}
	lists := make([][]record.OpStats, len(r.workers))
	for i, w := range r.workers {
		lists[i] = []record.OpStats{w.rec.Stats(j, k.String())}
	}
	o := record.CombineAll(lists...)[0]
	var cpu int64
	for _, w := range r.workers {
		cpu += w.cpu[j]
	}
	if o.Ops > 0 && cpu > 0 {
		meta["cpu_ns_per_op_"+k.String()] = strconv.FormatInt(cpu/int64(o.Ops), 10)
	}
	o.Iterations = its

	o.StartNs, o.EndNs = its[0].StartNs, its[len(its)-1].EndNs
	if r.tracksCross && touchesOthers(k) {
		n := r.cross[j]
		o.CrossHost = &n
	}
	return o, true
}
