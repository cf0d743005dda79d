package cpuload

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// SampleEvery is how often a host samples its own CPU, memory, network
// and disks during a phase.
const SampleEvery = time.Second

// rowsAhead is how many samples the series hold before they grow: an
// hour of a phase samples without allocating.
const rowsAhead = 3600

// cpuTimes is one line of /proc/stat, in clock ticks.
type cpuTimes struct {
	user, system, idle, iowait, steal, total uint64
}

func (c cpuTimes) busy() uint64 { return c.total - c.idle - c.iowait - c.steal }

// sampler takes the host's figures every SampleEvery from files it keeps
// open, into series allocated at its start: a sample allocates nothing.
type sampler struct {
	start, prevAt         time.Time
	stat, mem, net, disks *procFile
	lim                   cpuLimit
	// cpu[0] is all CPUs, cpu[1+n] core n; prev is the last sample's.
	cpu, prevCPU []cpuTimes
	prevUsage    uint64
	usageOK      bool
	prevPeriods  uint64 // the quota's periods, and those throttled
	prevThrot    uint64
	throtOK      bool
	ifNames      [][]byte
	linkBps      []float64
	nets, prevNt []uint64 // rx, tx of each interface
	diskNames    [][]byte
	ticks, prevT []uint64 // ms doing I/O, each device
	runq         float64
	memUsed, mc  float64
	memOK        bool
	thr          *threads // the load's threads; nil where not followed

	ts, user, system, iowait, steal, used, throttled, runQ, memUsedS, cacheS []float64
	core, rx, tx, busy                                                       [][]float64
}

// newSampler opens the files and takes the first reading at start.
func newSampler(start time.Time) *sampler {
	s := &sampler{start: start, prevAt: start}
	s.stat, s.mem = openProc("/proc/stat"), openProc("/proc/meminfo")
	s.net, s.disks = openProc("/proc/net/dev"), openProc("/proc/diskstats")
	ncpu := 0
	for line, b := nextLine(s.stat.read()); line != nil || b != nil; line, b = nextLine(b) {
		if n, ok := coreNumber(line); ok && n >= 0 {
			ncpu = max(ncpu, n+1)
		}
	}
	s.lim = findLimit(ncpu)
	s.cpu, s.prevCPU = make([]cpuTimes, 1+ncpu), make([]cpuTimes, 1+ncpu)
	s.ifNames, s.linkBps = interfaces(s.net.read())
	s.nets, s.prevNt = make([]uint64, 2*len(s.ifNames)), make([]uint64, 2*len(s.ifNames))
	for _, e := range dirNames("/sys/block") {
		s.diskNames = append(s.diskNames, []byte(e))
	}
	s.ticks, s.prevT = make([]uint64, len(s.diskNames)), make([]uint64, len(s.diskNames))
	series := func(n int) [][]float64 {
		out := make([][]float64, n)
		for i := range out {
			out[i] = make([]float64, 0, rowsAhead)
		}
		return out
	}
	s.core, s.rx, s.tx, s.busy = series(ncpu), series(len(s.ifNames)), series(len(s.ifNames)), series(len(s.diskNames))
	for _, p := range []*[]float64{&s.ts, &s.user, &s.system, &s.iowait, &s.steal, &s.used, &s.throttled, &s.runQ, &s.memUsedS, &s.cacheS} {
		*p = make([]float64, 0, rowsAhead)
	}
	s.read()
	if s.thr = newThreads(); s.thr != nil {
		s.thr.sample(0)
	}
	s.prevUsage, s.usageOK = s.lim.usageNs()
	s.prevPeriods, s.prevThrot, s.throtOK = s.lim.throttling()
	s.swap()
	return s
}

// interfaces lists /proc/net/dev's interfaces but loopback, with each
// link's speed in bytes per second where /sys tells it (0 where not).
func interfaces(b []byte) (names [][]byte, bps []float64) {
	for line, rest := nextLine(b); line != nil || rest != nil; line, rest = nextLine(rest) {
		name, _, ok := bytes.Cut(line, []byte(":"))
		name = bytes.TrimSpace(name)
		if !ok || len(name) == 0 || string(name) == "lo" || bytes.ContainsAny(name, "|/") {
			continue
		}
		names = append(names, bytes.Clone(name))
		sp := 0.0
		if v, err := os.ReadFile(filepath.Join("/sys/class/net", string(name), "speed")); err == nil {
			if mbps, err := strconv.ParseFloat(strings.TrimSpace(string(v)), 64); err == nil && mbps > 0 {
				sp = mbps * 1e6 / 8
			}
		}
		bps = append(bps, sp)
	}
	return names, bps
}

