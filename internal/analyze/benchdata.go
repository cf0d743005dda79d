package analyze

import (
	"bytes"
	"io"
	"sort"

	"github.com/klauspost/compress/zstd"

	"github.com/storbench/storbench/internal/record"
)

// BenchData is what a benchdata file says about a run, recomputed from
// every request: the same figures a live run records, so the same reports
// render from either.
type BenchData struct {
	// Requests is the number of request lines read.
	Requests uint64
	// Ops are per-operation statistics; each window runs from the first
	// request's start to the last one's end.
	Ops []record.OpStats
	// PerEndpoint holds the same per endpoint.
	PerEndpoint map[string][]record.OpStats
	// Series counts requests by the second (Unix) in which they ended.
	Series []record.Second
}

// the columns analyze needs, by header name.
var benchCols = []string{"op", "endpoint", "start_unix_ns", "ttfb_ns", "latency_ns", "bytes", "error"}

type opAcc struct {
	name       string
	rec        *record.Recorder
	start, end int64
	sawRequest bool
	perEP      map[string]*record.Recorder
	epStart    map[string][2]int64 // endpoint -> window
	epOrder    []string
	secs       map[int64]*record.Second
}

// ReadBenchData streams a zstd-compressed benchdata TSV (as the s3 engine
// writes it) and computes its statistics. Memory is bounded by the number of
// operations, endpoints, error kinds and seconds, never by the number of
// requests: each line is parsed in place and recorded into histograms.
func ReadBenchData(r io.Reader) (*BenchData, error) {
	zr, err := zstd.NewReader(r, zstd.WithDecoderLowmem(true), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return readTSV(zr)
}

func readTSV(r io.Reader) (*BenchData, error) {
	ops := map[string]*opAcc{}
	var order []string
	intern := map[string]string{}
	str := func(b []byte) string {
		if s, ok := intern[string(b)]; ok {
			return s
		}
		s := string(b)
		intern[s] = s
		return s
	}
	out := &BenchData{}
	_, err := scanTSV(r, func(l *benchLine) {
		a := ops[string(l.op)]
		if a == nil {
			name := str(l.op)
			a = &opAcc{name: name, rec: record.NewRecorder([]string{name}, true), perEP: map[string]*record.Recorder{},
				epStart: map[string][2]int64{}, secs: map[int64]*record.Second{}}
			ops[name] = a
			order = append(order, name)
		}
		var errKind string
		if len(l.errKind) > 0 {
			errKind = str(l.errKind)
		}
		a.add(l, str(l.endpoint), errKind)
		out.Requests++
	})
	if err != nil {
		return nil, err
	}
	out.PerEndpoint = map[string][]record.OpStats{}
	for _, name := range order {
		ops[name].addTo(out)
	}
	sort.SliceStable(out.Series, func(i, j int) bool { return out.Series[i].StartNs < out.Series[j].StartNs })
	return out, nil
}

// add records one request of the operation, from endpoint ep; errKind is
// its error ("" when it succeeded).
func (a *opAcc) add(l *benchLine, ep, errKind string) {
	start, ttfb, lat, nbytes := l.start, l.ttfb, l.lat, l.n
	er := a.perEP[ep]
	if er == nil {
		er = record.NewRecorder([]string{a.name}, true)
		a.perEP[ep] = er
		a.epOrder = append(a.epOrder, ep)
		a.epStart[ep] = [2]int64{start, start + lat}
	}
	w := a.epStart[ep]
	if start < w[0] || start+lat > w[1] {
		a.epStart[ep] = [2]int64{min(w[0], start), max(w[1], start+lat)}
	}
	if !a.sawRequest || start < a.start {
		a.start = start
	}
	if !a.sawRequest || start+lat > a.end {
		a.end = start + lat
	}
	a.sawRequest = true
	sec := (start + lat) / 1e9
	s := a.secs[sec]
	if s == nil {
		s = &record.Second{StartNs: sec * 1e9, EndNs: (sec + 1) * 1e9, Op: a.name}
		a.secs[sec] = s
	}
	if errKind != "" {
		a.rec.Op(0).RecordError(errKind)
		er.Op(0).RecordError(errKind)
		s.Errors++
		return
	}
	for _, rr := range [2]*record.Recorder{a.rec, er} {
		o := rr.Op(0)
		o.Record(lat, nbytes)
		if ttfb > 0 {
			o.RecordTTFB(ttfb)
		}
	}
	s.Ops++
	s.Bytes += uint64(max(nbytes, 0))
}

// addTo adds the operation's statistics, per endpoint and per second, to
// out.
func (a *opAcc) addTo(out *BenchData) {
	st := a.rec.Stats(0, a.name)
	st.StartNs, st.EndNs = a.start, a.end
	out.Ops = append(out.Ops, st)
	for _, ep := range a.epOrder {
		es := a.perEP[ep].Stats(0, a.name)
		w := a.epStart[ep]
		es.StartNs, es.EndNs = w[0], w[1]
		out.PerEndpoint[ep] = append(out.PerEndpoint[ep], es)
	}
	for _, s := range a.secs {
		out.Series = append(out.Series, *s)
	}
}

func headerIndex(h []byte) ([]int, int, error) {
	names := bytes.Split(h, []byte{'\t'})
	idx := make([]int, len(benchCols))
	for k, want := range benchCols {
		idx[k] = -1
		for i, n := range names {
			if string(n) == want {
				idx[k] = i
			}
		}
		if idx[k] < 0 {
			return nil, 0, ErrNotRequests
		}
	}
	return idx, len(names), nil
}

// splitTabs splits b at tabs into fields without allocating and returns the
// number of fields (which may exceed len(fields); extra ones are dropped).
func splitTabs(b []byte, fields [][]byte) int {
	n := 0
	for {
		i := bytes.IndexByte(b, '\t')
		if i < 0 {
			if n < len(fields) {
				fields[n] = b
			}
			return n + 1
		}
		if n < len(fields) {
			fields[n] = b[:i]
		}
		n++
		b = b[i+1:]
	}
}

func atoi(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}
