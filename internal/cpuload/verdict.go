package cpuload

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/storbench/storbench/internal/model"
)

// The thresholds of the verdicts. A limit is reached when its figure is
// at or above the threshold in at least SaturatedShare of the phase's
// seconds (the median second): a burst is not a limit.
const (
	// SaturatedCPUPct is the share of the CPU the client could use (its
	// cgroup's quota, or its cpuset's cores) that was busy.
	SaturatedCPUPct = 95.0
	// SaturatedShare is the share of the phase's seconds.
	SaturatedShare = 0.5
	// LinkPct is the share of a network link's speed, either way.
	LinkPct = 90.0
	// DiskBusyPct is the share of each second a block device was busy.
	DiskBusyPct = 90.0
	// ThrottledPct is, under a quota, the share of a second's quota
	// periods in which the kernel throttled the cgroup: a second at the
	// quota whatever its usage's figure says. The quota is enforced per
	// period (100 ms as a rule), at its start: a second's usage, taken
	// at times that fall inside periods, is off by up to one period's
	// quota (a tenth at 100 ms), and the kernel's count is not.
	ThrottledPct = 50.0
)

// result is the series taken, rounded, with what moved no bytes or was
// never busy left out; nil when no sample was taken.
func (s *sampler) result() *model.HostSamples {
	if len(s.ts) == 0 {
		return nil
	}
	h := &model.HostSamples{Cores: CoreList(s.lim.cores), StartNs: s.start.UnixNano(),
		TS: round(s.ts, 3), UserPct: round(s.user, 1), SystemPct: round(s.system, 1),
		IowaitPct: round(s.iowait, 1), StealPct: round(s.steal, 1), RunQueue: s.runQ,
	}
	if s.lim.quota > 0 {
		q := s.lim.quota
		h.QuotaCPUs = &q
		if !slices.ContainsFunc(s.throttled, math.IsNaN) {
			h.ThrottledPct = round(s.throttled, 1)
		}
	}
	if !slices.ContainsFunc(s.used, math.IsNaN) {
		h.UsedPct = round(s.used, 1)
	}
	if s.memOK {
		h.MemUsedBytes, h.CacheBytes = s.memUsedS, s.cacheS
	}
	for _, c := range s.core {
		if slices.ContainsFunc(c, math.IsNaN) {
			c = nil // an offline core
		}
		h.CoreBusyPct = append(h.CoreBusyPct, round(c, 1))
	}
	for i, name := range s.ifNames {
		if !slices.ContainsFunc(s.rx[i], positive) && !slices.ContainsFunc(s.tx[i], positive) {
			continue
		}
		n := model.NetSamples{Name: string(name), RxBytesPerS: round(s.rx[i], 0), TxBytesPerS: round(s.tx[i], 0)}
		if s.linkBps[i] > 0 {
			n.LinkBytesPerS = &s.linkBps[i]
		}
		h.Net = append(h.Net, n)
	}
	for i, name := range s.diskNames {
		if slices.ContainsFunc(s.busy[i], positive) {
			h.Disks = append(h.Disks, model.DiskSamples{Name: string(name), BusyPct: round(s.busy[i], 1)})
		}
	}
	if s.thr != nil {
		h.BusiestThread = s.thr.busiest()
	}
	return h
}

func positive(v float64) bool { return v > 0 }

func round(v []float64, places int) []float64 {
	if v == nil {
		return nil
	}
	p := math.Pow(10, float64(places))
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Round(x*p) / p
	}
	return out
}

// secondsAtOrAbove counts v's values at or above t.
func secondsAtOrAbove(v []float64, t float64) int {
	n := 0
	for _, x := range v {
		if x >= t {
			n++
		}
	}
	return n
}

