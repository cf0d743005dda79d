package analyze

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writeBenchData writes a zstd benchdata file from lines without header.
func writeBenchData(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "b.tsv.zst")
	if err := os.WriteFile(path, writeZstd(t, header+"\n"+strings.Join(lines, "\n")+"\n").Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6*math.Max(1, math.Abs(b)) }

// Two workers; times in tenths of a second from 0. The window runs from
// the latest first end (1.0 s) to the earliest last start (2.9 s): one
// complete 1 s segment, [1.0, 2.0). Figures computed by hand.
func TestBenchDataWindowAndSpread(t *testing.T) {
	req := func(w int, from, to int64, bytes int) string {
		return strings.Join([]string{"GET", itoa(int64(w)), "ep1", itoa(from * 1e8), "0", itoa((to - from) * 1e8), itoa(int64(bytes)), ""}, "\t")
	}
	path := writeBenchData(t,
		req(0, 0, 5, 100), req(0, 5, 15, 200), req(0, 15, 30, 300), req(0, 30, 32, 50),
		req(1, 2, 10, 1000), req(1, 10, 20, 1000), req(1, 20, 29, 1000), req(1, 29, 31, 1000),
	)
	a, err := AnalyzeBenchData(path, Options{Segment: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	o := a.Phases[0].Ops[0]
	if o.Window.StartNs != 1e9 || o.Window.EndNs != 29e8 {
		t.Fatalf("window %+v, want 1.0s to 2.9s", o.Window)
	}
	// In the window: 0.5 of the first 200 B request, 1.4/1.5 of the 300 B
	// one, and two whole 1000 B requests.
	if !near(o.Bytes, 100+280+2000) || !near(o.Ops, 0.5+1.4/1.5+2) {
		t.Errorf("window bytes %v ops %v", o.Bytes, o.Ops)
	}
	if o.BwBytesPerS == nil || !near(*o.BwBytesPerS, 2380/1.9) {
		t.Errorf("throughput %v B/s, want %v", o.BwBytesPerS, 2380/1.9)
	}
	// Latency covers the requests started in the window.
	if o.Requests != 3 {
		t.Errorf("requests %d, want 3", o.Requests)
	}
	rows := a.Phases[0].Rows
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	r := rows[0]
	if !near(r.Bytes, 100+100+1000) || !near(r.Objs, 0.5+1.0/3+1) || r.FullOps != 1 || r.PartialOps != 2 ||
		r.OpsStarted != 2 || r.OpsEnded != 2 || !r.Exact {
		t.Errorf("segment %+v", r)
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
