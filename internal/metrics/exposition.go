package metrics

import (
	"bytes"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/storbench/storbench/internal/record"
)

// The text formats (OpenMetrics 1.0 and Prometheus text 0.0.4), which is
// what a Prometheus scrapes by default, are written here straight from the
// Registry into a reused buffer. The protobuf format, which a Prometheus
// with native histograms asks for, is client_golang's encoding of the
// families Gather makes from the same series. Through client_golang's
// registry (a Collector, its checks, then its encoder) a scrape of four
// hosts cost about 0.5 ms and 2,100 allocations, which made a controller
// scraped every second spend a third more CPU than one not watched; the
// figures are the same in every format (TestTextMatchesProtobuf).

// A family is one metric: its series on each host's phase, which the
// text formats and client_golang's families are both made from.
type family struct {
	name, help string
	typ        dto.MetricType
	// each appends the family's series on one host's phase.
	each func(out []series, h *hostPhase) []series
}

// A series is one labelled value of a family: a count (counters), a
// value (gauges) or a latency histogram.
type series struct {
	labels string
	pairs  []*dto.LabelPair
	count  uint64
	value  float64
	lat    *record.LiveLat
}

// families are served sorted by name, as client_golang sorts them.
var families = []family{
	{NameBytes, "Bytes moved by operations completed without error.", dto.MetricType_COUNTER, func(out []series, h *hostPhase) []series {
		return h.eachOp(out, func(o *opFigures) uint64 { return o.bytes })
	}},
	{NameErrors, "Operations that failed.", dto.MetricType_COUNTER, func(out []series, h *hostPhase) []series {
		return h.eachOp(out, func(o *opFigures) uint64 { return o.errors })
	}},
	{NameLatency, "Latency of operations completed without error (fio: completion latency).", dto.MetricType_HISTOGRAM, func(out []series, h *hostPhase) []series {
		for _, op := range h.order {
			if o := h.ops[op]; o.lat.N > 0 {
				// A latency nothing has been timed for yet (or ever, as
				// fio's without latency recorded) is absent, not 0.
				out = append(out, series{labels: o.labels, pairs: o.pairs, lat: &o.lat})
			}
		}
		return out
	}},
	{NameOps, "Operations completed without error, per run, phase, host and operation.", dto.MetricType_COUNTER, func(out []series, h *hostPhase) []series {
		return h.eachOp(out, func(o *opFigures) uint64 { return o.ops })
	}},
	{NameElapsed, "Time the phase's load has run on the host.", dto.MetricType_GAUGE, func(out []series, h *hostPhase) []series {
		return append(out, series{labels: h.labels, pairs: h.pairs, value: h.elapsed})
	}},
	{NamePlanned, "Time the phase's load is planned to run (absent when the engine cannot tell).", dto.MetricType_GAUGE, func(out []series, h *hostPhase) []series {
		if h.planned <= 0 {
			return out
		}
		return append(out, series{labels: h.labels, pairs: h.pairs, value: h.planned})
	}},
	{NameState, "The phase's state on the host: 1 for the current state, 0 for the others.", dto.MetricType_GAUGE, func(out []series, h *hostPhase) []series {
		for i, st := range states {
			v := 0.0
			if st == h.state {
				v = 1
			}
			out = append(out, series{labels: h.stateLabels[i], pairs: h.statePairs[i], value: v})
		}
		return out
	}},
}

// eachOp appends one counter per operation.
func (h *hostPhase) eachOp(out []series, count func(*opFigures) uint64) []series {
	for _, op := range h.order {
		o := h.ops[op]
		out = append(out, series{labels: o.labels, pairs: o.pairs, count: count(o)})
	}
	return out
}

// seriesOf returns f's series on every kept phase's hosts, oldest phase
// first and hosts in name order, in r.series (reused); r.mu is held.
func (r *Registry) seriesOf(f family) []series {
	out := r.series[:0]
	for _, ph := range r.phases {
		for _, host := range ph.order {
			out = f.each(out, ph.hosts[host])
		}
	}
	r.series = out
	return out
}

// appendText appends every kept phase's figures in the text format,
// OpenMetrics when om is set.
func (r *Registry) appendText(b []byte, om bool) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range families {
		name, typ := f.name, strings.ToLower(f.typ.String())
		if om && f.typ == dto.MetricType_COUNTER {
			// OpenMetrics names a counter family without its _total.
			name = strings.TrimSuffix(name, "_total")
		}
		b = append(append(append(append(b, "# HELP "...), name...), ' '), f.help...)
		b = append(append(append(append(append(b, "\n# TYPE "...), name...), ' '), typ...), '\n')
		for _, s := range r.seriesOf(f) {
			switch f.typ {
			case dto.MetricType_COUNTER:
				b = appendCount(b, f.name, s.labels, "", s.count)
			case dto.MetricType_HISTOGRAM:
				b = appendLatency(b, s.labels, s.lat)
			default:
				b = appendSample(b, f.name, s.labels, "", s.value)
			}
		}
	}
	if om {
		b = append(b, "# EOF\n"...)
	}
	return b
}

