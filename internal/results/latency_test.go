package results

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// A host's per-second latency is its own compressed file beside
// result.json, which stays small, and reads back as written.
func TestPerSecondLatencyFile(t *testing.T) {
	f, err := Create(t.TempDir(), RunInfo{RunHead: model.RunHead{RunID: NewRunID(time.Now()), Name: "lat", StartedAt: time.Now()}})
	if err != nil {
		t.Fatal(err)
	}
	secs := []record.LatSecond{{Op: "GET", StartNs: 1e18, EndNs: 1e18 + 1e9, SumNs: 3000, Bins: record.Bins{{V: 1000, N: 3}}}}
	enc, err := record.EncodeLatSeconds(secs)
	if err != nil {
		t.Fatal(err)
	}
	hosts := []*model.HostResult{
		{Host: "c1", LatencySeconds: enc, Ops: []record.OpStats{{Op: "GET", Ops: 3}}},
		{Host: "c2", Ops: []record.OpStats{{Op: "GET", Ops: 1}}}, // kept none
	}
	if err := f.AddPhase(BuildPhase("s3-get", "s3", nil, hosts), hosts); err != nil {
		t.Fatal(err)
	}
	dir := f.Summary().Phases[0].Dir
	got, err := ReadHostLatency(f.Path, dir, "c1")
	if err != nil || !bytes.Equal(got, enc) {
		t.Fatalf("read back %d bytes (%v), wrote %d", len(got), err, len(enc))
	}
	if got, err := ReadHostLatency(f.Path, dir, "c2"); got != nil || err != nil {
		t.Errorf("a host that kept none: %d bytes, %v", len(got), err)
	}
	b, err := os.ReadFile(filepath.Join(f.Path, dir, "hosts", "c1", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "latency_seconds") {
		t.Error("result.json holds the per-second histograms too")
	}
	if _, err := os.Stat(filepath.Join(f.Path, dir, "hosts", "c2", record.LatSecondsFile)); !os.IsNotExist(err) {
		t.Errorf("a host that kept none got a file: %v", err)
	}
}