func dirNames(dir string) []string {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// coreNumber is n for a /proc/stat line "cpuN ...", -1 for "cpu ...".
func coreNumber(line []byte) (int, bool) {
	name, _ := field(line)
	if !bytes.HasPrefix(name, []byte("cpu")) {
		return 0, false
	}
	if len(name) == 3 {
		return -1, true
	}
	n, ok := atou(name[3:])
	return int(n), ok && n < 1<<16
}

// read reads every counter into the current slots.
func (s *sampler) read() {
	var v [8]uint64
	for line, b := nextLine(s.stat.read()); line != nil || b != nil; line, b = nextLine(b) {
		if n, ok := coreNumber(line); ok && n+1 < len(s.cpu) {
			_, rest := field(line)
			if uints(rest, v[:]) == 8 {
				c := &s.cpu[n+1]
				c.user, c.system, c.idle, c.iowait, c.steal = v[0]+v[1], v[2]+v[5]+v[6], v[3], v[4], v[7]
				c.total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7]
			}
		} else if name, rest := field(line); string(name) == "procs_running" {
			r, _ := field(rest)
			n, _ := atou(r)
			s.runq = float64(n)
		}
	}
	s.readMem()
	for line, b := nextLine(s.net.read()); line != nil || b != nil; line, b = nextLine(b) {
		name, rest, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		if i := indexOf(s.ifNames, bytes.TrimSpace(name)); i >= 0 && uints(rest, v[:]) == 8 {
			s.nets[2*i] = v[0]
			var tx [1]uint64
			if uints(rest[fieldEnd(rest, 8):], tx[:]) == 1 {
				s.nets[2*i+1] = tx[0]
			}
		}
	}
	var d [10]uint64
	for line, b := nextLine(s.disks.read()); line != nil || b != nil; line, b = nextLine(b) {
		_, rest := field(line)
		_, rest = field(rest)
		name, rest := field(rest)
		if i := indexOf(s.diskNames, name); i >= 0 && uints(rest, d[:]) == 10 {
			s.ticks[i] = d[9]
		}
	}
}

func (s *sampler) readMem() {
	var total, avail, cached uint64
	var seen int
	for line, b := nextLine(s.mem.read()); line != nil || b != nil; line, b = nextLine(b) {
		name, rest := field(line)
		v, _ := atou(bytesTrim(rest))
		switch string(name) {
		case "MemTotal:":
			total, seen = v, seen+1
		case "MemAvailable:":
			avail, seen = v, seen+1
		case "Cached:":
			cached, seen = v, seen+1
		}
	}
	s.memOK = seen == 3 && total >= avail
	s.memUsed, s.mc = float64(total-avail)*1024, float64(cached)*1024
}

// fieldEnd is the offset in b just past its nth field.
func fieldEnd(b []byte, n int) int {
	off := 0
	for range n {
		f, rest := field(b[off:])
		if len(f) == 0 {
			return len(b)
		}
		off = len(b) - len(rest)
	}
	return off
}

func indexOf(names [][]byte, name []byte) int {
	for i, n := range names {
		if bytes.Equal(n, name) {
			return i
		}
	}
	return -1
}

func (s *sampler) swap() {
	s.cpu, s.prevCPU = s.prevCPU, s.cpu
	s.nets, s.prevNt = s.prevNt, s.nets
	s.ticks, s.prevT = s.prevT, s.ticks
}

// sample takes one sample at now: the figures since the last one.
func (s *sampler) sample(now time.Time) {
	dt := now.Sub(s.prevAt).Seconds()
	if dt <= 0 {
		return
	}
	s.read()
	usage, usageOK := s.lim.usageNs()
	all, pall := s.cpu[0], s.prevCPU[0]
	if all.total <= pall.total {
		return // no CPU time passed (or /proc/stat unread): the next sample spans this one
	}
	tot := float64(all.total - pall.total)
	s.ts = append(s.ts, now.Sub(s.start).Seconds())
	s.user = append(s.user, 100*float64(all.user-pall.user)/tot)
	s.system = append(s.system, 100*float64(all.system-pall.system)/tot)
	s.iowait = append(s.iowait, 100*float64(all.iowait-pall.iowait)/tot)
	s.steal = append(s.steal, 100*float64(all.steal-pall.steal)/tot)
	var busy, total float64
	for n := range s.core {
		c, p := s.cpu[n+1], s.prevCPU[n+1]
		ct := float64(c.total - p.total)
		s.core[n] = append(s.core[n], 100*float64(c.busy()-p.busy())/ct)
		if s.lim.allows(n) {
			busy, total = busy+float64(c.busy()-p.busy()), total+ct
		}
	}
	used := 100 * busy / total
	if s.lim.quota > 0 {
		used = math.NaN()
		if usageOK && s.usageOK && usage >= s.prevUsage {
			used = 100 * float64(usage-s.prevUsage) / (dt * 1e9 * s.lim.quota)
		}
	}
	s.used = append(s.used, used)
	periods, throt, throtOK := s.lim.throttling()
	th := math.NaN()
	if throtOK && s.throtOK && periods >= s.prevPeriods && throt >= s.prevThrot {
		th = 0 // it never ran: never throttled
		if periods > s.prevPeriods {
			th = 100 * float64(throt-s.prevThrot) / float64(periods-s.prevPeriods)
		}
	}
	s.throttled = append(s.throttled, th)
	s.prevPeriods, s.prevThrot, s.throtOK = periods, throt, throtOK
	s.runQ = append(s.runQ, s.runq)
	s.memUsedS, s.cacheS = append(s.memUsedS, s.memUsed), append(s.cacheS, s.mc)
	for i := range s.ifNames {
		s.rx[i] = append(s.rx[i], float64(s.nets[2*i]-s.prevNt[2*i])/dt)
		s.tx[i] = append(s.tx[i], float64(s.nets[2*i+1]-s.prevNt[2*i+1])/dt)
	}
	for i := range s.diskNames {
		s.busy[i] = append(s.busy[i], min(100, float64(s.ticks[i]-s.prevT[i])/(10*dt)))
	}
	if s.thr != nil {
		s.thr.sample(dt)
	}
	s.prevUsage, s.usageOK, s.prevAt = usage, usageOK, now
	s.swap()
}

// allows says whether core n is one the client may use.
func (l *cpuLimit) allows(n int) bool {
	for _, c := range l.cores {
		if c == n {
			return true
		}
	}
	return false
}

func (s *sampler) close() {
	for _, f := range []*procFile{s.stat, s.mem, s.net, s.disks, s.lim.usage, s.lim.stat} {
		f.close()
	}
	if s.thr != nil {
		s.thr.close()
	}
}
