package metrics_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/metrics"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// serve serves reg on a fresh listener at host and returns its base URL.
func serve(t *testing.T, reg *metrics.Registry, host, token string) string {
	t.Helper()
	ln, need, err := metrics.Listen("--metrics-listen", net.JoinHostPort(host, "0"), token)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = metrics.Serve(ctx, ln, metrics.Handler(reg, need)); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String()
}

func get(t *testing.T, url string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// fed is a registry holding one s3 host mid-phase.
func fed() (*metrics.Registry, record.LiveLat) {
	var bins record.Bins
	for v := int64(100_000); v < 5_000_000; v = v * 11 / 10 {
		bins = append(bins, record.Bin{V: v, N: uint64(v / 50_000)})
	}
	lat := record.LiveLatOf("GET", bins, 1.5e9)
	reg := metrics.NewRegistry()
	reg.SetState("r1", "s3-get", "h1", metrics.StatePrepare)
	reg.Snapshot("r1", engine.Snapshot{Host: "h1", Phase: "s3-get", Stage: "run", Elapsed: 3 * time.Second, Planned: 20 * time.Second,
		Ops: []record.Count{{Op: "GET", Ops: lat.N, Bytes: lat.N * 4096, Errors: 2}}, Lat: []record.LiveLat{lat}})
	return reg, lat
}

// The OpenMetrics text carries every metric the README names, with classic
// buckets; the protobuf format carries the same histogram's native buckets
// (schema 5), whose counts add up to the operations.
func TestScrapeFormats(t *testing.T) {
	reg, lat := fed()
	base := serve(t, reg, "127.0.0.1", "")
	resp, text := get(t, base+metrics.Path, map[string]string{"Accept": "application/openmetrics-text;version=1.0.0"})
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/openmetrics-text") || !strings.HasSuffix(text, "# EOF\n") {
		t.Fatalf("not OpenMetrics: %s\n%s", ct, text)
	}
	for _, want := range []string{
		`storbench_ops_total{host="h1",op="GET",phase="s3-get",run="r1"} ` + itoa(lat.N),
		`storbench_bytes_total{host="h1",op="GET",phase="s3-get",run="r1"} ` + itoa(lat.N*4096),
		`storbench_errors_total{host="h1",op="GET",phase="s3-get",run="r1"} 2`,
		`storbench_latency_seconds_count{host="h1",op="GET",phase="s3-get",run="r1"} ` + itoa(lat.N),
		`storbench_latency_seconds_bucket{host="h1",op="GET",phase="s3-get",run="r1",le="+Inf"} ` + itoa(lat.N),
		`storbench_phase_state{host="h1",phase="s3-get",run="r1",state="run"} 1`,
		`storbench_phase_state{host="h1",phase="s3-get",run="r1",state="prepare"} 0`,
		`storbench_phase_elapsed_seconds{host="h1",phase="s3-get",run="r1"} 3`,
		`storbench_phase_planned_seconds{host="h1",phase="s3-get",run="r1"} 20`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("scrape lacks %s", want)
		}
	}

	req, _ := http.NewRequest(http.MethodGet, base+metrics.Path, nil)
	req.Header.Set("Accept", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited")
	pr, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Body.Close()
	dec := expfmt.NewDecoder(pr.Body, expfmt.ResponseFormat(pr.Header))
	var h *dto.Histogram
	for {
		var mf dto.MetricFamily
		if err := dec.Decode(&mf); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
		if mf.GetName() == metrics.NameLatency {
			h = mf.Metric[0].Histogram
		}
	}
	if h == nil {
		t.Fatal("no latency histogram in the protobuf scrape")
	}
	if h.GetSchema() != record.LiveSchema || len(h.PositiveSpan) == 0 {
		t.Fatalf("no native buckets: schema %d, %d spans", h.GetSchema(), len(h.PositiveSpan))
	}
	// Rebuild the buckets from spans and deltas.
	var got []record.LiveBucket
	idx, n := int32(0), int64(0)
	d := 0
	for k, sp := range h.PositiveSpan {
		if k == 0 {
			idx = sp.GetOffset()
		} else {
			idx += sp.GetOffset()
		}
		for range sp.GetLength() {
			n += h.PositiveDelta[d]
			d++
			got = append(got, record.LiveBucket{I: idx, N: uint64(n)})
			idx++
		}
	}
	if len(got) != len(lat.Buckets) {
		t.Fatalf("native buckets %v, want %v", got, lat.Buckets)
	}
	for i := range got {
		if got[i] != lat.Buckets[i] {
			t.Fatalf("native bucket %d: %v, want %v", i, got[i], lat.Buckets[i])
		}
	}
	if len(h.Bucket) != len(metrics.ClassicBounds) || h.Bucket[len(h.Bucket)-1].GetCumulativeCount() != lat.N {
		t.Errorf("classic buckets: %d, last holds %d of %d", len(h.Bucket), h.Bucket[len(h.Bucket)-1].GetCumulativeCount(), lat.N)
	}
}

