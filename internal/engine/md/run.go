package md

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
)

// base anchors the monotonic clock: mono() reads only the monotonic clock
// (one vDSO call, cheaper than time.Now, which also reads the wall clock).
var base = time.Now()

// liveEvery is how often Run samples counters and sends a live snapshot.
var liveEvery = time.Second

func mono() int64 { return int64(time.Since(base)) }

// wallNs converts a mono() reading to Unix nanoseconds.
func wallNs(m int64) int64 { return base.UnixNano() + m }

// run is one execution of a prepared phase. Workers walk the same sequence of
// stages (each operation of each iteration) and meet at a barrier before and
// after each; the last worker to arrive does the stage's bookkeeping.
//
// On several hosts, the last worker to arrive before a stage also waits at
// the hosts' barrier (engine.Env.Barrier), outside measured time: the stage
// then starts on every host at the common start the barrier gives, and each
// host's iteration window runs from that start to its slowest worker's end,
// so the hosts' windows merge into mdtest's (all items over the time from
// the common start to the slowest end of any host).
type run struct {
	pr      *prepared
	workers []*worker
	bar     barrier
	ctx     context.Context

	stop    atomic.Bool  // set when ctx ends; workers check it between operations
	stage   atomic.Int32 // the opKind running now, for live snapshots
	aborted bool         // set by a barrier action once stop is seen
	// gone is set when Run gave up on workers stuck in the file system
	// (abandon): barrier actions that return from a call then touch
	// nothing.
	gone atomic.Bool
	// stuck describes the workers given up on; "" when none were.
	stuck string

	// Ranks, set before the first stage: this host's workers are the
	// global ranks first to first+len(workers)-1 of total (host order x
	// workers per host, as mpiexec places ranks by slot), and hostFirst[h]
	// is the first rank of host h (engine.Env.Rank), hostFirst[hosts] the
	// total. hostRank is this host's h.
	first, total, hostRank int
	hostFirst              []int
	// shift is -N's shift in ranks (shiftRanks); roots are the trees this
	// host's workers work in, by slot, and slotOf the slot of a rank's
	// tree (-u).
	shift  int
	roots  []string
	slotOf map[int]int

	// Fields below are written only by barrier actions, which run one at a
	// time while every worker waits, and read by workers after the barrier.
	iter     int
	op       int   // index in pr.ops of the stage running or just run
	startM   int64 // mono() at the stage's start
	deadline int64 // mono() after which create stages stop (stonewall); 0: none
	iterFd   int   // the iteration directory
	treeFds  [][]int
	// paths are, with FullPaths, the path of each tree directory, by
	// slot as treeFds (treePaths); nil without.
	paths   [][][]byte
	its     [][]record.Iteration // per op index, per iteration
	errs    []string
	series  []record.Second
	latSecs []record.LatSecond

	// The items of every global rank that exist: directories, files, and
	// how many of those files are renamed (the first ones). A worker with a
	// stride works on another rank's items, so after the creates and the
	// renames every host sends the counts it changed (updated) at the next
	// barrier between hosts, and learns the others'.
	dirsOf, filesOf, renamedOf []int64
	updated                    []int
	// cross counts, per op index, the items this host's workers worked
	// on that another host created; kept when tracksCross.
	cross       []uint64
	tracksCross bool
	// found counts the entries find matched.
	found uint64
	// findNewer is the run's start (Unix ns): find matches files modified
	// after it (-newer), 0 for any.
	findNewer int64
	// wearTo is the count every worker creates up to after the stonewall
	// (the largest any rank made by then), and walls what the ranks of
	// all hosts had made at the stonewall, per op index (wearOutTo).
	wearTo int64
	walls  []stonewallCounts
}

// stonewallCounts are the items per rank at a create's stonewall, of the
// ranks of all hosts, and when the hosts learnt them (ns after the
// create's start), mdtest's "stonewall" figures.
type stonewallCounts struct {
	min, max, sum int64
	atNs          int64
}

