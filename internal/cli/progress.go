package cli

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/safetext"
	"github.com/storbench/storbench/internal/units"
)

// progress prints the live line of a running phase: its name, elapsed of
// planned time, and the live rate of each operation across hosts. On a
// terminal it redraws one line; otherwise it prints a plain line every
// plainEvery.
type progress struct {
	st      *State
	mu      sync.Mutex
	phase   engine.Phase
	planned time.Duration
	// prevSnap is each host's snapshot at the last update, and lastSince
	// what it did in the last interval it told (sinceLast).
	prevSnap  map[string]engine.Snapshot
	lastSince map[string]hostSince
	lastOut   time.Time
	drawn     bool
	// phases are the run's phases, in order, and at the index of the one
	// running; rest is what the phases after it are planned to take, and
	// unplanned how many of them run until their work is done (md), whose
	// length storbench does not know in advance.
	phases    []engine.Phase
	at        int
	rest      time.Duration
	unplanned int
	// local says the run's one host is this machine, and runID names the
	// run: a phase's layout is watched here (watchLayout) until
	// layoutStop is closed; layoutDone closes when the watch ended.
	local                  bool
	runID                  string
	layoutStop, layoutDone chan struct{}
}

const plainEvery = 5 * time.Second

// newProgress follows a run of these phases (none: one phase at a time,
// with no run-wide estimate).
func newProgress(st *State, phases []engine.Phase) *progress {
	return &progress{st: st, phases: phases, at: -1}
}

func (p *progress) start(ph engine.Phase) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phase, p.prevSnap, p.lastSince, p.lastOut = ph, nil, nil, time.Now()
	p.planned = p.plannedOf(ph)
	p.rest, p.unplanned = 0, 0
	for i := p.at + 1; i < len(p.phases); i++ {
		if p.phases[i].Name == ph.Name {
			p.at = i
			break
		}
	}
	if p.at < 0 {
		return
	}
	for _, next := range p.phases[p.at+1:] {
		if d := p.plannedOf(next); d > 0 {
			p.rest += d
		} else {
			p.unplanned++
		}
	}
}

// plannedOf is how long a phase is planned to run (its duration), or 0
// when it runs until its work is done.
func (p *progress) plannedOf(ph engine.Phase) time.Duration {
	if d, estimated := p.st.Engines.Planned(ph); !estimated {
		return d
	}
	return 0
}

// eta says how much of the phase and of the run is left, from the plan:
// "at least", as preparing and cleaning up phases adds to it, and naming
// the phases whose length cannot be known before they run.
func (p *progress) eta(planned, elapsed time.Duration) string {
	var parts []string
	left := time.Duration(0)
	known := planned > 0
	if known {
		left = max(planned-elapsed, 0)
		parts = append(parts, round(left).String()+" left")
	} else {
		parts = append(parts, "length unknown until done")
	}
	if len(p.phases) > 1 && p.at >= 0 {
		run := fmt.Sprintf("phase %d of %d, run: at least %s left", p.at+1, len(p.phases), round(left+p.rest))
		u := p.unplanned
		if !known {
			u++ // this one
		}
		switch {
		case u == 1:
			run += " and 1 phase of unknown length"
		case u > 1:
			run += fmt.Sprintf(" and %d phases of unknown length", u)
		}
		parts = append(parts, run)
	}
	return "(" + strings.Join(parts, "; ") + ")"
}

