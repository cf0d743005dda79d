package md

import (
	"bytes"
	"fmt"
	"math/bits"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"

	"github.com/storbench/storbench/internal/record"
)

// slowCall is the latency (ns) above which a metadata call counts as slow. A
// worker whose calls are often slow stops using raw system calls: such a file
// system gains nothing from them, and a raw call that blocks holds a P. A few
// slow calls are the scheduler's doing (a busy CPU), not the file system's.
const slowCall = 1_000_000

// slowCall counts a slow call and leaves raw mode when more than 1% of this
// stage's calls (and at least 16) were slow.
func (w *worker) slowCall() {
	w.slow++
	if w.slow >= 16 && w.slow*100 > w.items {
		w.raw = false
	}
}

// nameLen holds the longest item name: "r.1023." plus 10 digits and a NUL.
const nameLen = 48

// worker runs one share of every stage. Everything the hot loop touches is
// allocated once, here.
type worker struct {
	r      *run
	id     int
	rec    *record.Recorder
	recIdx [numOps]int // recorder index of each operation, -1 if not run
	seed   uint64
	// raw makes metadata calls skip the scheduler (see sys_linux.go); it is
	// turned off for good when calls are often slow (see slowCall).
	raw  bool
	slow int64 // slow calls in this stage

	// g is the worker's global rank; tgt are the items it works on, by
	// shift class (shiftOf): its own (which it creates), and after the
	// creates its own or, with a stride, another rank's. own is
	// &tgt[shiftOwn].
	g   int
	tgt [numShifts]items
	own *items
	// ownsTree: the worker makes and removes a tree (its own, or the one
	// shared tree as rank 0).
	ownsTree bool
	// find checks the directories d, or the entries of hash d, with d mod
	// findSpace == findRank.
	findRank, findSpace int

	name, name2 [nameLen]byte
	// full and full2 hold the whole paths of name and name2 with
	// FullPaths (sizeFullNames).
	full, full2 []byte
	st          syscall.Stat_t
	buf         []byte   // write_bytes / read_bytes data: byte(j) at j
	got         []byte   // with Verify: what file-read read, to check
	dents       [][]byte // find's directory entries, per depth of its walk
	path        []byte   // find's directory path
	findT0      int64    // find's last clock reading (mono)

	// treeMade is how many directories of its tree the worker made this
	// iteration.
	treeMade int64

	// Per stage, read by the barrier action: items done, how many
	// succeeded in a row from the first (what exists after a create: those
	// before a stonewall or an error), when this worker finished (mono),
	// and the kind of its first error ("ENOSPC").
	items int64
	done  int64
	endM  int64
	err   string
	// errItem is the item of the first error (its name in its tree).
	errItem string
	found   uint64 // entries find matched
	listed  uint64 // entries find read from directories, its own or not

	// late is how late (ns) this worker began a stage after the hosts'
	// common start, at worst.
	late int64

	// cpu is this worker's thread CPU time (ns) in each operation, all
	// iterations together: the client's cost per operation.
	cpu [numOps]int64

	// state is running until the worker, having seen the stop, claims its
	// way out (leaving), or Run gives up on it while it is stuck in a
	// system call (abandoned). exited closes when main returns.
	state  atomic.Int32
	exited chan struct{}
	// waiting is set while the worker waits at the barrier.
	waiting atomic.Bool
}

// Worker states (worker.state).
const (
	running int32 = iota
	leaving
	abandoned
)

// claim is called after a system call once the run is stopped: it says
// whether the worker may go on to record and leave, or was abandoned by
// Run (see run.abandon), in which case it must touch nothing.
func (w *worker) claim() bool {
	return w.state.CompareAndSwap(running, leaving) || w.state.Load() == leaving
}

// items names one rank's items: the tree they are in (its root below the
// iteration directory and its slot in run.treeFds) and the prefixes of
// their names ("d.", or "d.<rank>." in the one shared tree).
type items struct {
	rank                    int
	slot                    int
	root                    string
	dirPfx, filePfx, renPfx []byte
	// sparePfx names the spare of the directory rename ("x.d.").
	sparePfx []byte
}

