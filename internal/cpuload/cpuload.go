// Package cpuload measures how much of a host's CPU was left to storbench
// while a phase ran, so that a phase whose client was starved says so: the
// figures of a client whose CPU other work took are the client's, not the
// storage's. It reads the kernel's counters (/proc/stat, /proc/loadavg,
// the process table) at the run's start and end and keeps a timer of its
// own that fires every 100 ms, whose lateness is the scheduling delay
// storbench itself saw. What it cannot read (no /proc) is absent.
package cpuload

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/storbench/storbench/internal/model"
)

// What marks a client as starved over a phase's run. Other work taking
// half the host's CPU leaves the phase at most the other half, whatever
// it needed; steal of a tenth is a host whose hypervisor is overbooked; a
// timer half a second late is a scheduler that kept storbench (and the
// tool it runs) waiting that long.
const (
	StarvedOthersPct = 50.0
	StarvedStealPct  = 10.0
	StarvedLateMs    = 500.0
)

// minTicks is the least CPU time (in the kernel's clock ticks, 10 ms on
// Linux) a run must span for shares of it to be taken: less is too coarse.
const minTicks = 50

// tick is how often the lateness timer fires.
const tick = 100 * time.Millisecond

// Monitor measures one run.
type Monitor struct {
	stop, done chan struct{}
	begun      bool
	first      sample
	late       time.Duration
	// sampling takes the host's own figures every SampleEvery into s.
	sampling bool
	s        *sampler
	// servers are the local servers' pids (localServers), looked for
	// once the load has had a second to connect.
	servers []int
	looked  bool
}

// Start begins measuring at at (at once when it has passed), the run's
// start: the wait before it is not the run's. It samples the host's CPU,
// memory, network and disks every SampleEvery until Stop.
func Start(at time.Time) *Monitor {
	return start(at, true)
}

func start(at time.Time, sampling bool) *Monitor {
	m := &Monitor{stop: make(chan struct{}), done: make(chan struct{}), sampling: sampling}
	go m.watch(at)
	return m
}

func (m *Monitor) watch(at time.Time) {
	defer close(m.done)
	wait := time.NewTimer(time.Until(at))
	defer wait.Stop()
	select {
	case <-m.stop:
		return
	case <-wait.C:
	}
	m.first, m.begun = take(), true
	m.first.at = time.Now()
	if m.sampling {
		m.s = newSampler(time.Now())
	}
	t := time.NewTimer(tick)
	defer t.Stop()
	for {
		t0 := time.Now()
		select {
		case <-m.stop:
			if m.s != nil && time.Since(m.s.prevAt) >= SampleEvery/2 {
				m.s.sample(time.Now()) // the run's last part second
			}
			return
		case <-t.C:
		}
		now := time.Now()
		m.late = max(m.late, now.Sub(t0)-tick)
		if !m.looked && now.Sub(m.first.at) >= time.Second {
			m.servers, m.looked = localServers(func() func(int) bool { return ourPids(procTable()) }), true
		}
		// Sampled on the lateness timer's ticks: one goroutine, one
		// timer; a sample's rates are over its own span.
		if m.s != nil && now.Sub(m.s.prevAt) >= SampleEvery-tick/2 {
			m.s.sample(now)
		}
		t.Reset(tick)
	}
}

// Stop ends the measurement and returns what it saw: nil when the run
// never began (stopped before its start).
func (m *Monitor) Stop() *model.ClientLoad {
	select {
	case <-m.stop:
	default:
		close(m.stop)
	}
	<-m.done
	if !m.begun {
		return nil
	}
	end := take()
	if len(m.servers) == 0 { // a run under a second, or its load had not connected yet
		m.servers = localServers(func() func(int) bool { return ourPids(end.table) })
	}
	c := m.first.to(end, m.late, m.servers)
	if m.s != nil {
		c.Samples = m.s.result()
		m.s.close()
		c.Verdicts = Verdicts(c)
	}
	return c
}

// sample is the kernel's counters at one time. Times are in clock ticks.
type sample struct {
	cpus             int
	busy, steal, all uint64 // the host's CPU time, all CPUs
	statOK           bool
	load             float64 // 1-minute load average
	loadOK           bool
	ours             uint64 // storbench's and its descendants' CPU time
	oursOK           bool
	table            map[int]procCPU // every process
	at               time.Time
}

