package md

import (
	"context"
	"fmt"
	"runtime"
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

	// Fields below are written only by barrier actions, which run one at a
	// time while every worker waits, and read by workers after the barrier.
	iter     int
	op       int   // index in pr.ops of the stage running or just run
	startM   int64 // mono() at the stage's start
	deadline int64 // mono() after which create stages stop (stonewall); 0: none
	iterFd   int   // the iteration directory
	treeFds  [][]int
	its      [][]record.Iteration // per op index, per iteration
	errs     []string
	series   []record.Second
}

// barrier makes n workers wait for each other; the last to arrive runs an
// action before releasing the others.
//
// When every worker has a P of its own (spin), a waiting worker first polls
// for the release, yielding its CPU between polls, for up to spinFor: waking
// a goroutine locked to its thread from a channel goes through the scheduler
// and several futex wake-ups, which on a busy machine can add milliseconds to
// a stage that lasts a few tens of them. mdloop's pthread barrier is one
// futex wake.
type barrier struct {
	mu      sync.Mutex
	n       int
	arrived int
	gen     atomic.Uint64 // incremented at each release
	release chan struct{}
	spin    bool
}

// spinFor bounds how long (ns) a worker polls a barrier before blocking.
const spinFor = 10_000_000

func (b *barrier) wait(action func()) {
	b.mu.Lock()
	g := b.gen.Load()
	b.arrived++
	if b.arrived == b.n {
		action()
		b.arrived = 0
		ch := b.release
		b.release = make(chan struct{})
		b.gen.Add(1)
		b.mu.Unlock()
		close(ch)
		return
	}
	ch := b.release
	b.mu.Unlock()
	if b.spin {
		for deadline := mono() + spinFor; mono() < deadline; {
			if b.gen.Load() != g {
				return
			}
			schedYield()
		}
	}
	<-ch
}

func newRun(pr *prepared) (*run, error) {
	r := &run{pr: pr, iterFd: -1, its: make([][]record.Iteration, len(pr.ops))}
	r.bar = barrier{n: pr.workers, release: make(chan struct{})}
	names := make([]string, len(pr.ops))
	for j, k := range pr.ops {
		names[j] = k.String()
	}
	// Raw system calls keep a P each; only use them when every worker can
	// have one.
	raw := pr.workers <= runtime.GOMAXPROCS(0)
	r.bar.spin = raw
	seed := pr.p.Seed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	for i := 0; i < pr.workers; i++ {
		w := &worker{r: r, id: i, rec: record.NewRecorder(names, false), raw: raw, seed: uint64(seed) + uint64(i)*0x9e3779b97f4a7c15}
		w.recIdx = [numOps]int{}
		for k := range w.recIdx {
			w.recIdx[k] = -1
		}
		for j, k := range pr.ops {
			w.recIdx[k] = j
		}
		tag := ""
		if !pr.p.UniqueDir {
			tag = strconv.Itoa(i) + "."
		}
		w.dirPfx = []byte("d." + tag)
		w.filePfx = []byte("f." + tag)
		w.renPfx = []byte("r." + tag)
		if pr.p.UniqueDir {
			w.tree = i
			w.root = "w" + strconv.Itoa(i)
		} else {
			w.root = "shared"
		}
		if n := int64(max(pr.p.WriteBytes, pr.p.ReadBytes)); n > 0 {
			w.buf = make([]byte, min(n, 1<<20))
			for j := range w.buf {
				w.buf[j] = byte(j)
			}
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
	var wg sync.WaitGroup
	for _, w := range r.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.main(gate)
		}()
	}
	if live != nil {
		live(engine.Starting(r.pr.env.Host, r.pr.phase, names, 0))
	}
	if err := engine.WaitUntil(ctx, startAt); err != nil {
		r.stop.Store(true)
	}
	startM := mono()
	sampler := record.NewSampler(names, recs, wallNs(startM))
	feed := record.NewLiveFeed(sampler)
	done := make(chan struct{})
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
				cancelled = nil // seen; keep sampling until the workers stop
			case <-done:
				return
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
	wg.Wait()
	close(done)
	bg.Wait()
	sampler.Sample(wallNs(mono()))
	r.series = sampler.Series
}

