package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
)

// The live line's rates are the hosts' true rates whenever the update
// comes: three hosts each doing 12,345 op/s, updates a second apart, then
// the last (Final) one a moment after the one before with each host's
// last second in it, and one host whose snapshot came late, two seconds at
// once. Before, the rate was over the controller's time between updates:
// the last one printed many times the true rate.
func TestLiveLineRatesAreTheHostsOwn(t *testing.T) {
	const perSec = 12345
	snap := func(host string, sec int) engine.Snapshot {
		return engine.Snapshot{Host: host, Phase: "p", Elapsed: time.Duration(sec) * time.Second,
			Ops: []record.Count{{Op: "file-create", Ops: uint64(perSec * sec), Bytes: uint64(perSec * sec * 4096)}}}
	}
	l := &liveLine{}
	for _, secs := range [][3]int{{1, 1, 1}, {2, 2, 2}, {3, 3, 2}, {4, 4, 4}, {5, 5, 5}} {
		var hosts []engine.Snapshot
		for i, s := range secs {
			hosts = append(hosts, snap(fmt.Sprintf("h%d", i), s))
		}
		l.update(cluster.Progress{Phase: "p", Hosts: hosts, Final: secs[0] == 5})
		if secs[0] == 1 {
			continue // no rate yet
		}
		if want := fmt.Sprintf("file-create %d op/s", 3*perSec); !strings.Contains(l.last, want) {
			t.Errorf("after second %d: %q, want %q", secs[0], l.last, want)
		}
		if want := fmt.Sprintf("min %d, max %d (3 hosts)", perSec, perSec); !strings.Contains(l.last, want) {
			t.Errorf("after second %d: %q, want %q", secs[0], l.last, want)
		}
	}
}
