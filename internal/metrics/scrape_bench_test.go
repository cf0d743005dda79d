package metrics_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/metrics"
	"github.com/storbench/storbench/internal/record"
)

// benchLat is one host's cumulative PUT latency after sec seconds: 0.1 to
// 5 ms, 40 buckets of LiveSchema.
func benchLat(sec int) record.LiveLat {
	var bins record.Bins
	for v := int64(100_000); v < 5_000_000; v = v * 11 / 10 {
		bins = append(bins, record.Bin{V: v, N: uint64(sec) * uint64(v/50_000)})
	}
	return record.LiveLatOf("PUT", bins, 1.5e9*float64(sec))
}

// benchSnapshots are four hosts' snapshots in second sec of an s3 PUT
// phase, what a controller driving four agents takes in each second.
func benchSnapshots(sec int) []engine.Snapshot {
	var out []engine.Snapshot
	for h := 1; h <= 4; h++ {
		lat := benchLat(sec)
		out = append(out, engine.Snapshot{Host: fmt.Sprintf("127.0.0.1:4%04d", h), Phase: "s3-put", Stage: "run",
			Elapsed: time.Duration(sec) * time.Second, Planned: 20 * time.Second,
			Ops: []record.Count{{Op: "PUT", Ops: lat.N, Bytes: lat.N * 4096, Errors: 2}}, Lat: []record.LiveLat{lat}})
	}
	return out
}

// BenchmarkScrape is the cost of one scrape of a controller driving four
// hosts, what a scraper adds to the process once per scrape interval: in
// the text formats Prometheus asks for by default, and in the protobuf
// format a Prometheus with native histograms asks for.
func BenchmarkScrape(b *testing.B) {
	for _, c := range []struct{ name, accept string }{
		{"openmetrics", "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"},
		{"text", "text/plain;version=0.0.4"},
		{"protobuf", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited"},
	} {
		b.Run(c.name, func(b *testing.B) {
			reg := metrics.NewRegistry()
			for _, s := range benchSnapshots(3) {
				reg.Snapshot("20261123-053300-ab12cd", s)
			}
			h := metrics.Handler(reg, "")
			req := httptest.NewRequest(http.MethodGet, metrics.Path, nil)
			req.Header.Set("Accept", c.accept)
			req.Header.Set("Accept-Encoding", "gzip")
			w := &discardResponse{header: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.header)
				w.code, w.n = 0, 0
				h.ServeHTTP(w, req)
				if w.code != 0 && w.code != http.StatusOK || w.n == 0 {
					b.Fatal(w.code, w.n)
				}
			}
			b.SetBytes(int64(w.n))
		})
	}
}

// discardResponse is a ResponseWriter that counts the body and keeps
// nothing, so a benchmark measures the handler alone.
type discardResponse struct {
	header http.Header
	code   int
	n      int
}

func (d *discardResponse) Header() http.Header  { return d.header }
func (d *discardResponse) WriteHeader(code int) { d.code = code }
func (d *discardResponse) Write(b []byte) (int, error) {
	d.n += len(b)
	return len(b), nil
}

// BenchmarkLive is the cost of one second of the --live stream of a
// controller driving four hosts: five lines, written by the stream's own
// goroutine.
func BenchmarkLive(b *testing.B) {
	seconds := make([]cluster.Progress, 100)
	for i := range seconds {
		seconds[i] = cluster.Progress{Phase: "s3-put", Hosts: benchSnapshots(i + 1)}
	}
	l := &metrics.Live{Open: func() (io.WriteCloser, error) { return nopWriteCloser{}, nil }}
	l.Started("20261123-053300-ab12cd", "")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%len(seconds) == 0 {
			l.PhaseStarted(engine.Phase{Name: "s3-put"}, nil)
		}
		l.Progress(seconds[i%len(seconds)])
	}
	if _, err := l.Close(); err != nil {
		b.Fatal(err)
	}
}

type nopWriteCloser struct{}

func (nopWriteCloser) Write(b []byte) (int, error) { return len(b), nil }
func (nopWriteCloser) Close() error                { return nil }
