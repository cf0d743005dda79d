package analyze

import (
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
)

// writeClient writes a results folder of one client (host) that ran GET
// for 10 s from startS doing 100 ops and 100 KB per second, each
// request taking 1 ms plus 0.25 ms per second of startS past 1000.
func writeClient(t *testing.T, host string, startS int64) string {
	t.Helper()
	h := &model.HostResult{Host: host}
	rec := record.NewRecorder([]string{"GET"}, false)
	sampler := record.NewSampler([]string{"GET"}, []*record.Recorder{rec}, startS*1e9)
	for s := int64(0); s < 10; s++ {
		h.Series = append(h.Series, record.Second{StartNs: (startS + s) * 1e9, EndNs: (startS + s + 1) * 1e9, Op: "GET", Ops: 100, Bytes: 100_000})
		for i := 0; i < 100; i++ {
			rec.Op(0).Record(int64(1e6*(1+float64(startS%1000)/4)), 1000)
		}
		sampler.Sample((startS + s + 1) * 1e9)
	}
	var err error
	if h.LatencySeconds, err = record.EncodeLatSeconds(sampler.LatSeconds()); err != nil {
		t.Fatal(err)
	}
	st := rec.Stats(0, "GET")
	st.StartNs, st.EndNs = startS*1e9, (startS+10)*1e9
	h.Ops = []record.OpStats{st}
	f, err := results.Create(t.TempDir(), results.RunInfo{RunHead: model.RunHead{RunID: results.NewRunID(time.Unix(startS, 0)), Name: "get"}, Agents: []model.AgentInfo{{Host: host}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.AddPhase(results.BuildPhase("s3-get", "s3", nil, []*model.HostResult{h}), []*model.HostResult{h}); err != nil {
		t.Fatal(err)
	}
	if err := f.Finish(results.StatusCompleted, nil); err != nil {
		t.Fatal(err)
	}
	return f.Path
}

func TestMergeKeepsOverlapAddsHistograms(t *testing.T) {
	a, b := writeClient(t, "vm1", 1000), writeClient(t, "vm2", 1004) // 6 s in common
	root := t.TempDir()
	f, err := Merge([]string{a, b}, MergeOptions{Root: root, Now: time.Unix(2000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := results.ReadSummary(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	p := sum.Phases[0]
	if len(p.Hosts) != 2 || p.Hosts[0] == p.Hosts[1] {
		t.Fatalf("hosts %v: both clients' detail must be kept", p.Hosts)
	}
	if p.Window == nil || p.Window.StartNs != 1004e9 || p.Window.EndNs != 1010e9 {
		t.Fatalf("window %+v, want 1004 s to 1010 s", p.Window)
	}
	o := p.Ops[0]
	// Inside the 6 s in common both clients did 100 ops/s each.
	if o.OpsPerS == nil || o.BwBytesPerS == nil || o.Lat == nil {
		t.Fatalf("totals lack ops/s, B/s or latency: %+v", o)
	}
	if *o.OpsPerS != 200 || *o.BwBytesPerS != 200_000 || o.DurationS != 6 {
		t.Errorf("totals %v ops/s %v B/s over %v s, want 200, 200000, 6", *o.OpsPerS, *o.BwBytesPerS, o.DurationS)
	}
	// Histograms added: 1000 requests at 1 ms and 1000 at 2 ms.
	if o.Ops != 2000 || o.Lat.P50Ns > 1_010_000 || o.Lat.P99Ns < 1_990_000 {
		t.Errorf("merged histogram: %d ops, p50 %d p99 %d", o.Ops, o.Lat.P50Ns, o.Lat.P99Ns)
	}
	if _, err := results.ReadHostResult(f.Path, p.Dir, p.Hosts[1]); err != nil {
		t.Errorf("second client's result not kept: %v", err)
	}
	// Each client's latency per second is kept, and reads back merged
	// second by second: 10 s each, 6 of them in common.
	for _, host := range p.Hosts {
		if b, err := results.ReadHostLatency(f.Path, p.Dir, host); err != nil || len(b) == 0 {
			t.Errorf("%s's per-second latency not kept (%v)", host, err)
		}
	}
	ps, err := PerSecondFolder(f.Path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows := ps.Phases[0].Ops[0].Rows
	if len(rows) != 14 || rows[4].Lat == nil || rows[4].Lat.Requests != 200 || rows[0].Lat.Requests != 100 {
		t.Errorf("merged per-second rows: %d, want 14 with 200 requests in the 6 s in common", len(rows))
	}
	// Runs that never overlapped cannot be merged.
	if _, err := Merge([]string{a, writeClient(t, "vm3", 3000)}, MergeOptions{Root: t.TempDir()}); err == nil {
		t.Error("merged runs that do not overlap")
	}
}
