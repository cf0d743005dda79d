package analyze

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/infile"
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

// requestFormat is the tool that wrote a file of requests, told by its
// header line, never by the file's name.
type requestFormat int

const (
	// formatBenchData is storbench's s3 benchdata (s3 --benchdata, --full).
	formatBenchData requestFormat = iota + 1
	// formatWarp is warp's benchmark data (warp --benchdata).
	formatWarp
)

// ErrNotRequests is returned for a file that is neither storbench's s3
// benchdata nor warp's benchmark data.
var ErrNotRequests = errors.New("neither a storbench s3 benchdata file nor a warp benchmark data file (its first line is not the header of either)")

var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// scanBenchData calls fn for every request of a file of requests (zstd
// compressed or not) and says which format it is. It allocates nothing per
// line. Errors name the file.
func scanBenchData(path string, fn func(*benchLine)) (requestFormat, uint64, error) {
	f, err := infile.Open("", path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	br := bufio.NewReaderSize(f, 1<<20)
	var r io.Reader = br
	if magic, _ := br.Peek(len(zstdMagic)); bytes.Equal(magic, zstdMagic) {
		// Two decoder goroutines let decompression overlap with parsing;
		// memory stays a few window sizes. What it decompresses to is
		// bounded by its size (a zstd bomb is refused, not read for
		// hours), and so by what the requests it can hold could fill.
		limit := max(fi.Size(), 1<<20) * infile.ZstdRatio
		zr, err := infile.ZstdReader(path, br, limit, 2)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %v", path, err)
		}
		defer zr.Close()
		r = zr
	}
	format, n, err := scanRequests(r, fn)
	if infile.IsRefusal(err) {
		return format, n, err
	}
	if err != nil {
		return format, n, fmt.Errorf("%s: %w", path, err)
	}
	return format, n, nil
}

func scanTSV(r io.Reader, fn func(*benchLine)) (uint64, error) {
	_, n, err := scanRequests(r, fn)
	return n, err
}

// scanRequests reads the header line, tells the format from it, and calls
// fn for every request line.
func scanRequests(r io.Reader, fn func(*benchLine)) (requestFormat, uint64, error) {
	sc := bufio.NewScanner(r)
	line := uint64(0)
	format, n, err := scanLines(sc, &line, fn)
	// A read error ends the scan with the partial last line as a token,
	// which then fails to parse: the read error is the one to tell.
	if rerr := sc.Err(); rerr != nil {
		return format, n, readErr(line, rerr)
	}
	return format, n, err
}

