package metrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/sink"
)

// LiveLine is one line of the --live stream: what one host (or, with
// Total, every host together) did in its last second. Rates are over the
// host's own clock between two snapshots; latency percentiles come from
// the second's histogram (record.LiveSchema: within 2.2%) and are absent
// when no operation completed in it. On s3 and md, latency trails the
// counts by up to a second (see engine.Snapshot.Lat).
type LiveLine struct {
	Time  time.Time `json:"time"`
	Run   string    `json:"run"`
	Phase string    `json:"phase"`
	// Host names the host; empty on the total's line.
	Host string `json:"host,omitempty"`
	// Total marks the line of all hosts, and Hosts counts them: the
	// hosts' lines of one second, added.
	Total bool `json:"total,omitempty"`
	Hosts int  `json:"hosts,omitempty"`
	// Stage is the engine's stage ("run"; md: "create", "stat", ...).
	Stage string `json:"stage,omitempty"`
	// ElapsedS is when the line's interval ended, seconds since the phase
	// started (on the hosts' clocks; a total's: the latest of its hosts'
	// lines, the phase's last on the controller's), and IntervalS how long
	// the interval was: about a second, longer when a host's seconds
	// arrived merged (a total's: the longest of its hosts'), shorter for
	// the last, partial second.
	ElapsedS  float64 `json:"elapsed_s"`
	IntervalS float64 `json:"interval_s"`
	LiveFigures
	// Ops are the same figures per operation.
	Ops []LiveOp `json:"ops"`
}

// LiveFigures are one second's figures.
type LiveFigures struct {
	// Count and Bytes are the operations and bytes done in the line's
	// interval: a host's lines add up to its totals.
	Count     uint64  `json:"count"`
	Bytes     uint64  `json:"bytes"`
	OpsPerS   float64 `json:"ops_per_s"`
	BytesPerS float64 `json:"bytes_per_s"`
	Errors    uint64  `json:"errors"`
	P50Ns     *int64  `json:"p50_ns,omitempty"`
	P99Ns     *int64  `json:"p99_ns,omitempty"`
	P999Ns    *int64  `json:"p999_ns,omitempty"`
}

// LiveOp is one operation's figures in a LiveLine.
type LiveOp struct {
	Op string `json:"op"`
	LiveFigures
}

// liveQueue is how many seconds of lines wait for a slow reader before
// lines are dropped: the run never waits for the stream.
const liveQueue = 64

// Live is the Sink that writes the --live stream. Lines are written by a
// goroutine of their own, one write per second, so a reader that stalls
// never stalls the run; lines it could not take in time are dropped and
// counted.
type Live struct {
	// Open opens the stream when the run starts (after its checks, so bad
	// input writes nothing).
	Open func() (io.WriteCloser, error)
	// Now is the clock of the lines' time (time.Now when nil).
	Now func() time.Time

	mu    sync.Mutex
	runID string
	phase string
	hosts map[string]*liveHost
	// tick holds the host lines since the last total lines; pending the
	// final call's lines, written with PhaseDone's; endElapsed is the
	// final call's elapsed time.
	tick       []tickLine
	pending    []byte
	endElapsed float64
	q          chan []byte
	done       chan struct{}
	err        error
	dropped    int
	// quoted holds the phase's names as JSON strings.
	quoted map[string][]byte
}

var _ sink.Sink = (*Live)(nil)

// liveHost is what the stream knows of one host in the current phase.
type liveHost struct {
	// prev is the latest snapshot taken in; have says there was one.
	prev engine.Snapshot
	have bool
	// lat is each operation's cumulative latency at prev, and secLat its
	// latency in the second of last.
	lat    map[string]record.LiveLat
	secLat map[string]record.LiveLat
}

// Started opens the stream.
func (l *Live) Started(runID, folder string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runID = runID
	w, err := l.Open()
	if err != nil {
		l.err = err
		return
	}
	l.q, l.done = make(chan []byte, liveQueue), make(chan struct{})
	go l.write(w, l.q, l.done)
}

// dropper is a stream's writer that drops what its reader does not take
// (PipeWriter), and counts those lines.
type dropper interface{ Dropped() int }

