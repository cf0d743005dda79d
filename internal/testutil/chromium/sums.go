package chromium

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/results"
)

// SumTolerance is how far a line's sum may be from its count in
// summary.json: 0.5%.
const SumTolerance = 0.005

// Charts over time, by title: what their lines add up to.
var (
	hostBytesRE  = regexp.MustCompile(`^Throughput per host \(MiB/s\)$`)
	totalBytesRE = regexp.MustCompile(`^Throughput, total of \d+ hosts \(MiB/s\)$`)
	hostOpsRE    = regexp.MustCompile(`^Operations per second per host$`)
	totalOpsRE   = regexp.MustCompile(`^Operations per second, total of \d+ hosts$`)
	rateSpreadRE = regexp.MustCompile(`^(.+): (MiB/s|ops/s) per host, median and min-max of \d+ hosts$`)
	latencyRE    = regexp.MustCompile(`^Latency per [^:]+: (.+) \(([^()]+)\)$`)
	latSpreadRE  = regexp.MustCompile(`^(.+): p99 per .+ per host, median and min-max of \d+ hosts$`)
	errorsRE     = regexp.MustCompile(`^Errors per second \(all hosts\)$`)
	// An md phase's charts per operation (report's perPhase): each line
	// is an operation of every host.
	opOpsRE      = regexp.MustCompile(`^Operations per second per operation, (total of \d+ hosts|all hosts)$`)
	opBytesRE    = regexp.MustCompile(`^Throughput per operation, (total of \d+ hosts|all hosts) \(MiB/s\)$`)
	opP99RE      = regexp.MustCompile(`^Latency per [^:]+: p99 per operation \(all hosts\)$`)
	ratesRE      = regexp.MustCompile(`^Rate per operation`)
	percentileRE = regexp.MustCompile(`^Latency by percentile`)
	// The hosts' own CPU, network and disks (issue 42): shares of what
	// each host had, not counts of the phase's work.
	clientRE = regexp.MustCompile(`^Client `)
)

// ChartSums is what the lines of a report's charts over time add up to
// and what summary.json counts for each: a rate line's values times the
// seconds each is over (MiB/s: bytes; ops/s: operations), a latency
// line's requests, the errors per second. Every marker must also be
// drawn where its value is. It returns one line per series checked, for
// the log, and fails t for a sum more than SumTolerance from its count
// and for a chart it does not know (so that no chart goes unread).
func ChartSums(t testing.TB, sum *results.Summary, charts []Chart, phases []string) []string {
	t.Helper()
	var log []string
	for i, c := range charts {
		for _, l := range c.Lines {
			for k, p := range l.Points {
				if at := c.ValueAt(p.Y); !math.IsNaN(p.V) && math.Abs(at-p.V) > 1.5*c.PixelValue(p.V)+1e-9 {
					t.Errorf("%s: %q: line %q, point %d carries %g but is drawn at %g", phases[i], c.Title, l.Name, k, p.V, at)
				}
			}
		}
		if percentileRE.MatchString(c.Title) || ratesRE.MatchString(c.Title) || clientRE.MatchString(c.Title) {
			continue // a distribution, the rates or the client's own figures, not a count over time
		}
		ps := phaseNamed(sum, phases[i])
		if ps == nil {
			t.Errorf("chart %q is in no phase of the summary (%q)", c.Title, phases[i])
			continue
		}
		for _, l := range c.Lines {
			got, want, what, ok := lineSum(t, ps, c.Title, l)
			if !ok {
				continue
			}
			log = append(log, fmt.Sprintf("%s: %s: %s: %s %.0f, summary.json %d", ps.Name, c.Title, l.Name, what, got, want))
			if math.Abs(got-float64(want)) > SumTolerance*math.Max(float64(want), 1) {
				t.Errorf("%s: chart %q, line %q adds up to %.1f %s; summary.json counts %d", ps.Name, c.Title, l.Name, got, what, want)
			}
		}
	}
	return log
}