func scanLines(sc *bufio.Scanner, line *uint64, fn func(*benchLine)) (requestFormat, uint64, error) {
	sc.Buffer(make([]byte, 256<<10), 1<<20)
	*line = 1
	if !sc.Scan() {
		return 0, 0, errors.New("empty file (no header line)")
	}
	if wh, ok := warpHeaderIndex(sc.Bytes()); ok {
		n, err := newWarpScanner(wh).scan(sc, line, fn)
		return formatWarp, n, err
	}
	idx, ncol, err := headerIndex(sc.Bytes())
	if err != nil {
		return 0, 0, err
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
	for sc.Scan() {
		*line++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		if k := splitTabs(b, fields); k != ncol {
			return formatBenchData, n, fmt.Errorf("line %d: %d fields, the header has %d", *line, k, ncol)
		}
		var nums [4]int64
		for k, col := range [4]int{idx[2], idx[3], idx[4], idx[5]} {
			v, ok := atoi(fields[col])
			if !ok {
				return formatBenchData, n, fmt.Errorf("line %d: %q is not a number", *line, fields[col])
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
	return formatBenchData, n, nil
}

// readErr says where reading stopped; a file cut short ends in the middle
// of a compressed block.
func readErr(line uint64, err error) error {
	if infile.IsRefusal(err) {
		return err // it names the file and why
	}
	if errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("line %d is longer than 1 MiB, which no request's line is: not a benchdata file, or a damaged one", line)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("line %d: %v: the file is cut short or damaged", line, err)
	}
	return fmt.Errorf("line %d: %v", line, err)
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
	last    int64 // last request end
	// tooShort: a warp file's operation too short for warp's cut.
	tooShort bool
}

// maxErrorKinds bounds the error kinds kept per operation; a file whose
// error texts all differ (warp's name the object) counts the rest as one.
const maxErrorKinds = 32

// otherErrors is the kind of the errors past maxErrorKinds.
const otherErrors = "other errors"

type benchEP struct {
	acc *segAcc
	rec *record.Recorder
}

// AnalyzeBenchData analyses a file of requests, storbench's s3 benchdata or
// warp's benchmark data (told apart by the header line), in two streaming
// passes. The first finds each operation's window as warp defines it: from
// the moment every worker has completed one request to the moment the
// first worker starts its last one, then moved by --skip. A warp file's
// window is cut further as warp analyze cuts it (see warpCut), so its
// figures are the ones warp printed for it. The second pass spreads every
// request over the window's segments and records latency into histograms:
// of the requests started in the window, or for a warp file of every
// request, as warp reports it. Memory is bounded by operations, endpoints,
// workers and segments, never by the number of requests.
func AnalyzeBenchData(path string, o Options) (*Analysis, error) {
	ops := map[string]*benchOp{}
	var order []string
	keepHost := func(ep []byte) bool { return o.Host == "" || string(ep) == o.Host }
	format, n, err := scanBenchData(path, func(l *benchLine) {
		if !o.keepOp(string(l.op)) || !keepHost(l.endpoint) {
			return
		}
		b := ops[string(l.op)]
		if b == nil {
			b = &benchOp{name: string(l.op), workers: map[int64]*workerSpan{}, first: l.start, last: l.start + l.lat}
			ops[b.name] = b
			order = append(order, b.name)
		}
		b.see(l)
	})
	if err != nil {
		return nil, err
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("%s: %w (no requests match --op/--host)", path, ErrNoData)
	}
	left := false // some operation has time left after --skip
	for _, b := range ops {
		if b.setWindow(format == formatWarp, o) {
			left = true
		}
	}
	if o.Skip > 0 && !left {
		return nil, fmt.Errorf("%s: %w: --skip %s leaves no time in which every worker was running", path, ErrNoData, o.Skip)
	}
	intern := map[string]string{}
	allLatency, seg := format == formatWarp, o.segment()
	_, _, err = scanBenchData(path, func(l *benchLine) {
		if !o.keepOp(string(l.op)) || !keepHost(l.endpoint) {
			return
		}
		ops[string(l.op)].add(l, intern, allLatency, seg)
	})
	if err != nil {
		return nil, err
	}
	return benchAnalysis(path, format, n, o, ops, order), nil
}

// see takes in a request of the first pass: the operation's span and its
// worker's first end and last start.
func (b *benchOp) see(l *benchLine) {
	b.first = min(b.first, l.start)
	end := l.start + l.lat
	b.last = max(b.last, end)
	w := b.workers[l.worker]
	if w == nil {
		b.workers[l.worker] = &workerSpan{firstEnd: end, lastStart: l.start}
		return
	}
	w.firstEnd = min(w.firstEnd, end)
	w.lastStart = max(w.lastStart, l.start)
}

// setWindow sets the operation's window from its workers' spans (cut as
// warp cuts it for a warp file), moved by --skip, and readies the second
// pass; it says whether time is left in it.
func (b *benchOp) setWindow(warp bool, o Options) bool {
	first := true
	for _, w := range b.workers {
		if first {
			b.ws, b.we = w.firstEnd, w.lastStart
			first = false
			continue
		}
		b.ws, b.we = max(b.ws, w.firstEnd), min(b.we, w.lastStart)
	}
	if warp {
		cs, ce, ok := warpCut(b.first, b.last)
		b.ws, b.we, b.tooShort = max(b.ws, cs), min(b.we, ce), !ok
		if !ok {
			b.ws, b.we = cs, cs
		}
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
	return b.we > b.ws
}

// add takes in a request of the second pass: its share of every segment,
// and its latency (of a request started in the window, or of every request
// with allLatency) or its error kind.
func (b *benchOp) add(l *benchLine, intern map[string]string, allLatency bool, segment time.Duration) {
	ep := b.eps[string(l.endpoint)]
	if ep == nil {
		name, ok := intern[string(l.endpoint)]
		if !ok {
			name = string(l.endpoint)
			intern[name] = name
		}
		ep = &benchEP{acc: newSegAcc(b.ws, b.we, segment), rec: record.NewRecorder([]string{b.name}, true)}
		b.eps[name] = ep
		b.epOrder = append(b.epOrder, name)
	}
	failed := len(l.errKind) > 0
	end := l.start + l.lat
	nb := float64(max(l.n, 0))
	for _, a := range [2]*segAcc{b.total, ep.acc} {
		a.takeRequest(l.start, end, nb, failed)
	}
	if !allLatency && (l.start < b.ws || l.start >= b.we) {
		return
	}
	if failed {
		b.addErrorKind(l.errKind, intern)
		return
	}
	for _, r := range [2]*record.Recorder{b.rec, ep.rec} {
		op := r.Op(0)
		op.Record(l.lat, l.n)
		if l.ttfb > 0 {
			op.RecordTTFB(l.ttfb)
		}
	}
}

// addErrorKind counts a failed request's error kind; past maxErrorKinds
// kinds, a new one counts as otherErrors.
func (b *benchOp) addErrorKind(kind []byte, intern map[string]string) {
	k, ok := intern[string(kind)]
	switch {
	case ok && b.kinds[k] > 0:
	case len(b.kinds) >= maxErrorKinds:
		k = otherErrors
	case !ok:
		k = string(kind)
		intern[k] = k
	}
	b.kinds[k]++
}

// takeRequest adds a request from start to end (ns) of nb bytes to the
// segments and to the window's totals: its share of bytes and of the
// operation by the part of it inside the window, an error when it ended
// inside.
func (a *segAcc) takeRequest(start, end int64, nb float64, failed bool) {
	a.request(start, end, nb, failed)
	if ov := min(end, a.end) - max(start, a.start); ov > 0 && !failed {
		f := 1.0
		if end > start {
			f = float64(ov) / float64(end-start)
		}
		a.inBytes += f * nb
		a.inOps += f
	} else if end == start && !failed && start >= a.start && start < a.end {
		a.inBytes += nb
		a.inOps++
	}
	if failed && end >= a.start && end < a.end {
		a.inErrs++
	}
}

// benchAnalysis is the analysis of the file at path once both passes
// took in its requests.
func benchAnalysis(path string, format requestFormat, n uint64, o Options, ops map[string]*benchOp, order []string) *Analysis {
	name := filepath.Base(path)
	a := &Analysis{Source: name, Kind: "benchdata", Name: strings.TrimSuffix(name, ".tsv.zst"), Requests: n, Options: o.record()}
	pa := PhaseAnalysis{Name: a.Name, Engine: model.EngineS3, Formats: []string{model.FormatWarp}, LatencyScope: "window"}
	if format == formatWarp {
		a.Kind, a.Name = "warp", strings.TrimSuffix(strings.TrimSuffix(name, ".zst"), ".csv")
		pa.Name, pa.LatencyScope = a.Name, "phase"
		pa.Notes = append(pa.Notes, "a warp file: each operation's window is cut as warp analyze cuts it (whole seconds, the first and last 2 s dropped) within the time every client thread ran; latency covers every request, as warp's does")
		if o.Skip > 0 {
			pa.Notes = append(pa.Notes, "--skip narrows throughput only: latency covers every request of a warp file")
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return ops[order[i]].first < ops[order[j]].first })
	pa.addOps(ops, order, o.Host)
	a.Phases = []PhaseAnalysis{pa}
	return a
}

// addOps adds every operation's figures, of all hosts and of each, to the
// phase, operations in order.
func (pa *PhaseAnalysis) addOps(ops map[string]*benchOp, order []string, host string) {
	hostOps := map[string][]OpAnalysis{}
	var hostOrder []string
	for _, name := range order {
		b := ops[name]
		oa := benchOpAnalysis(b.name, b.ws, b.we, b.total, b.rec, b.kinds)
		if b.tooShort {
			// No window: the operation's count, without a rate.
			oa.Ops, oa.Bytes = float64(oa.Requests), float64(b.rec.Stats(0, b.name).Bytes)
			pa.Notes = append(pa.Notes, fmt.Sprintf("%s: its requests span %s, too short for warp's cut (2 s dropped at each end, at least 2 s left): no rate, as warp analyze gives none (\"too few samples\")",
				b.name, time.Duration(b.last-b.first).Round(time.Millisecond)))
		}
		rows := b.total.rows(b.name, host, true)
		oa.Segments = segmentStats(rows)
		pa.Ops = append(pa.Ops, oa)
		pa.Rows = append(pa.Rows, rows...)
		sort.Strings(b.epOrder)
		for _, ep := range b.epOrder {
			e := b.eps[ep]
			ha := benchOpAnalysis(b.name, b.ws, b.we, e.acc, e.rec, nil)
			if b.tooShort {
				ha.Ops, ha.Bytes = float64(ha.Requests), float64(e.rec.Stats(0, b.name).Bytes)
			}
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
