package cluster_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sbcluster "github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/fio"
)

// Issue 37, item 4: a real agent takes the host names of a prepare request
// (its own, the next rank's) only when they are host names. fio's
// read_from joins the next host's name into the path it reads (fio-<next>
// in the run's shared area), so "x/../../.." would lead it outside DIR: the
// agent refuses the request, naming the bad name, and makes nothing.
func TestAgentRefusesHostNamesThatAreNotNames(t *testing.T) {
	t.Parallel()
	if _, err := fio.FindFio(""); err != nil {
		t.Skip(err)
	}
	c := startCluster(t, loopback(t, 1), nil, nil)
	tok, err := os.ReadFile(c.token)
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	outside := filepath.Join(filepath.Dir(data), "escaped")
	ps, _ := json.Marshal(fio.Params{Dir: data, ReadFrom: "neighbour", Job: fio.Job{Name: "r",
		Text: "[global]\nioengine=psync\nbs=4k\nsize=1m\n[r]\nrw=read\n"}})
	phase := engine.Phase{Name: "r", Engine: "fio", Params: ps}
	// From DIR/storbench/<run>/shared/fio-x: up to DIR's parent.
	escape := "x/" + strings.Repeat("../", 5) + filepath.Base(outside)
	for _, tc := range []struct{ host, next, bad string }{
		{"h0", escape, escape},
		{"h0", "..", ".."},
		{"../h0", "h1", "../h0"},
	} {
		a := &sbcluster.RemoteAgent{Addr: c.tp.addrs[0], Host: tc.host, Token: strings.TrimSpace(string(tok)), Controller: "test"}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		err := a.Prepare(ctx, sbcluster.Request{RunID: "20261129T000000Z-abcd", Phase: phase, Hosts: 2, Rank: 0, Next: tc.next})
		if err == nil {
			_ = a.Cleanup(ctx)
		}
		cancel()
		if err == nil || !strings.Contains(err.Error(), `host "`+tc.bad+`" is malformed`) {
			t.Errorf("host %q, next %q: prepare said %v, want a refusal naming %q", tc.host, tc.next, err, tc.bad)
		}
		if ents, _ := os.ReadDir(data); len(ents) != 0 {
			t.Errorf("host %q, next %q: DIR holds %v", tc.host, tc.next, ents)
		}
		if _, err := os.Lstat(outside); err == nil {
			t.Errorf("host %q, next %q: the agent made %s, outside DIR", tc.host, tc.next, outside)
		}
	}
}