// wearOutTo is the barrier action at a create's stonewall: it takes this
// host's workers' counts, exchanges them with the other hosts (inside the
// create's time, as mdtest's MPI_Allreduce is), and sets wearTo to the
// largest count of any rank.
func (r *run) wearOutTo() {
	k := r.pr.ops[r.op]
	c := stonewallCounts{min: math.MaxInt64}
	for _, w := range r.workers {
		c.min, c.max, c.sum = min(c.min, w.done), max(c.max, w.done), c.sum+w.done
	}
	r.wearTo = 0
	if b := r.pr.env.Barrier; b != nil && !r.stop.Load() {
		data := binary.AppendUvarint(binary.AppendUvarint(binary.AppendUvarint(nil, uint64(c.min)), uint64(c.max)), uint64(c.sum))
		rel, err := b.Wait(r.ctx, strconv.Itoa(r.iter)+"/"+k.String()+"-stonewall", data)
		if err != nil {
			if r.ctx.Err() == nil {
				r.addErr(k, fmt.Sprintf("%s: stonewall: %v", k, err))
			}
			return // the next barrier between hosts fails too, and stops the run
		}
		c = stonewallCounts{min: math.MaxInt64}
		for _, a := range rel.Hosts {
			var v [3]uint64
			d, ok := a.Data, !a.Left
			for i := range v {
				n := 0
				if v[i], n = binary.Uvarint(d); n <= 0 {
					ok = false
					break
				}
				d = d[n:]
			}
			if ok {
				c.min, c.max, c.sum = min(c.min, int64(v[0])), max(c.max, int64(v[1])), c.sum+int64(v[2])
			}
		}
	}
	c.atNs = mono() - r.startM
	r.walls[r.op] = c
	r.wearTo = c.max
}

func newRun(pr *prepared) (*run, error) {
	r := &run{pr: pr, iterFd: -1, its: make([][]record.Iteration, len(pr.ops)), cross: make([]uint64, len(pr.ops)),
		findNewer: runStart(pr.env.RunID), walls: make([]stonewallCounts, len(pr.ops))}
	r.bar = barrier{n: pr.workers, release: make(chan struct{}), quit: make(chan struct{})}
	r.tracksCross = pr.p.strided() || pr.shared && pr.env.Barrier != nil
	names := make([]string, len(pr.ops))
	for j, k := range pr.ops {
		names[j] = k.String()
	}
	// Raw system calls keep a P each; only use them when every worker can
	// have one, and where no call can block (sys_linux.go).
	spin := pr.workers <= runtime.GOMAXPROCS(0)
	raw := spin && pr.inMemory
	r.bar.spin = spin
	seed := pr.p.Seed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	finds := slices.Contains(pr.ops, opFind)
	for i := 0; i < pr.workers; i++ {
		w := &worker{r: r, id: i, rec: record.NewRecorder(names, false), raw: raw, seed: uint64(seed) + uint64(i)*0x9e3779b97f4a7c15}
		w.recIdx = [numOps]int{}
		for k := range w.recIdx {
			w.recIdx[k] = -1
		}
		for j, k := range pr.ops {
			w.recIdx[k] = j
		}
		if n := int64(max(pr.p.WriteBytes, pr.p.ReadBytes)); n > 0 {
			w.buf = make([]byte, min(n, 1<<20))
			for j := range w.buf {
				w.buf[j] = byte(j)
			}
			if pr.p.Verify {
				w.got = make([]byte, len(w.buf))
			}
		}
		if finds {
			w.dentsAt(0)
			w.path = make([]byte, 0, 16*(MaxDepth+2))
		}
		r.workers = append(r.workers, w)
	}
	return r, nil
}

