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
	st, out := testState()
	st.Verbosity = 1 // a plain line on every update
	p := newProgress(st)
	p.start(engine.Phase{Name: "ph", Engine: "md"})
	snap := func(host string, ops uint64) engine.Snapshot {
		return engine.Snapshot{Host: host, Stage: "run", Elapsed: time.Second, Ops: []record.Count{{Op: "get", Ops: ops}}}
	}
	p.update(cluster.Progress{Hosts: []engine.Snapshot{snap("a", 0), snap("b", 0)}})
	p.prevAt = p.prevAt.Add(-time.Second) // as if a second passed
	p.update(cluster.Progress{Hosts: []engine.Snapshot{snap("a", 100), snap("b", 300)}})
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
	p.prevAt = p.prevAt.Add(-time.Second)
	for i := range many {
		many[i] = snap(many[i].Host, uint64(100*(i+1)))
	}
	p.update(cluster.Progress{Hosts: many, Lost: []string{"z"}})
	lines = strings.Split(strings.TrimSpace(out.String()), "\n")
	if last = lines[len(lines)-1]; !strings.Contains(last, "(8 hosts), 1 lost") || !strings.Contains(last, "min ") {
		t.Fatalf("progress line with many hosts: %q", last)
	}
}
