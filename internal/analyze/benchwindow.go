package analyze

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
)

// benchLine is one parsed request of a benchdata file; its byte slices
// point into the scanner's buffer and are valid until the next line.
type benchLine struct {
	op, endpoint, errKind []byte
	worker                int64
	start, ttfb, lat, n   int64
}

// scanBenchData calls fn for every request line of a zstd benchdata file.
// It allocates nothing per line.
func scanBenchData(path string, fn func(*benchLine)) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	// Two decoder goroutines let decompression overlap with parsing;
	// memory stays a few window sizes.
	zr, err := zstd.NewReader(bufio.NewReaderSize(f, 1<<20), zstd.WithDecoderConcurrency(2))
	if err != nil {
		return 0, fmt.Errorf("%s: %v", path, err)
	}
	defer zr.Close()
	return scanTSV(zr, fn)
}

func scanTSV(r io.Reader, fn func(*benchLine)) (uint64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 256<<10), 1<<20)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return 0, fmt.Errorf("benchdata: %v", err)
		}
		return 0, fmt.Errorf("benchdata: empty file")
	}
	idx, ncol, err := headerIndex(sc.Bytes())
	if err != nil {
		return 0, err
	}
	wcol := -1
	for i, n := range bytes.Split(sc.Bytes(), []byte{'\t'}) {
		if string(n) == "worker" {
			wcol = i
		}
	}
	fields := make([][]byte, ncol)
	var l benchLine
	var n uint64
	line := uint64(1)
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		if k := splitTabs(b, fields); k != ncol {
			return n, fmt.Errorf("benchdata line %d: %d fields, the header has %d", line, k, ncol)
		}
		var nums [4]int64
		for k, col := range [4]int{idx[2], idx[3], idx[4], idx[5]} {
			v, ok := atoi(fields[col])
			if !ok {
				return n, fmt.Errorf("benchdata line %d: %q is not a number", line, fields[col])
			}
			nums[k] = v
		}
		l.start, l.ttfb, l.lat, l.n = nums[0], nums[1], nums[2], nums[3]
		l.op, l.endpoint, l.errKind = fields[idx[0]], fields[idx[1]], fields[idx[6]]
		l.worker = 0
		if wcol >= 0 {
			l.worker, _ = atoi(fields[wcol])
		}
		fn(&l)
		n++
	}
	if err := sc.Err(); err != nil {
		return n, fmt.Errorf("benchdata line %d: %v", line+1, err)
	}
	return n, nil
}

// workerSpan is what the first pass keeps per worker: the end of its first
// request and the start of its last.
type workerSpan struct{ firstEnd, lastStart int64 }

type benchOp struct {
	name    string
	workers map[int64]*workerSpan
	ws, we  int64
	total   *segAcc
	rec     *record.Recorder
	eps     map[string]*benchEP
	epOrder []string
	kinds   map[string]uint64
	first   int64 // first request start, for ordering
}

type benchEP struct {
	acc *segAcc
	rec *record.Recorder
}