// start runs the phase to its end or until ctx is cancelled.
func (r *run) start(ctx context.Context, startAt time.Time, live engine.LiveFunc) {
	r.ctx = ctx
	recs := make([]*record.Recorder, len(r.workers))
	for i, w := range r.workers {
		recs[i] = w.rec
	}
	names := make([]string, len(r.pr.ops))
	for j, k := range r.pr.ops {
		names[j] = k.String()
	}

	gate := make(chan struct{})
	for _, w := range r.workers {
		w.exited = make(chan struct{})
		go func() {
			defer close(w.exited)
			w.main(gate)
		}()
	}
	if live != nil {
		live(engine.Starting(r.pr.env.Host, r.pr.phase, names, 0))
	}
	if err := engine.WaitUntil(ctx, startAt); err != nil {
		r.stop.Store(true)
	}
	if err := r.setRanks(); err != nil {
		if ctx.Err() == nil {
			r.errs = append(r.errs, err.Error())
		}
		r.stop.Store(true)
		r.aborted = true
	}
	startM := mono()
	sampler := record.NewSampler(names, recs, wallNs(startM))
	feed := record.NewLiveFeed(sampler)
	done := make(chan struct{})
	stopped := make(chan struct{}) // closed when the sampler sees ctx end
	var bg sync.WaitGroup
	bg.Add(1)
	go func() {
		defer bg.Done()
		tick := time.NewTicker(liveEvery)
		defer tick.Stop()
		cancelled := ctx.Done()
		for {
			select {
			case <-cancelled:
				r.stop.Store(true)
				close(stopped)
				cancelled = nil // seen; keep sampling until the workers stop
			case <-done:
				return
			case <-r.pr.sampleNow:
				sampler.Sample(wallNs(mono()))
			case <-tick.C:
				now := mono()
				counts := sampler.Sample(wallNs(now))
				if live != nil {
					live(engine.Snapshot{Host: r.pr.env.Host, Phase: r.pr.phase,
						Stage: opKind(r.stage.Load()).String(), Elapsed: time.Duration(now - startM), Ops: counts, Lat: feed.Take()})
				}
			}
		}
	}()
	close(gate)
	r.waitWorkers(stopped)
	close(done)
	bg.Wait()
	sampler.Sample(wallNs(mono()))
	r.series = sampler.Series
	r.latSecs = sampler.LatSeconds()
	r.finish()
}

// stopWait is how long workers have, once the run is stopped, to leave
// the system call they are in. A call on a file system that stopped
// answering (a hung NFS server, a stalled disk) does not return, and the
// scheduler cannot take it back; Run gives up on it after stopWait.
var stopWait = 10 * time.Second

// waitWorkers waits for every worker to end, or, once stopped is closed,
// for stopWait more: then the workers still running are in a system call
// that does not return, and are left there (abandon).
func (r *run) waitWorkers(stopped <-chan struct{}) {
	all := make(chan struct{})
	go func() {
		for _, w := range r.workers {
			<-w.exited
		}
		close(all)
	}()
	select {
	case <-all:
		return
	case <-stopped:
	}
	t := time.NewTimer(stopWait)
	defer t.Stop()
	select {
	case <-all:
	case <-t.C:
		r.abandon()
	}
}

// abandon gives up on the workers stuck in a system call: each one not
// yet on its way out is marked abandoned, so that when (if) its call
// returns it leaves without touching anything Run reads, and the others,
// waiting for it at the barrier, are released. It returns once every
// worker it did not mark has ended.
//
// Workers check the stop between calls, and stopWait passed since it was
// set: a worker not marked here claimed its way out (worker.claim) and
// runs storbench's code, not the kernel's; it ends at once.
func (r *run) abandon() {
	r.gone.Store(true)
	r.bar.abort()
	stuck, given := 0, 0
	for _, w := range r.workers {
		select {
		case <-w.exited:
			continue
		default:
		}
		// Workers waiting at the barrier for a stuck one are given up on
		// too (they leave at once, released by abort), but are not stuck.
		waiting := w.waiting.Load()
		if w.state.CompareAndSwap(running, abandoned) {
			given++
			if !waiting {
				stuck++
			}
		}
	}
	for _, w := range r.workers {
		if w.state.Load() != abandoned {
			<-w.exited
		}
	}
	if given == 0 {
		// Every worker ended after all: nothing is left in a call.
		r.gone.Store(false)
		return
	}
	// What an abandoned worker wrote before the barrier it last passed,
	// and the barrier actions' fields, are read from here on: the barrier's
	// generation orders them before this read. Nothing it wrote after is
	// read (result skips the operation in progress).
	r.bar.gen.Load()
	r.stuck = fmt.Sprintf("%d of %d workers did not return from a file system call within %v of the stop (in %s on %s): the file system does not answer; they are left waiting in the kernel",
		max(stuck, 1), len(r.workers), stopWait, opKind(r.stage.Load()), r.pr.ws.Path)
}

// close releases the directories the run holds open, unless workers were
// abandoned in a call that may still return: they hold these descriptors'
// numbers, and a number closed here could name another file by then.
func (r *run) close() {
	if r.gone.Load() {
		return
	}
	r.closeTrees()
	if r.iterFd >= 0 {
		closeFd(false, r.iterFd)
		r.iterFd = -1
	}
}

