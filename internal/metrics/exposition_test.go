package metrics_test

import (
	"errors"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	pmodel "github.com/prometheus/common/model"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/metrics"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// The text formats are written by storbench and the protobuf format by
// client_golang: a scraper gets the same series with the same values from
// each, names with quotes, backslashes, newlines and bytes that are not
// UTF-8 included.
func TestTextMatchesProtobuf(t *testing.T) {
	reg, lat := fed()
	odd := "a \"quoted\" \\ back\nslash \xff"
	reg.Snapshot("r1", engine.Snapshot{Host: "h0" + odd, Phase: "s3-get", Elapsed: time.Second,
		Ops: []record.Count{{Op: "GET" + odd, Ops: 7, Bytes: 9}}, Lat: []record.LiveLat{{Op: "GET" + odd, N: 7, SumNs: 7e6, Buckets: []record.LiveBucket{{I: -700, N: 1}, {I: -288, N: 4}, {I: -287, N: 1}, {I: 400, N: 1}}}}})
	reg.SetState("r1", "md-"+odd, "h1", metrics.StatePrepare)
	reg.Result("r2", "fio", "h1", &model.HostResult{Host: "h1", Ops: []record.OpStats{{Op: "read", Ops: 1 << 60, Bytes: 1<<64 - 1}}}, metrics.StateFailed)
	// Operations counted but never timed (fio without latency recorded,
	// or the first second of a phase) have no latency series at all.
	reg.Snapshot("r3", engine.Snapshot{Host: "h1", Phase: "fio-nolat", Elapsed: time.Second, Ops: []record.Count{{Op: "write", Ops: 50, Bytes: 50 << 12}}})
	base := serve(t, reg, "127.0.0.1", "")

	proto := scrapeFamilies(t, base, "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited", "application/vnd.google.protobuf")
	text := scrapeFamilies(t, base, "text/plain;version=0.0.4", "text/plain; version=0.0.4")
	om := scrapeFamilies(t, base, "application/openmetrics-text;version=1.0.0", "application/openmetrics-text; version=1.0.0")
	if len(proto) < 20 {
		t.Fatalf("the protobuf scrape holds %d series", len(proto))
	}
	for name, other := range map[string]map[string]float64{"text 0.0.4": text, "OpenMetrics": om} {
		for k, v := range proto {
			got, ok := other[k]
			if !ok {
				t.Errorf("%s lacks %s", name, k)
			} else if got != v && !(k == metrics.NameLatency+"_sum" && relDiff(got, v) < 1e-12) {
				t.Errorf("%s: %s = %v, protobuf says %v", name, k, got, v)
			}
		}
		for k := range other {
			if _, ok := proto[k]; !ok {
				t.Errorf("%s has %s, which protobuf has not", name, k)
			}
		}
	}
	for name, samples := range map[string]map[string]float64{"protobuf": proto, "text": text, "OpenMetrics": om} {
		if samples[metrics.NameOps+`{host="h1",op="write",phase="fio-nolat",run="r3"}`] != 50 {
			t.Errorf("%s lacks the untimed writes", name)
		}
		for k := range samples {
			if strings.HasPrefix(k, metrics.NameLatency) && strings.Contains(k, `phase="fio-nolat"`) {
				t.Errorf("%s has a latency for operations never timed: %s", name, k)
			}
		}
	}
	mended := strings.ToValidUTF8(odd, "\uFFFD")
	if v := text[metrics.NameOps+"{host="+strconv.Quote("h0"+mended)+",op="+strconv.Quote("GET"+mended)+`,phase="s3-get",run="r1"}`]; v != 7 {
		t.Errorf("the odd host's GETs: %v, want 7", v)
	}
	// Classic bucket k holds what LiveSchema's buckets up to index
	// -640+16k hold: 2^-20 s, then a factor of √2 each.
	bucket := func(le string) float64 {
		return text[metrics.NameLatency+"_bucket{host="+strconv.Quote("h0"+mended)+",op="+strconv.Quote("GET"+mended)+`,phase="s3-get",run="r1",le=`+le+"}"]
	}
	le := func(k int) string { return strconv.FormatFloat(metrics.ClassicBounds[k], 'g', -1, 64) }
	for _, c := range []struct {
		le   string
		want float64
	}{{le(0), 1}, {le(21), 1}, {le(22), 5}, {le(23), 6}, {le(len(metrics.ClassicBounds) - 1), 6}, {"+Inf", 7}} {
		if got := bucket(c.le); got != c.want {
			t.Errorf("the odd host's bucket le=%s holds %v, want %v", c.le, got, c.want)
		}
	}
	if lat.N == 0 {
		t.Fatal("fed() holds no latency")
	}
}

func relDiff(a, b float64) float64 {
	if a == b {
		return 0
	}
	return (a - b) / max(a, b, -a, -b)
}

// scrapeFamilies scrapes base with accept, checks the content type starts
// with want, and returns every sample as "name{labels}" -> value, labels
// sorted and le written as a number.
func scrapeFamilies(t *testing.T, base, accept, want string) map[string]float64 {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+metrics.Path, nil)
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, want) {
		t.Fatalf("Accept %s: Content-Type %s", accept, ct)
	}
	var fams []*dto.MetricFamily
	switch {
	case strings.HasPrefix(want, "application/vnd.google.protobuf"):
		dec := expfmt.NewDecoder(resp.Body, expfmt.ResponseFormat(resp.Header))
		for {
			var mf dto.MetricFamily
			if err := dec.Decode(&mf); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			fams = append(fams, &mf)
		}
	default:
		b, _ := io.ReadAll(resp.Body)
		body := string(b)
		if strings.HasPrefix(want, "application/openmetrics-text") {
			// OpenMetrics names counter families without _total and
			// ends with # EOF; the 0.0.4 parser reads the rest.
			var ok bool
			if body, ok = strings.CutSuffix(body, "# EOF\n"); !ok {
				t.Fatalf("OpenMetrics without # EOF:\n%s", b)
			}
			for _, c := range []string{metrics.NameOps, metrics.NameBytes, metrics.NameErrors} {
				short := strings.TrimSuffix(c, "_total")
				body = strings.ReplaceAll(body, "# HELP "+short+" ", "# HELP "+c+" ")
				body = strings.ReplaceAll(body, "# TYPE "+short+" ", "# TYPE "+c+" ")
			}
		}
		p := expfmt.NewTextParser(pmodel.UTF8Validation)
		m, err := p.TextToMetricFamilies(strings.NewReader(body))
		if err != nil {
			t.Fatalf("%s does not parse: %v\n%s", want, err, b)
		}
		for _, mf := range m {
			fams = append(fams, mf)
		}
	}
	out := map[string]float64{}
	for _, mf := range fams {
		for _, m := range mf.Metric {
			flatten(out, mf.GetName(), m)
		}
	}
	return out
}

func flatten(out map[string]float64, name string, m *dto.Metric) {
	var pairs []string
	for _, l := range m.Label {
		pairs = append(pairs, l.GetName()+"="+strconv.Quote(l.GetValue()))
	}
	sort.Strings(pairs)
	key := func(suffix string, more ...string) string {
		return name + suffix + "{" + strings.Join(append(append([]string(nil), pairs...), more...), ",") + "}"
	}
	switch {
	case m.Counter != nil:
		out[key("")] = m.Counter.GetValue()
	case m.Gauge != nil:
		out[key("")] = m.Gauge.GetValue()
	case m.Histogram != nil:
		h := m.Histogram
		out[key("_count")] = float64(h.GetSampleCount())
		out[key("_sum")] = h.GetSampleSum()
		out[key("_bucket", "le=+Inf")] = float64(h.GetSampleCount()) // implicit in protobuf
		for _, b := range h.Bucket {
			out[key("_bucket", "le="+strconv.FormatFloat(b.GetUpperBound(), 'g', -1, 64))] = float64(b.GetCumulativeCount())
		}
	default:
		out[key("_untyped")] = m.GetUntyped().GetValue()
	}
}