// itoa is a count as the text formats write it: a whole number.
func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// Counters never go back: a late snapshot changes nothing, and a host's
// result at the end raises them to its final counts.
func TestCountersOnlyRise(t *testing.T) {
	reg, lat := fed()
	reg.Snapshot("r1", engine.Snapshot{Host: "h1", Phase: "s3-get", Stage: "run", Elapsed: 2 * time.Second,
		Ops: []record.Count{{Op: "GET", Ops: 3}}})
	base := serve(t, reg, "127.0.0.1", "")
	_, text := get(t, base+metrics.Path, nil)
	if !strings.Contains(text, `storbench_ops_total{host="h1",op="GET",phase="s3-get",run="r1"} `+itoa(lat.N)) {
		t.Fatalf("a late snapshot took the counter back:\n%s", text)
	}
	reg.Result("r1", "s3-get", "h1", &model.HostResult{Host: "h1", Ops: []record.OpStats{{Op: "GET", Ops: lat.N + 10, Bytes: (lat.N + 10) * 4096, Errors: 2}}}, metrics.StateDone)
	_, text = get(t, base+metrics.Path, nil)
	for _, want := range []string{
		`storbench_ops_total{host="h1",op="GET",phase="s3-get",run="r1"} ` + itoa(lat.N+10),
		`storbench_phase_state{host="h1",phase="s3-get",run="r1",state="done"} 1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("after the result, scrape lacks %s", want)
		}
	}
}

// A registry keeps the last KeepPhases phases, so an agent serving runs
// for months does not grow.
func TestRegistryKeepsLastPhases(t *testing.T) {
	reg := metrics.NewRegistry()
	for i := range metrics.KeepPhases + 5 {
		reg.Snapshot("r", engine.Snapshot{Host: "h", Phase: "p" + strconv.Itoa(i), Ops: []record.Count{{Op: "x", Ops: 1}}})
	}
	base := serve(t, reg, "127.0.0.1", "")
	_, text := get(t, base+metrics.Path, nil)
	if n := strings.Count(text, "storbench_ops_total{"); n != metrics.KeepPhases {
		t.Errorf("%d phases served, want %d", n, metrics.KeepPhases)
	}
	if strings.Contains(text, `phase="p0"`) {
		t.Error("the oldest phase is still served")
	}
}

// On a listener other than loopback, a scrape without the token (or with
// another) is refused with 401, and nothing is served: no metrics, no
// other path. Without a token, such a listener is refused outright.
func TestScrapeWithoutTokenIsRefused(t *testing.T) {
	host := outsideAddr(t)
	if _, _, err := metrics.Listen("--metrics-listen", net.JoinHostPort(host, "0"), ""); err == nil || !strings.Contains(err.Error(), "loopback only") {
		t.Errorf("metrics without a token outside loopback: %v", err)
	}
	reg, _ := fed()
	base := serve(t, reg, host, "s3cr3t-token-0123456789abcdef")
	for _, path := range []string{metrics.Path, "/", "/debug/pprof/", "/metrics/x"} {
		for _, auth := range []string{"", "Bearer wrong", "Basic czNjcjN0LXRva2VuLTAxMjM0NTY3ODlhYmNkZWY=", "Bearer s3cr3t-token-0123456789abcdef-and-more"} {
			resp, body := get(t, base+path, map[string]string{"Authorization": auth})
			if resp.StatusCode != http.StatusUnauthorized || strings.Contains(body, "storbench_") || strings.Contains(body, "go_") {
				t.Errorf("%s with %q: %s\n%s", path, auth, resp.Status, body)
			}
		}
	}
	resp, body := get(t, base+metrics.Path, map[string]string{"Authorization": "Bearer s3cr3t-token-0123456789abcdef"})
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "storbench_ops_total") {
		t.Errorf("with the token: %s", resp.Status)
	}
}

// A port that is taken is one clear error naming the flag.
func TestMetricsPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, _, err = metrics.Listen("--metrics-listen", ln.Addr().String(), "")
	if err == nil || !errors.Is(err, syscall.EADDRINUSE) && !strings.Contains(err.Error(), "the port is taken") {
		t.Fatalf("taken port: %v", err)
	}
	if !strings.HasPrefix(err.Error(), "--metrics-listen "+ln.Addr().String()+": the port is taken") {
		t.Errorf("error: %v", err)
	}
}