func (r *run) closeTrees() {
	for _, fds := range r.treeFds {
		for _, fd := range fds {
			if fd >= 0 {
				closeFd(false, fd)
			}
		}
	}
	r.treeFds, r.paths = nil, nil
}

// begin is the barrier action before a stage: set up what it needs, outside
// its time, and start its clock last.
func (r *run) begin(iter, op int) {
	r.iter, r.op = iter, op
	if r.stop.Load() {
		r.aborted = true
		return
	}
	k := r.pr.ops[op]
	r.stage.Store(int32(k))
	var err error
	later := k == opTreeCreate && r.followsIteration()
	switch {
	case later:
		// opened after the barrier, once the first host has made it
	case k == opTreeCreate:
		_, err = r.openIteration(iter, true)
	case iter == 0 && op == 0:
		// The tree an earlier phase made: every host finished with it
		// before this phase began.
		if _, err = r.openIteration(iter, false); err == nil {
			r.openTrees()
		}
	}
	if k == opTreeRemove {
		r.closeTrees()
	}
	if r.gone.Load() {
		return // Run gave up on this call's return: touch nothing
	}
	if err != nil {
		r.errs = append(r.errs, err.Error())
		r.aborted = true
		return
	}
	for _, w := range r.workers {
		w.items, w.done, w.endM, w.err, w.errItem, w.slow = 0, 0, 0, "", "", 0
	}
	r.startM = mono()
	if b := r.pr.env.Barrier; b != nil {
		rel, err := b.Wait(r.ctx, strconv.Itoa(iter)+"/"+k.String(), r.payload(len(r.errs) > 0))
		if err != nil {
			if r.ctx.Err() == nil {
				r.errs = append(r.errs, fmt.Sprintf("%s: %v", k, err))
			}
			r.aborted = true
			return
		}
		r.merge(rel)
		if later {
			if err := r.awaitIteration(iter); err != nil {
				r.errs = append(r.errs, err.Error())
				r.aborted = true
				return
			}
		}
		// Workers wait for the common start themselves (waitStart), so
		// that waking them is not in the stage's time. A host that gets
		// the release late starts late, and its time still counts from
		// the common start, as a late rank's does in mdtest.
		r.startM = rel.Start.UnixNano() - base.UnixNano()
	}
	r.deadline = 0
	if (k == opDirCreate || k == opFileCreate) && r.pr.p.Stonewall > 0 {
		// From the common start on every host, so that all hosts stop
		// creating at one instant (to the accuracy of their measured
		// clock offsets) and later operations work on what exists.
		r.deadline = r.startM + int64(r.pr.p.Stonewall)
	}
}

// waitStart returns at the stage's start, which the hosts' barrier sets a
// little ahead: a sleep for most of the way, then polling, so that every
// worker is running when it comes. It returns how late (ns) it was called,
// if it was.
func (r *run) waitStart() int64 {
	const poll = 200_000 // ns
	d := r.startM - mono()
	if d < 0 {
		return -d
	}
	if d > poll {
		time.Sleep(time.Duration(d - poll))
	}
	for mono() < r.startM {
		schedYield()
	}
	return 0
}

// end is the barrier action after a stage: the stage ends when the slowest
// worker (or the sync that follows it) finishes.
func (r *run) end() {
	if r.aborted {
		return
	}
	k := r.pr.ops[r.op]
	endM := int64(0)
	var items uint64
	failed, kind, item := 0, "", ""
	for _, w := range r.workers {
		endM = max(endM, w.endM)
		items += uint64(w.items)
		if w.err != "" {
			failed++
			if kind == "" {
				kind, item = w.err, w.errItem
			}
		}
	}
	if failed > 0 {
		on := ""
		if item != "" {
			on = " on " + item
		}
		r.addErr(k, fmt.Sprintf("%s: %s%s; %d of %d workers stopped early, %d items done", k, kind, on, failed, len(r.workers), items))
	}
	stopped := r.stop.Load()
	if r.pr.p.Sync && !stopped {
		syncAll()
		if r.gone.Load() {
			return
		}
		endM = mono()
	}
	if k == opTreeCreate || k == opTreeRemove {
		// mdtest counts one tree, however many trees the ranks make
		// (-u): its directories over the time all ranks took.
		items = min(items, uint64(r.pr.nodes))
	}
	r.its[r.op] = append(r.its[r.op], record.Iteration{Items: items, StartNs: wallNs(r.startM), EndNs: wallNs(endM)})
	if stopped {
		// No stage follows: what would open or remove directories is left
		// to Cleanup, so that a worker that claimed its way out of a
		// stopped run (worker.claim) makes no more file system calls.
		r.aborted = true
		return
	}
	r.count(k)
	switch k {
	case opTreeCreate:
		// The trees of other hosts' workers (the one shared tree, or the
		// trees a stride leads to) exist once every host has finished
		// making its own.
		if !r.treeEnds(k, endM) {
			return
		}
		r.openTrees()
	case opTreeRemove:
		if !r.treeEnds(k, endM) {
			return
		}
		r.closeIteration()
	}
	if r.gone.Load() {
		return
	}
	if r.stop.Load() {
		r.aborted = true
	}
}