func (p *progress) update(pr cluster.Progress) {
	p.stopLayout()
	if pr.Final {
		return // the phase's results follow; a rate over the last instant is noise
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	total := map[string]record.Count{}
	var order []string
	stage := ""
	planned := p.planned
	var elapsed time.Duration
	for _, h := range pr.Hosts {
		if h.Stage != "" {
			stage = h.Stage
		}
		if h.Planned > planned {
			planned = h.Planned
		}
		elapsed = max(elapsed, h.Elapsed)
		for _, c := range h.Ops {
			t, seen := total[c.Op]
			if !seen {
				order = append(order, c.Op)
			}
			t.Ops += c.Ops
			t.Bytes += c.Bytes
			t.Errors += c.Errors
			total[c.Op] = t
		}
	}
	first := p.prevSnap == nil
	since := p.sinceLast(pr)
	parts := p.opRates(order, total, since)
	if hs := p.hostRates(pr, since, first); hs != "" {
		parts = append(parts, hs)
	}
	if elapsed == 0 {
		elapsed = pr.Elapsed
	}
	elapsed = max(elapsed, 0) // hosts not started yet: no time has passed
	line := fmt.Sprintf("[%s] %s", p.phase.Name, round(elapsed))
	if p.st.TTY && planned > 0 {
		line = fmt.Sprintf("[%s] %s %s", p.phase.Name, bar(elapsed, planned), round(elapsed))
	}
	if planned > 0 {
		line += "/" + round(planned).String()
	}
	line += " " + p.eta(planned, elapsed)
	if stage != "" && stage != "run" {
		line += " " + stage
	}
	if len(parts) > 0 {
		line += "  " + strings.Join(parts, ", ")
	}
	// The phase's, operations' and hosts' names came from a suite and
	// from agents: the line is one line, whatever they hold.
	line = safetext.Escape(line)
	if p.st.TTY {
		p.st.control("\r\033[K")
		fmt.Fprint(p.st.Stdout, line)
		p.drawn = true
		return
	}
	if now.Sub(p.lastOut) >= plainEvery || p.st.Verbosity > 0 {
		fmt.Fprintln(p.st.Stdout, line)
		p.lastOut = now
	}
}

// barWidth is the cells of the progress bar.
const barWidth = 20

// bar is a terminal's progress bar of elapsed against planned, with its
// percentage, as fio, warp and hyperfine draw one: "[#######.............]  35%".
// Past its plan a phase shows a full bar at 100%, not more.
func bar(elapsed, planned time.Duration) string {
	f := min(max(float64(elapsed)/float64(planned), 0), 1)
	n := int(f * barWidth)
	return fmt.Sprintf("[%s%s] %3d%%", strings.Repeat("#", n), strings.Repeat(".", barWidth-n), int(f*100))
}

// opRates describes each operation's rate since the last update (every
// host's over its own time: sinceLast), skipping the idle ones (engines
// with many operations run one at a time).
func (p *progress) opRates(order []string, total map[string]record.Count, since map[string]hostSince) []string {
	var parts []string
	for _, op := range order {
		c := total[op]
		ops, bw, errs := rateOf(since, op)
		if ops == 0 && errs == 0 {
			continue
		}
		s := fmt.Sprintf("%s %s", op, units.Rate(ops, "op/s"))
		if bw > 0 {
			s += " " + units.Bandwidth(bw)
		}
		if c.Errors > 0 {
			s += fmt.Sprintf(" (%d errors)", c.Errors)
		}
		parts = append(parts, s)
	}
	return parts
}

// done ends the live line so the phase's results start on a fresh line.
func (p *progress) done() {
	p.stopLayout()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		p.st.control("\r\033[K")
		p.drawn = false
	}
}

// control writes a terminal control of storbench's own (the live line's
// return and erase) as it is, past the escaping of st.Stdout (Execute).
func (st *State) control(seq string) {
	if w, ok := st.Stdout.(*safetext.Writer); ok {
		_ = w.WriteControl(seq)
		return
	}
	fmt.Fprint(st.Stdout, seq)
}

func round(d time.Duration) time.Duration { return d.Round(time.Second) }

// hostRates describes each host's operation rate since the last update when
// several hosts run: every host for a few, the spread for many, and how
// many were lost.
func (p *progress) hostRates(pr cluster.Progress, since map[string]hostSince, first bool) string {
	if len(pr.Hosts) < 2 || first {
		return ""
	}
	var rates []string
	lo, hi := -1.0, 0.0
	for _, h := range pr.Hosts {
		r := since[h.Host].opsPerS()
		if lo < 0 || r < lo {
			lo = r
		}
		hi = max(hi, r)
		rates = append(rates, h.Host+" "+units.Rate(r, ""))
	}
	s := "per host op/s: " + strings.Join(rates, ", ")
	if len(pr.Hosts) > 4 {
		s = fmt.Sprintf("per host op/s: min %s, max %s (%d hosts)", units.Rate(lo, ""), units.Rate(hi, ""), len(pr.Hosts))
	}
	if len(pr.Lost) > 0 {
		s += fmt.Sprintf(", %d lost", len(pr.Lost))
	}
	return s
}