// atLimit counts the seconds at the CPU's limit: busy at or above
// SaturatedCPUPct of it, or under a quota throttled in ThrottledPct of
// its periods.
func atLimit(h *model.HostSamples) int {
	n := 0
	for i, u := range h.UsedPct {
		if u >= SaturatedCPUPct || (i < len(h.ThrottledPct) && h.ThrottledPct[i] >= ThrottledPct) {
			n++
		}
	}
	return n
}

// reached says whether n of all seconds is at least SaturatedShare.
func reached(n, all int) bool { return all > 0 && float64(n) >= SaturatedShare*float64(all) }

// Verdicts judges a host's phase from its samples and its load: whose
// limit its figure may be. None when nothing was sampled.
func Verdicts(c *model.ClientLoad) []model.Verdict {
	h := c.Samples
	var out []model.Verdict
	othersTookIt := false
	// dropped is what the CPU verdict would have said, had other work
	// not taken the cores.
	var dropped []string
	if h != nil && len(h.UsedPct) > 0 {
		n := atLimit(h)
		// Without a quota the cores are the host's: when other work took
		// them (half the host, or half of what was busy), the client was
		// starved or idle, not saturated by its own work.
		// The storage's own server on the host took its share as well.
		taken := 0.0
		if c.OthersPct != nil {
			taken = *c.OthersPct + serversPct(c)
		}
		othersTookIt = h.QuotaCPUs == nil && c.OthersPct != nil &&
			(taken >= StarvedOthersPct || 2*taken >= mean(h.UsedPct))
		if reached(n, len(h.UsedPct)) && othersTookIt {
			dropped = append(dropped, fmt.Sprintf("cores %s %.0f%% busy or more in %d of %d s", h.Cores, SaturatedCPUPct, n, len(h.UsedPct)))
		} else if reached(n, len(h.UsedPct)) {
			text := fmt.Sprintf("client CPU saturated: cores %s %.0f%% busy or more in %d of %d s", h.Cores, SaturatedCPUPct, n, len(h.UsedPct))
			if h.QuotaCPUs != nil {
				text = fmt.Sprintf("client CPU saturated: its cgroup's quota of %.2g CPUs (cores %s) %.0f%% used or more, or throttled in %.0f%% of its periods, in %d of %d s",
					*h.QuotaCPUs, h.Cores, SaturatedCPUPct, ThrottledPct, n, len(h.UsedPct))
			}
			out = append(out, model.Verdict{Kind: model.VerdictCPU, Text: text})
		}
	}
	// A thread ready to run all the time on cores that other work took
	// waited for them: it may be a rate-limited job that fell behind, and
	// the limit is the machine ("client starved"), not the thread.
	if t := hotThread(h); t != "" && othersTookIt {
		dropped = append(dropped, t)
	} else if t != "" {
		// One verdict of a kind: the thread joins the cores' or quota's.
		if i := slices.IndexFunc(out, func(v model.Verdict) bool { return v.Kind == model.VerdictCPU }); i >= 0 {
			out[i].Text += "; " + t
		} else {
			out = append(out, model.Verdict{Kind: model.VerdictCPU, Text: "client CPU saturated: " + t})
		}
	}
	if h != nil {
		out = append(out, linkVerdicts(h)...)
		for _, d := range h.Disks {
			if n := secondsAtOrAbove(d.BusyPct, DiskBusyPct); reached(n, len(d.BusyPct)) {
				out = append(out, model.Verdict{Kind: model.VerdictDisk, Text: fmt.Sprintf(
					"client waited on its own disk: %s busy %.0f%% or more in %d of %d s", d.Name, DiskBusyPct, n, len(d.BusyPct))})
			}
		}
	}
	if c.Starved {
		out = append(out, model.Verdict{Kind: model.VerdictStarved, Text: "client starved: " + c.Why})
	}
	if v, ok := shared(c); ok {
		out = append(out, v)
	} else if len(dropped) > 0 && !c.Starved {
		out = append(out, sharedWithOthers(c, dropped))
	}
	return out
}