// treeEnds meets the other hosts after a tree operation, every host
// bringing its end, so that the first host, which alone reports the tree
// operations (mdtest counts one tree), ends its window when the slowest
// host ended. It returns false when the run stops.
func (r *run) treeEnds(k opKind, endM int64) bool {
	b := r.pr.env.Barrier
	if b == nil {
		return true
	}
	rel, err := b.Wait(r.ctx, strconv.Itoa(r.iter)+"/"+k.String()+"-end", binary.AppendUvarint(nil, uint64(wallNs(endM))))
	if err != nil {
		if r.ctx.Err() == nil {
			r.errs = append(r.errs, fmt.Sprintf("%s: %v", k, err))
		}
		r.aborted = true
		return false
	}
	its := r.its[r.op]
	last := &its[len(its)-1]
	for _, a := range rel.Hosts {
		if end, n := binary.Uvarint(a.Data); !a.Left && n > 0 {
			last.EndNs = max(last.EndNs, int64(end))
		}
	}
	return true
}

// count takes note of what a stage changed: the items each rank holds
// after the creates and renames, for the workers (here and on other hosts)
// that work on them next, and the items worked on that another host
// created.
func (r *run) count(k opKind) {
	for _, w := range r.workers {
		switch k {
		case opDirCreate:
			r.dirsOf[w.g] = w.done
			r.updated = append(r.updated, w.g)
		case opFileCreate:
			r.filesOf[w.g], r.renamedOf[w.g] = w.done, 0
			r.updated = append(r.updated, w.g)
		case opFileRename:
			t := w.tgt[shiftStat].rank
			r.renamedOf[t] = w.done
			r.updated = append(r.updated, t)
		}
		if r.tracksCross && touchesOthers(k) && r.hostOf(w.tgt[shiftOf(k)].rank) != r.hostRank {
			r.cross[r.op] += uint64(w.items)
		}
	}
}

// touchesOthers says whether operation k works on another rank's items
// with a stride: every operation on items after their creation.
func touchesOthers(k opKind) bool {
	switch k {
	case opDirStat, opDirRename, opFileStat, opFileRead, opFileRename, opFileRemove, opDirRemove:
		return true
	}
	return false
}

// addErr keeps the first error message of each operation; later iterations
// usually repeat it.
func (r *run) addErr(k opKind, msg string) {
	for _, e := range r.errs {
		if strings.HasPrefix(e, k.String()+":") {
			return
		}
	}
	r.errs = append(r.errs, msg)
}