// main runs every stage of every iteration. The goroutine keeps its OS thread
// so the scheduler does not move it between system calls.
func (w *worker) main(gate <-chan struct{}) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	<-gate
	r := w.r
	for iter := 0; iter < r.pr.p.Iterations; iter++ {
		for op := range r.pr.ops {
			w.waiting.Store(true)
			ok := r.bar.wait(func() { r.begin(iter, op) })
			w.waiting.Store(false)
			if !ok || r.aborted {
				return
			}
			if r.pr.env.Barrier != nil {
				w.late = max(w.late, r.waitStart())
			}
			c0 := threadCPU()
			w.stage(r.pr.ops[op])
			if r.stop.Load() && !w.claim() {
				return // abandoned: Run reads this worker's figures now
			}
			w.endM = mono()
			w.cpu[op] += threadCPU() - c0
			w.waiting.Store(true)
			ok = r.bar.wait(r.end)
			w.waiting.Store(false)
			if !ok || r.aborted {
				return
			}
		}
	}
}

// stage runs this worker's share of one operation.
func (w *worker) stage(k opKind) {
	r := w.r
	if w.state.Load() == abandoned {
		return
	}
	n := r.pr.p.Items
	s := &w.tgt[shiftOf(k)]
	t := s.rank
	switch k {
	case opTreeCreate:
		w.treeMade = 0
		if w.ownsTree {
			w.treeOp(opTreeCreate)
		}
	case opTreeRemove:
		if w.ownsTree {
			if !r.pr.makesTree {
				w.treeMade = r.pr.nodes // made whole by an earlier phase
			}
			w.treeOp(opTreeRemove)
		}
	case opDirCreate, opFileCreate:
		w.done = w.eachItem(k, 0, n, false, s, 0, r.deadline)
		if r.deadline != 0 && r.pr.p.wearsOut() {
			w.wearOut(k, s, n)
		}
	case opDirStat:
		w.eachItem(k, 0, r.dirsOf[t], r.pr.p.Random, s, 0, 0)
	case opDirRemove:
		w.eachItem(k, 0, r.dirsOf[t], false, s, 0, 0)
	case opFileStat, opFileRead:
		w.eachItem(k, 0, r.filesOf[t], r.pr.p.Random, s, 0, 0)
	case opDirRename:
		w.renameDirs(r.dirsOf[t], s)
	case opFileRename:
		w.done = w.eachItem(k, 0, r.filesOf[t], false, s, 0, 0)
	case opFileRemove:
		w.eachItem(k, 0, r.filesOf[t], false, s, r.renamedOf[t], 0)
	case opFind:
		w.find()
	}
}

// wearOut is mdtest's stonewall wear-out, inside the create's time: at
// the stonewall the workers of all hosts learn the largest count any of
// them made (run.wearOutTo), and each goes on creating until it has made
// as many, so that every rank ends with the same items, as IO500's
// mdtest writes do.
func (w *worker) wearOut(k opKind, s *items, n int64) {
	r := w.r
	w.waiting.Store(true)
	ok := r.bar.wait(r.wearOutTo)
	w.waiting.Store(false)
	if !ok || r.stop.Load() || w.err != "" {
		return
	}
	if to := min(r.wearTo, n); w.done < to {
		w.done = w.eachItem(k, w.done, to, false, s, 0, 0)
	}
}

// treeOp creates this worker's tree breadth first, or removes what of it was
// created, deepest first.
func (w *worker) treeOp(k opKind) {
	r := w.r
	o := w.rec.Op(w.recIdx[k])
	create := k == opTreeCreate
	// mdtest times one tree, rank 0's: the trees other ranks make (-u)
	// are made and their failures counted, not their times, so the
	// counts (live, per second, summary) and the latencies are one tree's.
	timed := w.g == 0
	var path []byte
	nodes := r.pr.nodes
	if !create {
		nodes = w.treeMade
	}
	for i := int64(0); i < nodes; i++ {
		node := i
		if !create {
			node = nodes - 1 - i
		}
		path = nodePath(path[:0], w.own.root, node, r.pr.p.Branch)
		path = append(path, 0)
		t0 := mono()
		var e syscall.Errno
		if create {
			e = mkdirat(w.raw, r.iterFd, &path[0], 0o755)
		} else {
			e = rmdirAt(w.raw, r.iterFd, &path[0])
		}
		tries := 1
		if e != 0 && !create {
			// Retried inside the removal's time: one directory, one
			// operation, however many tries it took.
			e, tries = w.removeDir(r.iterFd, &path[0], e)
		}
		t1 := mono()
		stopped := r.stop.Load()
		if stopped && !w.claim() {
			return
		}
		if t1-t0 > slowCall {
			w.slowCall()
		}
		if e != 0 {
			w.fail(o, e)
			w.treeErr(path, tries)
			return
		}
		if timed {
			o.Record(t1-t0, 0)
		}
		w.items++
		if create {
			w.treeMade++
		}
		if stopped {
			return
		}
	}
}