// Gather returns every kept phase's figures as client_golang's metric
// families, for its protobuf encoder (families without series are left
// out, as client_golang leaves them).
func (r *Registry) Gather() ([]*dto.MetricFamily, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*dto.MetricFamily
	for _, f := range families {
		mf := &dto.MetricFamily{Name: new(f.name), Help: new(f.help), Type: f.typ.Enum()}
		for _, s := range r.seriesOf(f) {
			m := &dto.Metric{Label: s.pairs}
			switch f.typ {
			case dto.MetricType_COUNTER:
				m.Counter = &dto.Counter{Value: new(float64(s.count))}
			case dto.MetricType_HISTOGRAM:
				m.Histogram = nativeHistogram(*s.lat)
			default:
				m.Gauge = &dto.Gauge{Value: new(s.value)}
			}
			mf.Metric = append(mf.Metric, m)
		}
		if len(mf.Metric) > 0 {
			out = append(out, mf)
		}
	}
	return out, nil
}

// appendLatency appends one operation's classic buckets, sum and count.
func appendLatency(b []byte, labels string, l *record.LiveLat) []byte {
	var cum uint64
	j := 0
	for k, i := range classicIndex {
		cum, j = classicCount(l, i, cum, j)
		b = appendCount(b, NameLatency+"_bucket", labels, classicLe[k], cum)
	}
	b = appendCount(b, NameLatency+"_bucket", labels, `,le="+Inf"`, l.N)
	b = appendSample(b, NameLatency+"_sum", labels, "", l.SumNs/1e9)
	return appendCount(b, NameLatency+"_count", labels, "", l.N)
}

// appendSample appends one line with a float value.
func appendSample(b []byte, name, labels, more string, v float64) []byte {
	b = append(append(append(append(append(b, name...), '{'), labels...), more...), "} "...)
	return append(appendFloat(b, v), '\n')
}

// appendCount appends one line with a count.
func appendCount(b []byte, name, labels, more string, n uint64) []byte {
	b = append(append(append(append(append(b, name...), '{'), labels...), more...), "} "...)
	return append(strconv.AppendUint(b, n, 10), '\n')
}

// appendFloat writes v as OpenMetrics writes floats (a whole number
// keeps its ".0"), which Prometheus' text format reads as well: a le
// label is then the same string in every format.
func appendFloat(b []byte, v float64) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	case math.IsNaN(v):
		return append(b, "NaN"...)
	}
	start := len(b)
	b = strconv.AppendFloat(b, v, 'g', -1, 64)
	if !bytes.ContainsAny(b[start:], ".e") {
		b = append(b, ".0"...)
	}
	return b
}

// classicLe are the le label pairs of ClassicBounds.
var classicLe = func() []string {
	out := make([]string, len(ClassicBounds))
	for k, bound := range ClassicBounds {
		out[k] = `,le="` + string(appendFloat(nil, bound)) + `"`
	}
	return out
}()

// labelPairs returns name="value" pairs, escaped as the text formats
// want (backslash, double quote and newline).
func labelPairs(kv ...string) string {
	var b []byte
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(b, kv[i]...), `="`...)
		b = append(append(b, labelEscaper.Replace(kv[i+1])...), '"')
	}
	return string(b)
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// dtoPairs returns the same pairs for client_golang.
func dtoPairs(kv ...string) []*dto.LabelPair {
	out := make([]*dto.LabelPair, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, &dto.LabelPair{Name: new(kv[i]), Value: new(kv[i+1])})
	}
	return out
}

// validUTF8 mends a name that is not UTF-8: Prometheus refuses such a
// label value, and client_golang panics on one.
func validUTF8(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// textBuffers are the buffers text scrapes are written into.
var textBuffers = sync.Pool{New: func() any { return new([]byte) }}

// offered are the formats a scrape may get, in this order of preference
// when the scraper likes several equally.
var offered = []expfmt.Format{expfmt.FmtProtoDelim, expfmt.FmtOpenMetrics_1_0_0, expfmt.FmtOpenMetrics_0_0_1, expfmt.FmtText}

// scrapeHandler serves r: the text formats written here, protobuf through
// proto (client_golang).
func scrapeHandler(r *Registry, proto http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		format := expfmt.NegotiateAccept(req.Header, offered...)
		om := false
		switch format.FormatType() {
		case expfmt.TypeProtoDelim:
			proto.ServeHTTP(w, req)
			return
		case expfmt.TypeOpenMetrics:
			om = true
		default:
			format = expfmt.FmtText
		}
		bp := textBuffers.Get().(*[]byte)
		*bp = r.appendText((*bp)[:0], om)
		w.Header().Set("Content-Type", string(format))
		w.Header().Set("Content-Length", strconv.Itoa(len(*bp)))
		if req.Method != http.MethodHead {
			_, _ = w.Write(*bp)
		}
		textBuffers.Put(bp)
	})
}