// close releases the directories the run holds open.
func (r *run) close() {
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
	r.treeFds = nil
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
	switch k {
	case opTreeCreate:
		err = r.openIteration(iter)
	case opTreeRemove:
		r.closeTrees()
	}
	if err != nil {
		r.errs = append(r.errs, err.Error())
		r.aborted = true
		return
	}
	for _, w := range r.workers {
		w.items, w.endM, w.err, w.slow = 0, 0, "", 0
	}
	r.startM = mono()
	if b := r.pr.env.Barrier; b != nil {
		rel, err := b.Wait(r.ctx, strconv.Itoa(iter)+"/"+k.String(), nil)
		if err != nil {
			if r.ctx.Err() == nil {
				r.errs = append(r.errs, fmt.Sprintf("%s: %v", k, err))
			}
			r.aborted = true
			return
		}
		// Workers wait for the common start themselves (waitStart), so
		// that waking them is not in the stage's time. A host that gets
		// the release late starts late, and its time still counts from
		// the common start, as a late rank's does in mdtest.
		r.startM = rel.Start.UnixNano() - base.UnixNano()
	}
	r.deadline = 0
	if (k == opDirCreate || k == opFileCreate) && r.pr.p.Stonewall > 0 {
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
	failed, kind := 0, ""
	for _, w := range r.workers {
		endM = max(endM, w.endM)
		items += uint64(w.items)
		if w.err != "" {
			failed++
			if kind == "" {
				kind = w.err
			}
		}
	}
	if failed > 0 {
		r.addErr(k, fmt.Sprintf("%s: %s; %d of %d workers stopped early, %d items done", k, kind, failed, len(r.workers), items))
	}
	if r.pr.p.Sync {
		if e := syncFS(r.iterFd); e != 0 {
			r.addErr(k, fmt.Sprintf("%s: syncfs: %s", k, errnoName(e)))
		}
		endM = mono()
	}
	r.its[r.op] = append(r.its[r.op], record.Iteration{Items: items, StartNs: wallNs(r.startM), EndNs: wallNs(endM)})
	switch k {
	case opTreeCreate:
		r.openTrees()
	case opTreeRemove:
		r.closeIteration()
	}
	if r.stop.Load() {
		r.aborted = true
	}
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

// openIteration creates and opens the iteration's directory, "it<N>".
func (r *run) openIteration(iter int) error {
	name := []byte("it" + strconv.Itoa(iter) + "\x00")
	wsFd, e := openat(false, atFdcwd, cstr(r.pr.ws.Path), syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if e != 0 {
		return fmt.Errorf("open %s: %v", r.pr.ws.Path, e)
	}
	defer closeFd(false, wsFd)
	if e := mkdirat(false, wsFd, &name[0], 0o755); e != 0 {
		return fmt.Errorf("iteration %d: create %s/%s: %s", iter, r.pr.ws.Path, name[:len(name)-1], errnoName(e))
	}
	fd, e := openat(false, wsFd, &name[0], syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if e != 0 {
		return fmt.Errorf("iteration %d: open %s/%s: %s", iter, r.pr.ws.Path, name[:len(name)-1], errnoName(e))
	}
	r.iterFd = fd
	return nil
}

// closeIteration closes the iteration's directory and removes it if empty
// (what a failed removal left behind stays for Cleanup).
func (r *run) closeIteration() {
	if r.iterFd < 0 {
		return
	}
	closeFd(false, r.iterFd)
	r.iterFd = -1
	wsFd, e := openat(false, atFdcwd, cstr(r.pr.ws.Path), syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if e != 0 {
		return
	}
	unlinkat(false, wsFd, cstr("it"+strconv.Itoa(r.iter)), atRemoveDir)
	closeFd(false, wsFd)
}

// openTrees opens every tree directory that tree-create made; a directory
// that could not be created stays -1 and its items fail with EBADF.
func (r *run) openTrees() {
	trees := r.pr.p.trees()
	r.treeFds = make([][]int, trees)
	var path []byte
	for t := range trees {
		fds := make([]int, r.pr.nodes)
		root := r.workers[0].root
		if r.pr.p.UniqueDir {
			root = r.workers[t].root
		}
		for k := range fds {
			path = nodePath(path[:0], root, int64(k), r.pr.p.Branch)
			path = append(path, 0)
			fd, e := openat(false, r.iterFd, &path[0], syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
			if e != 0 {
				fd = -1
			}
			fds[k] = fd
		}
		r.treeFds[t] = fds
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

func cstr(s string) *byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return &b[0]
}