// treeErr names, for the error line, the tree directory (path, NUL-
// terminated, below the iteration directory) whose creation or removal
// failed, on which host and rank, after how many tries.
func (w *worker) treeErr(path []byte, tries int) {
	if w.errItem != "" {
		return
	}
	r := w.r
	dir := filepath.Join(r.pr.ws.Path, "it"+strconv.Itoa(r.iter), cName(path))
	w.errItem = fmt.Sprintf("%s (host %s, rank %d", dir, r.pr.env.Host, w.g)
	if tries > 1 {
		w.errItem += fmt.Sprintf(", %d tries", tries)
	}
	w.errItem += ")"
}

// eachItem runs operation k on the first count items of s, in order or in a
// random order, the first renamed of them under their renamed names, and
// returns how many succeeded before it stopped: at the end, at the
// stonewall, when the run is stopped, or at the first error.
//
// It starts at item from (the items before it done already: a wear-out
// after the stonewall goes on from where the worker stopped) and stops
// at deadline (mono(), 0: none).
func (w *worker) eachItem(k opKind, from, count int64, random bool, s *items, renamed, deadline int64) int64 {
	r := w.r
	o := w.rec.Op(w.recIdx[k])
	ps := w.newPass(k, s, renamed)
	var perm permutation
	if random {
		perm = newPermutation(count, w.seed+uint64(r.iter)*31+uint64(k))
	}
	done := from
	// One clock reading per operation: an operation's latency runs from the
	// end of the previous one, so it includes the few tens of nanoseconds of
	// naming and recording between them. A second reading would cost more
	// than that (about 35 ns) on every operation.
	t0 := mono()
	for ; done < count; done++ {
		i := done
		if random {
			i = perm.next()
		}
		moved, e, made := w.item(&ps, i)
		if made && e != 0 {
			// The file exists: later stages must see it.
			done++
		}
		t1 := mono()
		stopped := r.stop.Load()
		if stopped && !w.claim() {
			return done
		}
		if t1-t0 > slowCall {
			w.slowCall()
		}
		if e != 0 {
			w.itemFailed(o, e, s)
			return done
		}
		o.Record(t1-t0, moved)
		t0 = t1
		w.items++
		if stopped || (deadline != 0 && t1 >= deadline) {
			return done + 1
		}
		if r.pr.pausedUntil.Load() != 0 {
			t0 = w.waitPause()
		}
	}
	return done
}

// createFile creates the file p names (below fd), writes wb bytes to it,
// fsyncs it when syncFile and closes it; made says it was created.
func (w *worker) createFile(fd int, p *byte, wb int64, syncFile bool) (moved int64, e syscall.Errno, made bool) {
	f, e := openat(w.raw, fd, p, syscall.O_CREAT|syscall.O_WRONLY|syscall.O_CLOEXEC, 0o644)
	if e != 0 {
		return 0, e, false
	}
	if wb > 0 {
		moved, e = w.write(f, wb)
	}
	if e == 0 && syncFile {
		e = fsyncFd(f)
	}
	if ce := closeFd(w.raw, f); e == 0 {
		e = ce
	}
	return moved, e, true
}

