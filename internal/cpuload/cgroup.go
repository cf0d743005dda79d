package cpuload

import (
	"os"
	"path"
	"strconv"
	"strings"
)

// cgroupRoot is where the cgroup file systems are mounted.
var cgroupRoot = "/sys/fs/cgroup"

// cpuLimit is the CPU this process may use: the cores its cpuset allows,
// and the quota (in cores' worth, 0 for none) of the tightest cgroup on
// its path, whose usage counter usage is (read at every sample).
type cpuLimit struct {
	cores []int
	quota float64
	// usage is the quota's cgroup's CPU time: cpu.stat (cgroup v2,
	// "usage_usec", microseconds) or cpuacct.usage (v1, nanoseconds).
	usage   *procFile
	usageV2 bool
	// stat is the quota's cgroup's cpu.stat, whose nr_periods and
	// nr_throttled count the quota's periods in which it ran and those in
	// which it ran out of quota (v2: the same file as usage).
	stat *procFile
}

// findLimit reads this process's cgroups (v2, or v1's cpu, cpuacct and
// cpuset hierarchies) once, at a phase's start. ncpu is the host's CPUs,
// the cores when no cpuset says otherwise.
func findLimit(ncpu int) cpuLimit {
	var l cpuLimit
	paths := ownCgroups()
	if _, err := os.Stat(path.Join(cgroupRoot, "cgroup.controllers")); err == nil {
		p := paths[""]
		var at string
		l.quota, at = tightest(p, func(dir string) float64 {
			return quotaV2(path.Join(cgroupRoot, dir, "cpu.max"))
		})
		if l.quota > 0 {
			l.usage, l.usageV2 = openProc(path.Join(cgroupRoot, at, "cpu.stat")), true
			l.stat = openProc(path.Join(cgroupRoot, at, "cpu.stat"))
		}
		l.cores = cpuset(p, func(dir string) string { return path.Join(cgroupRoot, dir, "cpuset.cpus.effective") })
	} else {
		var at string
		l.quota, at = tightest(paths["cpu"], func(dir string) float64 {
			d := path.Join(cgroupRoot, "cpu", dir)
			return quotaV1(path.Join(d, "cpu.cfs_quota_us"), path.Join(d, "cpu.cfs_period_us"))
		})
		if l.quota > 0 {
			// The usage of the quota's cgroup, where cpuacct has the same
			// tree (it is mounted with cpu, or the cgroup was made in both).
			l.usage = openProc(path.Join(cgroupRoot, "cpuacct", at, "cpuacct.usage"))
			l.stat = openProc(path.Join(cgroupRoot, "cpu", at, "cpu.stat"))
		}
		l.cores = cpuset(paths["cpuset"], func(dir string) string {
			return path.Join(cgroupRoot, "cpuset", dir, "cpuset.effective_cpus")
		})
	}
	if len(l.cores) == 0 {
		for i := range ncpu {
			l.cores = append(l.cores, i)
		}
	}
	if l.usage == nil {
		l.quota = 0 // a quota whose usage cannot be read judges nothing
	}
	return l
}

// ownCgroups reads /proc/self/cgroup: each controller's path ("" for
// cgroup v2's one tree).
func ownCgroups() map[string]string {
	out := map[string]string{}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return out
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[1] == "" {
			out[""] = f[2]
		}
		for _, c := range strings.Split(f[1], ",") {
			out[c] = f[2]
		}
	}
	return out
}

// tightest walks from dir up to the root and returns the smallest quota
// (cores' worth) on the way, and where it is; 0 when none.
func tightest(dir string, quota func(string) float64) (float64, string) {
	if dir == "" {
		return 0, ""
	}
	best, at := 0.0, ""
	for d := path.Clean(dir); ; d = path.Dir(d) {
		if q := quota(d); q > 0 && (best == 0 || q < best) {
			best, at = q, d
		}
		if d == "/" || d == "." {
			return best, at
		}
	}
}

// quotaV2 reads cgroup v2's cpu.max: "max 100000" (none) or "QUOTA
// PERIOD" in microseconds.
func quotaV2(file string) float64 {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 || f[0] == "max" {
		return 0
	}
	q, err1 := strconv.ParseFloat(f[0], 64)
	p, err2 := strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0
	}
	return q / p
}

// quotaV1 reads cgroup v1's cpu.cfs_quota_us (-1: none) and
// cpu.cfs_period_us.
func quotaV1(quotaFile, periodFile string) float64 {
	qb, err1 := os.ReadFile(quotaFile)
	pb, err2 := os.ReadFile(periodFile)
	if err1 != nil || err2 != nil {
		return 0
	}
	q, err1 := strconv.ParseFloat(strings.TrimSpace(string(qb)), 64)
	p, err2 := strconv.ParseFloat(strings.TrimSpace(string(pb)), 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0
	}
	return q / p
}

// cpuset reads the effective cpuset of dir's cgroup, or of the nearest
// ancestor that has the file.
func cpuset(dir string, file func(string) string) []int {
	if dir == "" {
		return nil
	}
	for d := path.Clean(dir); ; d = path.Dir(d) {
		if b, err := os.ReadFile(file(d)); err == nil {
			return parseCPUList(strings.TrimSpace(string(b)))
		}
		if d == "/" || d == "." {
			return nil
		}
	}
}

// parseCPUList parses the kernel's CPU lists ("0-3,8,10-11"); nil when
// it is not one.
func parseCPUList(s string) []int {
	var cores []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b-a > 1<<16 {
				return nil
			}
		}
		for c := a; c <= b; c++ {
			cores = append(cores, c)
		}
	}
	return cores
}

// CoreList writes cores as the kernel does, ranges joined: "0-3,8".
func CoreList(cores []int) string {
	var b strings.Builder
	for i := 0; i < len(cores); {
		j := i
		for j+1 < len(cores) && cores[j+1] == cores[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cores[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(cores[j]))
		}
		i = j + 1
	}
	return b.String()
}

// usageNs reads the quota's cgroup's CPU time in nanoseconds.
func (l *cpuLimit) usageNs() (uint64, bool) {
	b := l.usage.read()
	if b == nil {
		return 0, false
	}
	if !l.usageV2 {
		line, _ := nextLine(b)
		return atou(line)
	}
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		name, rest := field(line)
		if string(name) == "usage_usec" { // no allocation: the compiler compares in place
			v, ok := atou(bytesTrim(rest))
			return v * 1000, ok
		}
	}
	return 0, false
}

// throttling reads the quota's cgroup's periods and those throttled.
func (l *cpuLimit) throttling() (periods, throttled uint64, ok bool) {
	b := l.stat.read()
	seen := 0
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		name, rest := field(line)
		switch string(name) {
		case "nr_periods":
			periods, _ = atou(bytesTrim(rest))
			seen++
		case "nr_throttled":
			throttled, _ = atou(bytesTrim(rest))
			seen++
		}
	}
	return periods, throttled, seen == 2
}

func bytesTrim(b []byte) []byte {
	f, _ := field(b)
	return f
}
