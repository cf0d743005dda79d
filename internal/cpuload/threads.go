package cpuload

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"github.com/storbench/storbench/internal/model"
)

// ThreadBusyPct is the share of a second a thread of the load ran or
// waited to run (on a CPU or ready for one, never asleep) for the
// second to count at a whole core: a single-threaded tool (one fio job,
// one md worker) at it is its own limit, whatever the other cores do.
const ThreadBusyPct = 95.0

// task is one thread of the load, with its files kept open.
type task struct {
	proc     *proc
	tid      int
	sched    *os.File // schedstat: ns on a CPU, ns waiting for one
	children *os.File // the processes it started
	prev     uint64
	prevOK   bool
	hot      int // seconds at ThreadBusyPct or more
	seen     uint32
}

// proc is one process of the load: storbench itself, or one it started
// (fio and fio's job processes), with its task directory kept open.
type proc struct {
	pid  int
	name string
	dir  int // fd of /proc/PID/task, -1 once closed
	seen uint32
}

// threads follows every thread of this process and of the processes it
// started, once a sample: how much of the second each ran or waited to
// run. It opens files only for a thread or process it has not seen
// before, so a sample of a steady load allocates nothing.
type threads struct {
	procs []*proc
	tasks map[int]*task // by thread id
	gen   uint32
	dents []byte
	ids   []int // scratch: one directory's thread ids
	kids  []int // scratch: one thread's children
	buf   []byte
	best  model.BusiestThread // of the threads gone, the hottest
}

// newThreads follows this process; nil where the kernel keeps no
// per-thread scheduler figures (/proc/self/schedstat).
func newThreads() *threads {
	if _, err := os.Stat("/proc/self/schedstat"); err != nil {
		return nil
	}
	t := &threads{tasks: map[int]*task{}, dents: make([]byte, 8<<10), buf: make([]byte, 4<<10)}
	if !t.add(os.Getpid()) {
		return nil
	}
	return t
}

// add follows process pid: false when it is gone.
func (t *threads) add(pid int) bool {
	p := "/proc/" + strconv.Itoa(pid)
	fd, err := syscall.Open(p+"/task", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	name, _ := os.ReadFile(p + "/comm")
	t.procs = append(t.procs, &proc{pid: pid, name: string(bytes.TrimSpace(name)), dir: fd})
	return true
}

func (t *threads) following(pid int) bool {
	for _, p := range t.procs {
		if p.pid == pid {
			return true
		}
	}
	return false
}

// sample reads every thread's time over the dt seconds since the last
// sample, and follows the processes they started since.
func (t *threads) sample(dt float64) {
	t.gen++
	hotNs := ThreadBusyPct / 100 * dt * 1e9
	for i := 0; i < len(t.procs); i++ { // grows as children are found
		p := t.procs[i]
		if !t.list(p) {
			continue
		}
		p.seen = t.gen
		for _, tid := range t.ids {
			k := t.tasks[tid]
			if k == nil {
				if k = openTask(p, tid); k == nil {
					continue
				}
				t.tasks[tid] = k
			}
			k.seen = t.gen
			if v, ok := k.readSched(t.buf); ok {
				if k.prevOK && float64(v-k.prev) >= hotNs {
					k.hot++
				}
				k.prev, k.prevOK = v, true
			}
			for _, c := range k.readChildren(t.buf, t.kids[:0]) {
				if !t.following(c) {
					t.add(c)
				}
			}
		}
	}
	t.forget()
}

// list reads p's thread ids into t.ids: false when p is gone.
func (t *threads) list(p *proc) bool {
	t.ids = t.ids[:0]
	if p.dir < 0 {
		return false
	}
	if _, err := syscall.Seek(p.dir, 0, 0); err != nil {
		return false
	}
	for {
		n, err := syscall.Getdents(p.dir, t.dents)
		if err != nil {
			return false
		}
		if n <= 0 {
			return len(t.ids) > 0
		}
		// linux_dirent64: ino (8), off (8), reclen (2), type (1), name.
		for b := t.dents[:n]; len(b) >= 19; {
			rl := int(*(*uint16)(unsafe.Pointer(&b[16])))
			if rl < 19 || rl > len(b) {
				break
			}
			name := b[19:rl]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if v, ok := atou(name); ok {
				t.ids = append(t.ids, int(v))
			}
			b = b[rl:]
		}
	}
}

func openTask(p *proc, tid int) *task {
	dir := "/proc/" + strconv.Itoa(p.pid) + "/task/" + strconv.Itoa(tid)
	f, err := os.Open(dir + "/schedstat")
	if err != nil {
		return nil
	}
	c, _ := os.Open(dir + "/children") // absent without CONFIG_PROC_CHILDREN
	return &task{proc: p, tid: tid, sched: f, children: c}
}

// readSched is the thread's time on a CPU and waiting for one, in ns.
func (k *task) readSched(buf []byte) (uint64, bool) {
	n, _ := k.sched.ReadAt(buf, 0)
	var v [2]uint64
	if n <= 0 || uints(buf[:n], v[:]) != 2 {
		return 0, false
	}
	return v[0] + v[1], true
}

func (k *task) readChildren(buf []byte, out []int) []int {
	if k.children == nil {
		return out
	}
	n, _ := k.children.ReadAt(buf, 0)
	for b := bytes.TrimSpace(buf[:max(n, 0)]); len(b) > 0; {
		var f []byte
		f, b = field(b)
		if v, ok := atou(bytes.TrimSpace(f)); ok {
			out = append(out, int(v))
		}
		if len(f) == 0 {
			break
		}
	}
	return out
}

// forget closes the threads and processes the last sample did not see,
// keeping the hottest thread's figures.
func (t *threads) forget() {
	for tid, k := range t.tasks {
		if k.seen != t.gen {
			t.keep(k)
			k.close()
			delete(t.tasks, tid)
		}
	}
	live := t.procs[:0]
	for _, p := range t.procs {
		if p.seen == t.gen {
			live = append(live, p)
		} else if p.dir >= 0 {
			syscall.Close(p.dir)
			p.dir = -1
		}
	}
	clear(t.procs[len(live):])
	t.procs = live
}

// keep makes k the hottest thread when it is hotter than the one kept.
func (t *threads) keep(k *task) {
	if k.hot > t.best.Seconds {
		t.best = model.BusiestThread{Process: k.proc.name, Pid: k.proc.pid, Tid: k.tid, Seconds: k.hot}
	}
}

func (k *task) close() {
	k.sched.Close()
	if k.children != nil {
		k.children.Close()
	}
}

// busiest is the thread that was at a whole core in the most seconds;
// nil when none was in any.
func (t *threads) busiest() *model.BusiestThread {
	for _, k := range t.tasks {
		t.keep(k)
	}
	if t.best.Seconds == 0 {
		return nil
	}
	b := t.best
	return &b
}

func (t *threads) close() {
	for _, k := range t.tasks {
		k.close()
	}
	for _, p := range t.procs {
		if p.dir >= 0 {
			syscall.Close(p.dir)
		}
	}
	t.tasks, t.procs = nil, nil
}
