package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
)

// The live line gives the total and, with several hosts, each host's rate;
// with many hosts, their spread.
func TestProgressLineShowsHosts(t *testing.T) {
	t.Parallel()
	st, out := testState()
	st.Verbosity = 1 // a plain line on every update
	p := newProgress(st, nil)
	p.start(engine.Phase{Name: "ph", Engine: "md"})
	snap := func(host string, ops uint64) engine.Snapshot {
		return engine.Snapshot{Host: host, Stage: "run", Elapsed: time.Duration(1+ops/1000) * time.Second, Ops: []record.Count{{Op: "get", Ops: ops}}}
	}
	p.update(cluster.Progress{Hosts: []engine.Snapshot{snap("a", 0), snap("b", 0)}})
	p.update(cluster.Progress{Hosts: []engine.Snapshot{snap("a", 1000), snap("b", 3000)}})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, "get ") || !strings.Contains(last, "per host op/s: a ") || !strings.Contains(last, ", b ") {
		t.Fatalf("progress line: %q", last)
	}
	var many []engine.Snapshot
	for i := 0; i < 8; i++ {
		many = append(many, snap(string(rune('c'+i)), 0))
	}
	p.start(engine.Phase{Name: "ph", Engine: "md"})
	p.update(cluster.Progress{Hosts: many})
	for i := range many {
		many[i] = snap(many[i].Host, uint64(1000*(i+1)))
	}
	p.update(cluster.Progress{Hosts: many, Lost: []string{"z"}})
	lines = strings.Split(strings.TrimSpace(out.String()), "\n")
	if last = lines[len(lines)-1]; !strings.Contains(last, "(8 hosts), 1 lost") || !strings.Contains(last, "min ") {
		t.Fatalf("progress line with many hosts: %q", last)
	}
}

// The live line's rates are the hosts' over their own time (issue 35):
// a loaded host whose two seconds arrive in one update did them in two
// seconds (1,000 op/s), not in the one second between updates (where the
// line said 2,000), and a host with nothing new in an update keeps its
// last second's rate rather than falling to 0 and doubling at the next.
func TestProgressRatesOverTheHostsTime(t *testing.T) {
	t.Parallel()
	st, out := testState()
	st.Verbosity = 1
	p := newProgress(st, nil)
	p.start(engine.Phase{Name: "ph", Engine: "s3"})
	at := func(sec int, ops uint64) engine.Snapshot {
		return engine.Snapshot{Host: "a", Stage: "run", Elapsed: time.Duration(sec) * time.Second, Ops: []record.Count{{Op: "get", Ops: ops}}}
	}
	last := func() string {
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		return lines[len(lines)-1]
	}
	for _, u := range []struct {
		snap engine.Snapshot
		want string
	}{{at(1, 1000), "get 1000 op/s"}, {at(3, 3000), "get 1000 op/s"}, {at(3, 3000), "get 1000 op/s"}, {at(4, 4500), "get 1500 op/s"}} {
		p.update(cluster.Progress{Hosts: []engine.Snapshot{u.snap}})
		if !strings.Contains(last(), u.want) {
			t.Errorf("at %v with %d operations: %q, want %q", u.snap.Elapsed, u.snap.Ops[0].Ops, last(), u.want)
		}
	}
}

// The live line says how much of the phase and of the whole run is left,
// from the plan (at least: preparing and cleaning up add to it), and says
// so rather than guess where a phase runs until its work is done (md).
func TestProgressLineShowsETA(t *testing.T) {
	t.Parallel()
	st, out := testState()
	st.Verbosity = 1
	s3 := func(name, d string) engine.Phase {
		return engine.Phase{Name: name, Engine: "s3", Params: []byte(`{"op":"get","host":"h:1","bucket":"b","duration":"` + d + `"}`)}
	}
	md := engine.Phase{Name: "md", Engine: "md", Params: []byte(`{"dir":"/x","items":10}`)}
	phases := []engine.Phase{s3("get1", "30s"), md, s3("get2", "1m")}
	p := newProgress(st, phases)
	snap := engine.Snapshot{Host: "a", Stage: "run", Elapsed: 10 * time.Second, Ops: []record.Count{{Op: "get", Ops: 5}}}
	last := func() string {
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		return lines[len(lines)-1]
	}
	p.start(phases[0])
	p.update(cluster.Progress{Hosts: []engine.Snapshot{snap}})
	if want := "(20s left; phase 1 of 3, run: at least 1m20s left and 1 phase of unknown length)"; !strings.Contains(last(), want) {
		t.Errorf("first phase: %q, want %q", last(), want)
	}
	p.start(phases[1])
	p.update(cluster.Progress{Hosts: []engine.Snapshot{snap}})
	if want := "(length unknown until done; phase 2 of 3, run: at least 1m0s left and 1 phase of unknown length)"; !strings.Contains(last(), want) {
		t.Errorf("md phase: %q, want %q", last(), want)
	}
	p.start(phases[2])
	snap.Elapsed = 75 * time.Second // longer than planned: nothing is left, not a negative time
	p.update(cluster.Progress{Hosts: []engine.Snapshot{snap}})
	if want := "(0s left; phase 3 of 3, run: at least 0s left)"; !strings.Contains(last(), want) {
		t.Errorf("last phase past its plan: %q, want %q", last(), want)
	}
}

// On a terminal the live line draws a bar with a percentage of the
// phase's plan (issue 36 item 3), as fio, warp and hyperfine do; it had
// only "10s/30s (20s left)". A plain (non-terminal) line has no bar.
func TestProgressBarOnATerminal(t *testing.T) {
	t.Parallel()
	for _, tty := range []bool{true, false} {
		st, out := testState()
		st.TTY, st.Verbosity = tty, 1
		ph := engine.Phase{Name: "get", Engine: "s3", Params: []byte(`{"op":"get","host":"h:1","bucket":"b","duration":"40s"}`)}
		p := newProgress(st, []engine.Phase{ph})
		p.start(ph)
		p.update(cluster.Progress{Hosts: []engine.Snapshot{{Host: "a", Stage: "run", Elapsed: 10 * time.Second, Ops: []record.Count{{Op: "get", Ops: 5}}}}})
		got := out.String()
		want := "[get] [#####...............]  25% 10s/40s"
		if tty != strings.Contains(got, want) {
			t.Errorf("terminal %v: line %q; want the bar %q only on a terminal", tty, got, want)
		}
	}
}