// lineSum is what line l of the chart titled title adds up to and the
// count it should equal; ok is false for a line that stands for no count
// (a median, a band).
func lineSum(t testing.TB, ps *results.PhaseSummary, title string, l ChartLine) (got float64, want uint64, what string, ok bool) {
	t.Helper()
	rate := func(scale float64) float64 {
		for _, p := range l.Points {
			if math.IsNaN(p.S) {
				t.Errorf("%s: %q: line %q has a point without the seconds it is over", ps.Name, title, l.Name)
				return math.NaN()
			}
			got += p.V * p.S * scale
		}
		return got
	}
	samples := func() float64 {
		for _, p := range l.Points {
			got += p.N
		}
		return got
	}
	switch {
	case opBytesRE.MatchString(title):
		return rate(1 << 20), count(ps, l.Name, "total").Bytes, "bytes", true
	case opOpsRE.MatchString(title):
		return rate(1), count(ps, l.Name, "total").Ops, "operations", true
	case opP99RE.MatchString(title):
		return samples(), count(ps, l.Name, "total").Ops, "requests", true
	case hostBytesRE.MatchString(title), totalBytesRE.MatchString(title):
		op, host := split(ps, l.Name)
		return rate(1 << 20), count(ps, op, host).Bytes, "bytes", true
	case hostOpsRE.MatchString(title), totalOpsRE.MatchString(title):
		op, host := split(ps, l.Name)
		return rate(1), count(ps, op, host).Ops, "operations", true
	case rateSpreadRE.MatchString(title):
		m := rateSpreadRE.FindStringSubmatch(title)
		host, slow := strings.CutPrefix(l.Name, "slow: ")
		if !slow {
			return 0, 0, "", false
		}
		if m[2] == "MiB/s" {
			return rate(1 << 20), count(ps, m[1], host).Bytes, "bytes", true
		}
		return rate(1), count(ps, m[1], host).Ops, "operations", true
	case latencyRE.MatchString(title):
		m := latencyRE.FindStringSubmatch(title)
		host := m[2]
		if host == "all hosts" {
			host = "total"
		}
		return samples(), count(ps, m[1], host).Ops, "requests", true
	case latSpreadRE.MatchString(title):
		host, slow := strings.CutPrefix(l.Name, "slow: ")
		if !slow {
			return 0, 0, "", false
		}
		return samples(), count(ps, latSpreadRE.FindStringSubmatch(title)[1], host).Ops, "requests", true
	case errorsRE.MatchString(title):
		var errs uint64
		for _, o := range ps.Ops {
			errs += o.Errors
		}
		for _, p := range l.Points {
			got += p.V
		}
		return got, errs, "errors", true
	}
	t.Errorf("%s: chart %q is not one the check knows: say what its lines add up to", ps.Name, title)
	return 0, 0, "", false
}

// phaseNamed is the phase of sum named name.
func phaseNamed(sum *results.Summary, name string) *results.PhaseSummary {
	for i := range sum.Phases {
		if sum.Phases[i].Name == name {
			return &sum.Phases[i]
		}
	}
	return nil
}

// split reads a line's name, "<op> <host>" or "<op> total", against the
// phase's operations.
func split(ps *results.PhaseSummary, name string) (op, host string) {
	for _, o := range ps.Ops {
		if h, ok := strings.CutPrefix(name, o.Op+" "); ok {
			return o.Op, h
		}
	}
	return name, ""
}

// count is op's figures on host in summary.json ("total": every host's),
// its entries added (fio without group_reporting lists an operation once
// per job).
func count(ps *results.PhaseSummary, op, host string) results.OpSummary {
	var c results.OpSummary
	add := func(ops []results.OpSummary) {
		for _, o := range ops {
			if o.Op == op {
				c.Ops += o.Ops
				c.Bytes += o.Bytes
				c.Errors += o.Errors
			}
		}
	}
	if host == "total" {
		add(ps.Ops)
		return c
	}
	for _, h := range ps.PerHost {
		if h.Host == host {
			add(h.Ops)
		}
	}
	return c
}