// sharedWithOthers is "client shares its CPU with other work": other
// work took half or more of what was busy, so the cores (or a thread's
// core) at their limit were not the client's own limit, yet too little
// of the host to call the client starved (StarvedOthersPct). Said
// rather than nothing: the client wanted more CPU than it was left.
func sharedWithOthers(c *model.ClientLoad, dropped []string) model.Verdict {
	return model.Verdict{Kind: model.VerdictShared, Text: fmt.Sprintf(
		"client shares its CPU with other work: other work took %.0f%% of the host's CPU time, half or more of what was busy, while %s",
		*c.OthersPct, strings.Join(dropped, "; "))}
}

func serversPct(c *model.ClientLoad) float64 {
	sum := 0.0
	for _, s := range c.LocalServers {
		sum += s.CPUPct
	}
	return sum
}

// shared is "client shares its CPU with the local server" where other
// work with the storage's own server on the host took as much of its CPU
// as starves a client (StarvedOthersPct), and other work alone did not:
// the client was not starved by other work, nor had the host to itself.
func shared(c *model.ClientLoad) (model.Verdict, bool) {
	if c.OthersPct == nil || len(c.LocalServers) == 0 || *c.OthersPct >= StarvedOthersPct ||
		*c.OthersPct+serversPct(c) < StarvedOthersPct {
		return model.Verdict{}, false
	}
	var who []string
	for _, s := range c.LocalServers {
		who = append(who, fmt.Sprintf("%s (pid %d) took %.0f%%", s.Process, s.Pid, s.CPUPct))
	}
	return model.Verdict{Kind: model.VerdictShared, Text: fmt.Sprintf(
		"client shares its CPU with the local server: %s of the host's CPU time, other work %.0f%%", strings.Join(who, ", "), *c.OthersPct)}, true
}

// hotThread says which thread of the load kept a core to itself (ran or
// waited to run ThreadBusyPct of the second) in SaturatedShare of the
// phase's seconds, "" when none did: one fio job, one md worker, is the
// limit at one core while the other cores idle.
func hotThread(h *model.HostSamples) string {
	if h == nil || h.BusiestThread == nil || !reached(h.BusiestThread.Seconds, len(h.TS)) {
		return ""
	}
	b := h.BusiestThread
	who := fmt.Sprintf("pid %d", b.Pid)
	if b.Tid != b.Pid {
		who += fmt.Sprintf(", thread %d", b.Tid)
	}
	return fmt.Sprintf("one thread of %s (%s) at 100%% of a core (running or ready to run %.0f%% of the time or more) in %d of %d s",
		b.Process, who, ThreadBusyPct, b.Seconds, len(h.TS))
}

// linkVerdicts names each interface whose busier direction was at
// LinkPct of its link's speed in the median second, saying that share.
func linkVerdicts(h *model.HostSamples) []model.Verdict {
	var out []model.Verdict
	for _, n := range h.Net {
		if n.LinkBytesPerS == nil || len(n.RxBytesPerS) == 0 {
			continue
		}
		pct := make([]float64, len(n.RxBytesPerS))
		for i := range pct {
			pct[i] = 100 * max(n.RxBytesPerS[i], n.TxBytesPerS[i]) / *n.LinkBytesPerS
		}
		slices.Sort(pct)
		// The median second: at or above it in half the seconds.
		med := pct[(len(pct)-1)/2]
		if med >= LinkPct {
			out = append(out, model.Verdict{Kind: model.VerdictNetwork, Text: fmt.Sprintf(
				"client network at %.0f%% of its link: %s (%s)", med, n.Name, linkSpeed(*n.LinkBytesPerS))})
		}
	}
	return out
}

func linkSpeed(bps float64) string {
	if bits := bps * 8; bits >= 1e9 {
		return fmt.Sprintf("%g Gb/s", bits/1e9)
	} else {
		return fmt.Sprintf("%g Mb/s", bits/1e6)
	}
}

func mean(v []float64) float64 {
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}