// readFile opens the file p names (below fd), reads rb bytes of it and
// closes it.
func (w *worker) readFile(fd int, p *byte, rb int64) (moved int64, e syscall.Errno) {
	f, e := openat(w.raw, fd, p, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if e != 0 {
		return 0, e
	}
	if rb > 0 {
		moved, e = w.read(f, rb)
	}
	if ce := closeFd(w.raw, f); e == 0 {
		e = ce
	}
	return moved, e
}

// renameDirs renames the first count directories of s in a rotation, as
// mdtest's directory rename does: the first to a spare name, each next
// one to the name of the one before it (into that one's tree directory),
// and the spare to the name of the last one moved. The same names exist
// afterwards, so later operations find every directory; count renames,
// none for fewer than two directories.
func (w *worker) renameDirs(count int64, s *items) {
	if count < 2 {
		return
	}
	r := w.r
	o := w.rec.Op(w.recIdx[opDirRename])
	fds := r.treeFds[s.slot]
	nodes, n := int64(len(fds)), r.pr.p.Items
	t0 := mono()
	for i := int64(0); i < count; i++ {
		var from, to int64 // the tree directories of the two names
		switch i {
		case 0:
			from, to = 0, 0
			setName(&w.name, s.dirPfx, 0)
			setName(&w.name2, s.sparePfx, 0)
		case count - 1:
			from, to = 0, nodeOf(nodes, i-1, n)
			setName(&w.name, s.sparePfx, 0)
			setName(&w.name2, s.dirPfx, i-1)
		default:
			from, to = nodeOf(nodes, i, n), nodeOf(nodes, i-1, n)
			setName(&w.name, s.dirPfx, i)
			setName(&w.name2, s.dirPfx, i-1)
		}
		fromFd, toFd, p, p2 := fds[from], fds[to], &w.name[0], &w.name2[0]
		if r.paths != nil {
			fromFd, toFd = atFdcwd, atFdcwd
			p = fullName(&w.full, r.paths[s.slot][from], &w.name)
			p2 = fullName(&w.full2, r.paths[s.slot][to], &w.name2)
		}
		e := renameat(w.raw, fromFd, p, toFd, p2)
		t1 := mono()
		stopped := r.stop.Load()
		if stopped && !w.claim() {
			return
		}
		if t1-t0 > slowCall {
			w.slowCall()
		}
		if e != 0 {
			w.fail(o, e)
			return
		}
		o.Record(t1-t0, 0)
		t0 = t1
		w.items++
		if stopped {
			return
		}
	}
}

// write writes n bytes of the data pattern to fd: byte x of every file is
// byte(x) (w.buf holds byte(j) at j), whatever the chunks, so that a
// verified read knows what each byte should be.
func (w *worker) write(fd int, n int64) (int64, syscall.Errno) {
	var total int64
	for total < n {
		s := total % 256
		b := w.buf[s:min(int64(len(w.buf)), s+n-total)]
		m, e := writeFd(fd, b)
		if e != 0 {
			return total, e
		}
		total += int64(m)
	}
	return total, 0
}

// errVerify is a verified read that read other bytes than file-create
// wrote, or fewer: no system call returns it.
const errVerify syscall.Errno = 1 << 16

// read reads n bytes of fd. With Verify (w.got set) it reads into w.got
// and checks every byte against the pattern write wrote (mdtest's -X).
func (w *worker) read(fd int, n int64) (int64, syscall.Errno) {
	var total int64
	for total < n {
		var b []byte
		s := total % 256 // where byte(total) is in w.buf
		if w.got == nil {
			b = w.buf[:min(int64(len(w.buf)), n-total)]
		} else {
			b = w.got[:min(int64(len(w.buf))-s, n-total)]
		}
		m, e := readFd(fd, b)
		if e != 0 {
			return total, e
		}
		if m == 0 {
			break // the file is shorter than read_bytes
		}
		if w.got != nil && !bytes.Equal(b[:m], w.buf[s:s+int64(m)]) {
			return total, errVerify
		}
		total += int64(m)
	}
	if w.got != nil && total < n {
		return total, errVerify
	}
	return total, 0
}

// fail counts an error of operation o by its errno name and keeps the first
// kind of this stage for the result's message.
func (w *worker) fail(o *record.OpRecorder, e syscall.Errno) {
	o.RecordError(errnoName(e))
	if w.err == "" {
		w.err = errnoName(e)
	}
}

// cName is the NUL-terminated name in b, as a string (allocates: only on
// an error path).
func cName(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// setName writes prefix, the decimal i and a NUL into buf.
func setName(buf *[nameLen]byte, prefix []byte, i int64) {
	n := copy(buf[:], prefix)
	var tmp [20]byte
	j := len(tmp)
	for {
		j--
		tmp[j] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			break
		}
	}
	n += copy(buf[n:], tmp[j:])
	buf[n] = 0
}

// permutation visits 0..n-1 once each in a scrambled order without a table:
// an invertible mix of a counter over the next power of two, skipping values
// at or above n (at most half of them).
type permutation struct {
	n, c, mask uint64
	shift      uint
	a, b, add  uint64
}

func newPermutation(n int64, seed uint64) permutation {
	bitsN := uint(bits.Len64(uint64(max(n-1, 0))))
	p := permutation{n: uint64(n), mask: 1<<bitsN - 1, shift: max(bitsN/2, 1)}
	s := seed*0x9e3779b97f4a7c15 + 1
	p.a = s | 1
	p.b = (s>>17)*0xbf58476d1ce4e5b9 | 1
	p.add = s >> 7
	return p
}

func (p *permutation) next() int64 {
	for {
		x := p.c
		p.c++
		// Each step is a bijection on [0, mask]: multiply by an odd number,
		// add, xor with a right shift.
		x = (x*p.a + p.add) & p.mask
		x ^= x >> p.shift
		x = (x * p.b) & p.mask
		x ^= x >> p.shift
		if x < p.n {
			return int64(x)
		}
	}
}