func (l *Live) write(w io.WriteCloser, q <-chan []byte, done chan<- struct{}) {
	defer close(done)
	if d, ok := w.(dropper); ok {
		defer func() {
			l.mu.Lock()
			l.dropped += d.Dropped()
			l.mu.Unlock()
		}()
	}
	for b := range q {
		if _, err := w.Write(b); err != nil {
			l.mu.Lock()
			if l.err == nil {
				l.err = err
			}
			l.mu.Unlock()
		}
	}
	if err := w.Close(); err != nil {
		l.mu.Lock()
		if l.err == nil {
			l.err = err
		}
		l.mu.Unlock()
	}
}

// closeWait bounds how long Close waits for a reader to take the last
// lines.
const closeWait = 5 * time.Second

// Close writes what is queued and closes the stream; it returns the first
// write error and how many lines a slow reader (or, on a FIFO, no reader)
// made it drop. A reader that takes nothing for closeWait is left behind.
func (l *Live) Close() (dropped int, err error) {
	l.mu.Lock()
	q, done := l.q, l.done
	l.q = nil
	l.mu.Unlock()
	if q != nil {
		close(q)
		select {
		case <-done:
		case <-time.After(closeWait):
			l.mu.Lock()
			if l.err == nil {
				l.err = errors.New("the reader took no line for 5s; the last lines are lost")
			}
			l.mu.Unlock()
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dropped, l.err
}

// PhaseStarted forgets the last phase's hosts.
func (l *Live) PhaseStarted(ph engine.Phase, hosts []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.phase, l.hosts, l.quoted = ph.Name, map[string]*liveHost{}, nil
	l.tick, l.pending, l.endElapsed = nil, nil, 0
}

// Progress writes a line for every second a host sent since the last
// call (each snapshot once, in the order they came), and a total line
// adding them. The final call's lines wait for PhaseDone, which adds what
// came after the last snapshot.
func (l *Live) Progress(p cluster.Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.q == nil {
		return
	}
	now := l.now()
	var out []byte
	// Seconds holds every snapshot since the last call; Hosts' latest ones
	// are already among them unless the caller collects none.
	for _, list := range [][]engine.Snapshot{p.Seconds, p.Hosts} {
		for _, s := range list {
			if s.Phase == "" {
				continue
			}
			h := l.hostOf(s.Host)
			if line := h.second(s); line != nil {
				line.Time, line.Run, line.Phase = now, l.runID, l.phase
				l.tick = append(l.tick, tickLine{line, h.secLat})
				out = l.appendLine(out, line)
			}
		}
	}
	if p.Final {
		l.pending = append(l.pending, out...)
		l.endElapsed = p.Elapsed.Seconds()
		return
	}
	for _, t := range l.totals(now, 0) {
		out = l.appendLine(out, t)
	}
	l.send(out)
}

func (l *Live) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// hostOf returns what the stream knows of host, made if new.
func (l *Live) hostOf(host string) *liveHost {
	h := l.hosts[host]
	if h == nil {
		h = &liveHost{lat: map[string]record.LiveLat{}}
		l.hosts[host] = h
	}
	return h
}

// send queues lines for the writer; a full queue drops them, counted.
func (l *Live) send(out []byte) {
	if len(out) == 0 {
		return
	}
	select {
	case l.q <- out:
	default:
		l.dropped += bytes.Count(out, []byte{'\n'})
	}
}

// appendLine appends line and a newline.
func (l *Live) appendLine(out []byte, line *LiveLine) []byte {
	return append(line.appendJSON(out, l.quote), '\n')
}

// quote returns s as a JSON string, remembered: the names a stream
// writes (run, phase, hosts, operations, stages) come back every second.
func (l *Live) quote(s string) []byte {
	q, ok := l.quoted[s]
	if !ok {
		q, _ = json.Marshal(s)
		if l.quoted == nil {
			l.quoted = map[string][]byte{}
		}
		l.quoted[s] = q
	}
	return q
}

// second returns the host's figures between its previous snapshot (at
// first, the phase's start: counts are cumulative from it) and s, or nil
// when s is not newer.
func (h *liveHost) second(s engine.Snapshot) *LiveLine {
	prev := h.prev
	if s.Elapsed <= prev.Elapsed {
		if !h.have && s.Elapsed == 0 {
			h.prev, h.have = s, true // the start: counts are zero
		}
		return nil
	}
	h.prev, h.have = s, true
	lats := map[string]record.LiveLat{}
	for _, lt := range s.Lat {
		lats[lt.Op] = lt.Sub(h.lat[lt.Op])
		h.lat[lt.Op] = lt
	}
	h.secLat = lats
	return h.line(s.Host, s.Stage, s.Elapsed.Seconds(), prev.Elapsed.Seconds(), prev.Ops, s.Ops, lats)
}

// line returns the figures from the counts before (at elapsed from) to
// the counts now (at elapsed to), with the interval's latencies.
func (h *liveHost) line(host, stage string, to, from float64, before, now []record.Count, lats map[string]record.LiveLat) *LiveLine {
	dt := to - from
	line := &LiveLine{Host: host, Stage: stage, ElapsedS: to, IntervalS: dt}
	var all record.LiveLat
	for _, c := range now {
		var b record.Count
		if i := slices.IndexFunc(before, func(x record.Count) bool { return x.Op == c.Op }); i >= 0 {
			b = before[i]
		}
		if c.Ops < b.Ops || c.Bytes < b.Bytes || c.Errors < b.Errors {
			b = record.Count{} // counters went back: a new start
		}
		op := LiveOp{Op: c.Op, LiveFigures: LiveFigures{Count: c.Ops - b.Ops, Bytes: c.Bytes - b.Bytes,
			OpsPerS: float64(c.Ops-b.Ops) / dt, BytesPerS: float64(c.Bytes-b.Bytes) / dt, Errors: c.Errors - b.Errors}}
		op.percentiles(lats[c.Op])
		all = all.Add(lats[c.Op])
		line.Ops = append(line.Ops, op)
		line.Count += op.Count
		line.Bytes += op.Bytes
		line.OpsPerS += op.OpsPerS
		line.BytesPerS += op.BytesPerS
		line.Errors += op.Errors
	}
	line.percentiles(all)
	return line
}

// tickLine is a host line written since the last total, with its
// interval's latencies.
type tickLine struct {
	line *LiveLine
	lats map[string]record.LiveLat
}

// totals are the total lines of the host lines written since the last
// ones, one per second: the host lines of a second (their elapsed time,
// on the hosts' clocks, rounded to a whole second) added, each host's
// rate over its own interval, and the total's interval the longest of
// theirs. Seconds a host sent late, in one call, make one total each, not
// one total over two seconds that says one. last is the controller's
// elapsed time of a phase's end (0 before): the final total ends there.
func (l *Live) totals(now time.Time, last float64) []*LiveLine {
	if len(l.tick) == 0 {
		return nil
	}
	bySecond := map[float64][]tickLine{}
	var seconds []float64
	for _, tl := range l.tick {
		k := math.Round(tl.line.ElapsedS)
		if _, ok := bySecond[k]; !ok {
			seconds = append(seconds, k)
		}
		bySecond[k] = append(bySecond[k], tl)
	}
	l.tick = l.tick[:0]
	sort.Float64s(seconds)
	var out []*LiveLine
	for _, k := range seconds {
		out = append(out, l.total(now, bySecond[k]))
	}
	if last > 0 {
		t := out[len(out)-1]
		t.ElapsedS = max(t.ElapsedS, last)
	}
	return out
}

// total adds the host lines of one second: counts added, each host's
// rates over its own interval (the sum of its lines'), added.
func (l *Live) total(now time.Time, lines []tickLine) *LiveLine {
	t := &LiveLine{Time: now, Run: l.runID, Phase: l.phase, Total: true}
	interval := map[string]float64{}
	for _, tl := range lines {
		if _, ok := interval[tl.line.Host]; !ok {
			t.Hosts++
		}
		interval[tl.line.Host] += tl.line.IntervalS
		t.Stage = tl.line.Stage
		t.ElapsedS = max(t.ElapsedS, tl.line.ElapsedS)
	}
	for _, dt := range interval {
		t.IntervalS = max(t.IntervalS, dt)
	}
	ops := map[string]*LiveOp{}
	var order []string
	lats := map[string]record.LiveLat{}
	var all record.LiveLat
	for _, tl := range lines {
		dt := interval[tl.line.Host]
		for _, o := range tl.line.Ops {
			x := ops[o.Op]
			if x == nil {
				x = &LiveOp{Op: o.Op}
				ops[o.Op] = x
				order = append(order, o.Op)
			}
			x.Count += o.Count
			x.Bytes += o.Bytes
			x.Errors += o.Errors
			x.OpsPerS += float64(o.Count) / dt
			x.BytesPerS += float64(o.Bytes) / dt
		}
		for op, lt := range tl.lats {
			lats[op] = lats[op].Add(lt)
			all = all.Add(lt)
		}
	}
	for _, op := range order {
		x := ops[op]
		x.percentiles(lats[op])
		t.Ops = append(t.Ops, *x)
		t.Count += x.Count
		t.Bytes += x.Bytes
		t.Errors += x.Errors
		t.OpsPerS += x.OpsPerS
		t.BytesPerS += x.BytesPerS
	}
	t.percentiles(all)
	return t
}

func (f *LiveFigures) percentiles(lt record.LiveLat) {
	if lt.N == 0 {
		return
	}
	f.P50Ns, f.P99Ns, f.P999Ns = pct(lt, 50), pct(lt, 99), pct(lt, 99.9)
}

func pct(lt record.LiveLat, p float64) *int64 {
	v, ok := lt.Percentile(p)
	if !ok {
		return nil
	}
	return &v
}

// PhaseDone ends the phase's lines: what each host did after its last
// snapshot (its result's counts beyond them: the last, partial second) as
// a last line per host, then the total of the final lines.
func (l *Live) PhaseDone(d sink.PhaseDone) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.q == nil {
		return
	}
	now := l.now()
	out := l.pending
	l.pending = nil
	for _, res := range d.Hosts {
		if res == nil {
			continue
		}
		if line := l.hostOf(res.Host).rest(res, l.endElapsed); line != nil {
			line.Time, line.Run, line.Phase = now, l.runID, l.phase
			l.tick = append(l.tick, tickLine{line: line})
			out = l.appendLine(out, line)
		}
	}
	for _, t := range l.totals(now, l.endElapsed) {
		out = l.appendLine(out, t)
	}
	l.send(out)
}

// rest returns the line of what res counted beyond the host's last
// snapshot, ending at elapsed end (the controller's: the host's own end is
// not in its result), or nil when the snapshots had it all. Operations
// the snapshots named otherwise (fio jobs with several names) are left
// out: fio's last snapshot is its final report.
func (h *liveHost) rest(res *model.HostResult, end float64) *LiveLine {
	var now []record.Count
	more := false
	for _, o := range res.Ops {
		i := slices.IndexFunc(h.prev.Ops, func(c record.Count) bool { return c.Op == o.Op })
		if i < 0 && len(h.prev.Ops) > 0 {
			continue
		}
		c := record.Count{Op: o.Op, Ops: o.Ops, Bytes: o.Bytes, Errors: o.Errors}
		if i >= 0 {
			b := h.prev.Ops[i]
			if c.Ops < b.Ops || c.Bytes < b.Bytes || c.Errors < b.Errors {
				continue
			}
			more = more || c.Ops > b.Ops || c.Bytes > b.Bytes || c.Errors > b.Errors
		} else {
			more = more || c.Ops > 0 || c.Errors > 0
		}
		now = append(now, c)
	}
	if !more {
		return nil
	}
	from := h.prev.Elapsed.Seconds()
	// The controller's clock may be behind the host's by a little: the
	// tail is at least a millisecond long.
	to := max(end, from+0.001)
	h.prev.Elapsed = time.Duration(to * 1e9)
	line := h.line(res.Host, h.prev.Stage, to, from, h.prev.Ops, now, nil)
	h.prev.Ops = now
	return line
}

// Note is not part of the stream.
func (l *Live) Note(sink.Note) {}