func take() sample {
	var s sample
	s.busy, s.steal, s.all, s.cpus, s.statOK = readStat()
	s.load, s.loadOK = readLoad()
	s.table = procTable()
	if _, ok := s.table[os.Getpid()]; ok {
		s.ours, s.oursOK = treeCPU(s.table, os.Getpid()), true
	}
	return s
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// comm is process pid's command name ("" once it is gone).
func comm(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return strings.TrimSpace(string(b))
}

// to is the client's load from s to e, with the longest lateness seen.
// The local servers' (servers: their pids) time is theirs, apart from
// other work's.
func (s sample) to(e sample, late time.Duration, servers []int) *model.ClientLoad {
	c := &model.ClientLoad{ClientSummary: model.ClientSummary{CPUs: e.cpus}}
	if e.cpus > 0 && s.loadOK && e.loadOK {
		c.LoadStart, c.LoadEnd = fig(s.load/float64(e.cpus)), fig(e.load/float64(e.cpus))
	}
	if all := e.all - s.all; s.statOK && e.statOK && e.all > s.all && all >= minTicks {
		c.StealPct = fig(100 * float64(e.steal-s.steal) / float64(all))
		if s.oursOK && e.oursOK {
			theirs := 0.0
			for _, pid := range servers {
				t := float64(treeCPU(e.table, pid)) - float64(treeCPU(s.table, pid))
				if _, ok := e.table[pid]; !ok || t < 0 {
					continue // gone before the end, or its pid taken again
				}
				theirs += t
				c.LocalServers = append(c.LocalServers, model.LocalServer{Process: comm(pid), Pid: pid, CPUPct: round1(100 * t / float64(all))})
			}
			// Ours can exceed the host's busy time by a tick or two of
			// rounding: others are then none.
			others := max(float64(e.busy-s.busy)-(float64(e.ours)-float64(s.ours))-theirs, 0)
			c.OthersPct = fig(100 * others / float64(all))
		}
	}
	c.LateMaxMs = fig(float64(late) / float64(time.Millisecond))
	judge(c)
	return c
}

func fig(v float64) *float64 { return &v }

// judge sets Starved and Why from c's figures (and a tool's giving up).
func judge(c *model.ClientLoad) {
	var why []string
	if c.OthersPct != nil && *c.OthersPct >= StarvedOthersPct {
		why = append(why, fmt.Sprintf("other work took %.0f%% of its CPU time", *c.OthersPct))
	}
	if c.StealPct != nil && *c.StealPct >= StarvedStealPct {
		why = append(why, fmt.Sprintf("the hypervisor took %.0f%% (steal)", *c.StealPct))
	}
	if c.LateMaxMs != nil && *c.LateMaxMs >= StarvedLateMs {
		why = append(why, fmt.Sprintf("storbench's timers woke up to %.0f ms late", *c.LateMaxMs))
	}
	if c.Gave != "" {
		why = append(why, c.Gave)
	}
	c.Starved = len(why) > 0
	if !c.Starved {
		c.Why = ""
		return
	}
	c.Why = strings.Join(why, ", ")
	if c.LoadEnd != nil {
		c.Why += fmt.Sprintf(" (load average %.1f per CPU, %d CPUs)", max(*c.LoadEnd, *c.LoadStart), c.CPUs)
	}
}

// GaveUp records on c (made when nil) that the engine's tool gave up
// for want of CPU, saying what it said, and judges c again: the host is
// starved.
func GaveUp(c *model.ClientLoad, said string) *model.ClientLoad {
	if c == nil {
		c = &model.ClientLoad{}
	}
	c.Gave = said
	judge(c)
	c.Verdicts = Verdicts(c)
	return c
}

// Merge keeps what an engine set on its result's client load (a tool
// that gave up) in the measured one, m, and judges it again.
func Merge(m, engine *model.ClientLoad) *model.ClientLoad {
	if engine == nil || engine.Gave == "" {
		return m
	}
	if m == nil {
		return engine
	}
	return GaveUp(m, engine.Gave)
}

// Now is the 1-minute load average per CPU now, and the CPUs: what a
// message about a starved host says. ok is false when they cannot be read.
func Now() (perCPU float64, cpus int, ok bool) {
	_, _, _, cpus, statOK := readStat()
	load, loadOK := readLoad()
	if !statOK || !loadOK || cpus == 0 {
		return 0, 0, false
	}
	return load / float64(cpus), cpus, true
}

// readStat reads the host's CPU time (all CPUs) from /proc/stat: busy is
// user, nice, system, irq and softirq (guest time is in user), all adds
// idle, iowait and steal.
func readStat() (busy, steal, all uint64, cpus int, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, 0, 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		if f[0] != "cpu" {
			cpus++
			continue
		}
		if len(f) < 9 {
			return 0, 0, 0, 0, false
		}
		var v [8]uint64
		for i := range v {
			if v[i], err = strconv.ParseUint(f[i+1], 10, 64); err != nil {
				return 0, 0, 0, 0, false
			}
		}
		user, nice, system, idle, iowait, irq, softirq, st := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
		busy, steal = user+nice+system+irq+softirq, st
		all = busy + idle + iowait + steal
		ok = true
	}
	return busy, steal, all, cpus, ok && cpus > 0
}