// AnalyzeBenchData analyses a benchdata file in two streaming passes. The
// first finds each operation's window as warp defines it: from the moment
// every worker has completed one request to the moment the first worker
// starts its last one, then moved by --skip. The second spreads every
// request over the window's segments and records the latency of those
// started in the window into histograms. Memory is bounded by operations,
// endpoints, workers and segments, never by the number of requests.
func AnalyzeBenchData(path string, o Options) (*Analysis, error) {
	ops := map[string]*benchOp{}
	var order []string
	keepHost := func(ep []byte) bool { return o.Host == "" || string(ep) == o.Host }
	n, err := scanBenchData(path, func(l *benchLine) {
		if !o.keepOp(string(l.op)) || !keepHost(l.endpoint) {
			return
		}
		b := ops[string(l.op)]
		if b == nil {
			b = &benchOp{name: string(l.op), workers: map[int64]*workerSpan{}, first: l.start}
			ops[b.name] = b
			order = append(order, b.name)
		}
		b.first = min(b.first, l.start)
		w := b.workers[l.worker]
		end := l.start + l.lat
		if w == nil {
			b.workers[l.worker] = &workerSpan{firstEnd: end, lastStart: l.start}
			return
		}
		w.firstEnd = min(w.firstEnd, end)
		w.lastStart = max(w.lastStart, l.start)
	})
	if err != nil {
		return nil, err
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("%s: %w (no requests match --op/--host)", path, ErrNoData)
	}
	for _, b := range ops {
		first := true
		for _, w := range b.workers {
			if first {
				b.ws, b.we = w.firstEnd, w.lastStart
				first = false
				continue
			}
			b.ws, b.we = max(b.ws, w.firstEnd), min(b.we, w.lastStart)
		}
		b.ws += int64(o.Skip)
		if b.we < b.ws {
			b.we = b.ws
		}
		b.workers = nil
		b.total = newSegAcc(b.ws, b.we, o.segment())
		b.rec = record.NewRecorder([]string{b.name}, true)
		b.eps = map[string]*benchEP{}
		b.kinds = map[string]uint64{}
	}
	intern := map[string]string{}
	_, err = scanBenchData(path, func(l *benchLine) {
		if !o.keepOp(string(l.op)) || !keepHost(l.endpoint) {
			return
		}
		b := ops[string(l.op)]
		ep := b.eps[string(l.endpoint)]
		if ep == nil {
			name, ok := intern[string(l.endpoint)]
			if !ok {
				name = string(l.endpoint)
				intern[name] = name
			}
			ep = &benchEP{acc: newSegAcc(b.ws, b.we, o.segment()), rec: record.NewRecorder([]string{b.name}, true)}
			b.eps[name] = ep
			b.epOrder = append(b.epOrder, name)
		}
		failed := len(l.errKind) > 0
		end := l.start + l.lat
		nb := float64(max(l.n, 0))
		for _, a := range [2]*segAcc{b.total, ep.acc} {
			a.request(l.start, end, nb, failed)
			if ov := min(end, a.end) - max(l.start, a.start); ov > 0 && !failed {
				f := 1.0
				if end > l.start {
					f = float64(ov) / float64(end-l.start)
				}
				a.inBytes += f * nb
				a.inOps += f
			} else if end == l.start && !failed && l.start >= a.start && l.start < a.end {
				a.inBytes += nb
				a.inOps++
			}
			if failed && end >= a.start && end < a.end {
				a.inErrs++
			}
		}
		if l.start < b.ws || l.start >= b.we {
			return
		}
		for _, r := range [2]*record.Recorder{b.rec, ep.rec} {
			op := r.Op(0)
			if failed {
				if r == b.rec {
					k, ok := intern[string(l.errKind)]
					if !ok {
						k = string(l.errKind)
						intern[k] = k
					}
					b.kinds[k]++
				}
				continue
			}
			op.Record(l.lat, l.n)
			if l.ttfb > 0 {
				op.RecordTTFB(l.ttfb)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	name := filepath.Base(path)
	a := &Analysis{Source: name, Kind: "benchdata", Name: strings.TrimSuffix(name, ".tsv.zst"), Requests: n, Options: o.record()}
	pa := PhaseAnalysis{Name: a.Name, Engine: model.EngineS3, LatencyScope: "window"}
	sort.SliceStable(order, func(i, j int) bool { return ops[order[i]].first < ops[order[j]].first })
	hostOps := map[string][]OpAnalysis{}
	var hostOrder []string
	for _, name := range order {
		b := ops[name]
		oa := benchOpAnalysis(b.name, b.ws, b.we, b.total, b.rec, b.kinds)
		rows := b.total.rows(b.name, o.Host, true)
		oa.Segments = segmentStats(rows)
		pa.Ops = append(pa.Ops, oa)
		pa.Rows = append(pa.Rows, rows...)
		sort.Strings(b.epOrder)
		for _, ep := range b.epOrder {
			e := b.eps[ep]
			ha := benchOpAnalysis(b.name, b.ws, b.we, e.acc, e.rec, nil)
			ha.Segments = segmentStats(e.acc.rows(b.name, ep, true))
			if _, ok := hostOps[ep]; !ok {
				hostOrder = append(hostOrder, ep)
			}
			hostOps[ep] = append(hostOps[ep], ha)
		}
	}
	sort.Strings(hostOrder)
	pa.Hosts = hostOrder
	if len(hostOrder) > 1 {
		for _, h := range hostOrder {
			pa.PerHost = append(pa.PerHost, HostAnalysis{Host: h, Ops: hostOps[h]})
		}
	}
	a.Phases = []PhaseAnalysis{pa}
	return a, nil
}

func benchOpAnalysis(name string, ws, we int64, acc *segAcc, rec *record.Recorder, kinds map[string]uint64) OpAnalysis {
	st := rec.Stats(0, name)
	oa := OpAnalysis{Op: name, Window: results.Window{StartNs: ws, EndNs: we, DurationS: float64(we-ws) / 1e9},
		Ops: acc.inOps, Bytes: acc.inBytes, Errors: acc.inErrs, Requests: st.Ops, Lat: results.LatencyOf(st.Lat), Bins: st.Lat.Bins}
	if len(kinds) > 0 {
		oa.ErrorKinds = kinds
	}
	if st.TTFB != nil {
		oa.TTFB = results.LatencyOf(*st.TTFB)
	}
	oa.BwBytesPerS, oa.OpsPerS = results.WindowRates([2]float64{acc.inBytes, acc.inOps}, st.Bytes, oa.Window.DurationS)
	return oa
}