// openIteration creates (when create is set) and opens the iteration's
// directory, "it<N>". In a workspace the hosts share, another host may
// have created it first. It returns the failed call's errno with the error.
func (r *run) openIteration(iter int, create bool) (syscall.Errno, error) {
	name := []byte("it" + strconv.Itoa(iter) + "\x00")
	// Through the workspace's checked handle: a level swapped for a
	// link since Prepare fails here, nothing made where it leads.
	wsFd, err := r.pr.ws.Open()
	if err != nil {
		var e syscall.Errno
		if !errors.As(err, &e) {
			e = syscall.ELOOP
		}
		return e, fmt.Errorf("iteration %d: %v", iter, err)
	}
	defer closeFd(false, wsFd)
	if create {
		if e := mkdirat(false, wsFd, &name[0], 0o755); e != 0 && !(e == syscall.EEXIST && r.pr.shared) {
			return e, fmt.Errorf("iteration %d: create %s/%s: %s", iter, r.pr.ws.Path, name[:len(name)-1], errnoName(e))
		}
	}
	fd, e := openat(false, wsFd, &name[0], syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if e != 0 {
		return e, fmt.Errorf("iteration %d: open %s/%s: %s", iter, r.pr.ws.Path, name[:len(name)-1], errnoName(e))
	}
	r.iterFd = fd
	return 0, nil
}

// followsIteration says whether another host makes the iteration
// directories this host works in: in a workspace the hosts share, the first
// host alone makes and removes them. Four GlusterFS clients (replica 2)
// making one directory at the same instant leave it broken for some of
// them: EEXIST then ENOENT on open, or EIO on it and below it for the rest
// of the phase.
func (r *run) followsIteration() bool {
	return r.pr.shared && r.pr.env.Barrier != nil && r.hostRank != 0
}

// awaitIteration opens the iteration directory the first host made before
// the barrier this host has just passed. A client that has not seen it yet
// (ENOENT, ESTALE) is given a bounded number of tries, as removeDir does.
func (r *run) awaitIteration(iter int) error {
	var err error
	for try := 0; try < rmdirTries; try++ {
		if try > 0 {
			time.Sleep(rmdirDelay(try - 1))
		}
		var e syscall.Errno
		if e, err = r.openIteration(iter, false); e != syscall.ENOENT && e != syscall.ESTALE {
			return err
		}
	}
	return fmt.Errorf("%w (%d tries, made by the first host)", err, rmdirTries)
}

// closeIteration closes the iteration's directory and removes it if empty
// (what a failed removal left behind stays for Cleanup). In a workspace
// the hosts share, the first host alone removes it (followsIteration).
func (r *run) closeIteration() {
	if r.iterFd < 0 {
		return
	}
	closeFd(false, r.iterFd)
	r.iterFd = -1
	if r.followsIteration() {
		return
	}
	wsFd, err := r.pr.ws.Open()
	if err != nil {
		return
	}
	unlinkat(false, wsFd, cstr("it"+strconv.Itoa(r.iter)), atRemoveDir)
	closeFd(false, wsFd)
}

// openTrees opens every tree directory the workers work in: their own
// trees (or the one shared tree), and with a stride and a tree per worker
// the trees of the ranks they work on (roots, from setRanks). A directory
// that could not be opened stays -1 and its items fail with EBADF.
func (r *run) openTrees() {
	r.treeFds = make([][]int, len(r.roots))
	var path []byte
	for t, root := range r.roots {
		fds := make([]int, r.pr.nodes)
		for k := range fds {
			path = nodePath(path[:0], root, int64(k), r.pr.p.Branch)
			path = append(path, 0)
			fd, e := openat(false, r.iterFd, &path[0], syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
			if e != 0 {
				fd = -1
			}
			if r.gone.Load() {
				return // what it opened stays open: Run no longer owns it
			}
			fds[k] = fd
		}
		r.treeFds[t] = fds
	}
	if r.pr.p.FullPaths {
		r.paths = make([][][]byte, len(r.roots))
		for t, root := range r.roots {
			r.paths[t] = r.treePaths(root)
		}
		r.sizeFullNames(r.paths)
	}
}

// nodePath appends the path of tree node k below the iteration directory:
// the root, then "t.<n>" for each node on the way down (nodes are numbered
// breadth first, so node k's parent is (k-1)/branch).
func nodePath(buf []byte, root string, k int64, branch int) []byte {
	var chain [MaxDepth + 1]int64
	n := 0
	for k > 0 {
		chain[n] = k
		n++
		k = (k - 1) / int64(branch)
	}
	buf = append(buf, root...)
	for i := n - 1; i >= 0; i-- {
		buf = append(buf, "/t."...)
		buf = strconv.AppendInt(buf, chain[i], 10)
	}
	return buf
}

// appendRoot appends the root of tree t below the iteration directory:
// "w<t>" for the tree of rank t, "shared" for t < 0.
func appendRoot(buf []byte, t int) []byte {
	if t < 0 {
		return append(buf, "shared"...)
	}
	return strconv.AppendInt(append(buf, 'w'), int64(t), 10)
}

func cstr(s string) *byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return &b[0]
}