// readLoad reads the 1-minute load average.
func readLoad() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return v, err == nil
}

// procCPU is one process of the process table: its parent, and its CPU
// time with its waited-for children's.
type procCPU struct {
	ppid int
	cpu  uint64
}

// procTable reads every process's parent and CPU time; nil without
// /proc. It lists /proc once and reads each /proc/PID/stat into one
// buffer: a glob of /proc/[0-9]*/stat listed every process's directory
// as well, 5-8 ms a table on a host of 100 processes, twice or more a
// phase on every host.
func procTable() map[int]procCPU {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil
	}
	table := make(map[int]procCPU, len(names))
	buf := make([]byte, 4<<10) // a stat line is a few hundred bytes
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue // not a process
		}
		n, ok := readSmall("/proc/"+name+"/stat", buf)
		if !ok {
			continue // gone since the listing
		}
		if ppid, cpu, ok := parseStat(string(buf[:n])); ok {
			table[pid] = procCPU{ppid, cpu}
		}
	}
	if len(table) == 0 {
		return nil
	}
	return table
}

// readSmall reads the start of a /proc file into buf: one open, one read,
// one close.
func readSmall(path string, buf []byte) (int, bool) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	n, err := syscall.Read(fd, buf)
	syscall.Close(fd)
	return n, err == nil && n > 0
}

// treeCPU is the CPU time of process root and everything it started:
// its own (all threads) and its waited-for children's (cutime and
// cstime, which hold theirs in turn), and that of its descendants still
// running, which no one has waited for yet. A descendant reaped between
// two samples moves from the second sum to the first: the difference
// counts its time once.
func treeCPU(table map[int]procCPU, root int) uint64 {
	sum := uint64(0)
	descendants(table, root, func(pid int) { sum += table[pid].cpu })
	return sum
}

// descendants calls fn with root, if in the table, and each of its
// descendants.
func descendants(table map[int]procCPU, root int, fn func(pid int)) {
	if _, ok := table[root]; !ok {
		return
	}
	children := map[int][]int{}
	for pid, p := range table {
		children[p.ppid] = append(children[p.ppid], pid)
	}
	fn(root)
	for next := children[root]; len(next) > 0; {
		pid := next[len(next)-1]
		next = append(next[:len(next)-1], children[pid]...)
		fn(pid)
	}
}

// ourPids says which pids of a process table are this process's or its
// descendants'.
func ourPids(table map[int]procCPU) func(pid int) bool {
	ours := map[int]bool{}
	descendants(table, os.Getpid(), func(pid int) { ours[pid] = true })
	return func(pid int) bool { return ours[pid] }
}

// parseStat reads a /proc/PID/stat line: the parent's pid and the
// process's CPU time with its waited-for children's (utime, stime,
// cutime, cstime). The command's name, in parentheses, may hold spaces
// and parentheses itself: the fields count from the last ')'.
func parseStat(s string) (ppid int, cpu uint64, ok bool) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is the state (field 3), f[1] the ppid (4), f[11..14] utime,
	// stime, cutime and cstime (14-17).
	if len(f) < 15 {
		return 0, 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return 0, 0, false
	}
	for _, x := range f[11:15] {
		v, err := strconv.ParseInt(x, 10, 64) // cutime and cstime are signed
		if err != nil {
			return 0, 0, false
		}
		cpu += uint64(max(v, 0))
	}
	return ppid, cpu, true
}
