package metrics_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/storbench/storbench/internal/metrics"
)

// BenchmarkScrape is the cost of one scrape of a host's phase (OpenMetrics
// text), what a scraper adds to the process once per scrape interval.
func BenchmarkScrape(b *testing.B) {
	reg, _ := fed()
	h := metrics.Handler(reg, "")
	req := httptest.NewRequest(http.MethodGet, metrics.Path, nil)
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0")
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
	}
}
