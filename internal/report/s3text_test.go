package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
)

var updateS3 = flag.Bool("update-s3", false, "rewrite the s3 text golden files")

// hist builds a latency distribution from values (ns) the way a recorder does.
func hist(vals ...int64) record.Hist {
	r := record.NewRecorder([]string{"x"}, false)
	for _, v := range vals {
		r.Op(0).Record(v, 0)
	}
	return r.Stats(0, "x").Lat
}

func s3Hosts() []*model.HostResult {
	const t0 = int64(1_700_000_000_000_000_000)
	get := record.OpStats{Op: "GET", Ops: 10, Bytes: 10 * 4096, Errors: 2,
		ErrorKinds: map[string]uint64{"connection refused": 2},
		StartNs:    t0, EndNs: t0 + 4e9,
		Lat: hist(1e6, 1e6, 1e6, 2e6, 2e6, 2e6, 3e6, 3e6, 4e6, 10e6)}
	tt := hist(5e5, 5e5, 5e5, 1e6, 1e6, 1e6, 1e6, 2e6, 2e6, 9e6)
	get.TTFB = &tt
	var series []record.Second
	for i, n := range []uint64{2, 4, 3, 1} {
		series = append(series, record.Second{StartNs: t0 + int64(i)*1e9, EndNs: t0 + int64(i+1)*1e9, Op: "GET", Ops: n, Bytes: n * 4096})
	}
	e1, e2 := get, get
	e1.Ops, e1.Bytes, e1.Errors, e1.ErrorKinds = 6, 6*4096, 0, nil
	e1.Lat = hist(1e6, 1e6, 1e6, 2e6, 2e6, 2e6)
	e2.Ops, e2.Bytes = 4, 4*4096
	e2.Lat = hist(3e6, 3e6, 4e6, 10e6)
	per, _ := json.Marshal(map[string][]record.OpStats{"10.0.0.1:9000": {e1}, "10.0.0.2:9000": {e2}})
	return []*model.HostResult{{Host: "client1", Ops: []record.OpStats{get}, Series: series,
		Meta: map[string]string{"concurrent": "16", "dropped_starts": "3", "rate_ops_per_s": "100"},
		Raw:  map[string][]byte{S3EndpointsFile: per}}}
}

func TestS3TextGolden(t *testing.T) {
	hosts := s3Hosts()
	ps := results.BuildPhase("s3-get", "s3", nil, hosts)
	var buf bytes.Buffer
	S3Text(&buf, &ps, hosts, nil)
	golden := filepath.Join("testdata", "s3text.golden")
	if *updateS3 {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update-s3 to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("s3 text differs from %s:\n%s", golden, buf.String())
	}
	out := buf.String()
	// Hand-computed (HDR buckets are 1% wide, so 2 ms reads 2.01 ms): 10 GETs of 4 KiB over 4 s = 2.50 obj/s, 0.01 MiB/s;
	// seconds with 2,4,3,1 GETs: fastest 4, median (upper middle) 2, slowest 1.
	for _, s := range []string{
		"* Average: 0.01 MiB/s, 2.50 obj/s (4s)",
		"Fastest: 0.02 MiB/s, 4.00 obj/s", "50% Median: 0.01 MiB/s, 2.00 obj/s", "Slowest: 0.00 MiB/s, 1.00 obj/s",
		"50%: 2.01 ms", "Fastest: 1.00 ms, Slowest: 10.0 ms",
		"First byte: Avg: 1.85 ms",
		"10.0.0.1:9000: 0.01 MiB/s, 1.50 obj/s, 6 requests",
		"Errors: 2 (connection refused: 2)",
		"3 scheduled starts were dropped",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q", s)
		}
	}
}
