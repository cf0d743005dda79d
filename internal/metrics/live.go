package metrics

import (
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/run"
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
	// Total marks the line of all hosts, and Hosts counts them: each
	// host's latest second, added.
	Total bool `json:"total,omitempty"`
	Hosts int  `json:"hosts,omitempty"`
	// Stage is the engine's stage ("run"; md: "create", "stat", ...).
	Stage    string  `json:"stage,omitempty"`
	ElapsedS float64 `json:"elapsed_s"`
	LiveFigures
	// Ops are the same figures per operation.
	Ops []LiveOp `json:"ops"`
}

// LiveFigures are one second's figures.
type LiveFigures struct {
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

	mu      sync.Mutex
	runID   string
	phase   string
	hosts   map[string]*liveHost
	order   []string
	q       chan []byte
	done    chan struct{}
	err     error
	dropped int
	// quoted holds the phase's names as JSON strings.
	quoted map[string][]byte
}

var _ run.Sink = (*Live)(nil)

// liveHost is what the stream knows of one host in the current phase.
type liveHost struct {
	prev engine.Snapshot
	have bool
	// last is the host's latest second; fresh counts the calls since it
	// was computed (a host that stopped sending leaves the total).
	last  *LiveLine
	fresh int
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

func (l *Live) write(w io.WriteCloser, q <-chan []byte, done chan<- struct{}) {
	defer close(done)
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
// write error and how many lines a slow reader made it drop. A reader
// that takes nothing for closeWait is left behind.
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
	l.phase, l.hosts, l.order, l.quoted = ph.Name, map[string]*liveHost{}, nil, nil
}

// Progress writes a line for every host with a new snapshot, and the
// total.
func (l *Live) Progress(p cluster.Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.q == nil {
		return
	}
	now := time.Now()
	if l.Now != nil {
		now = l.Now()
	}
	var out []byte
	for _, s := range p.Hosts {
		if s.Phase == "" {
			continue
		}
		h := l.hosts[s.Host]
		if h == nil {
			h = &liveHost{lat: map[string]record.LiveLat{}}
			l.hosts[s.Host] = h
			l.order = append(l.order, s.Host)
		}
		h.fresh++
		if line := h.second(s); line != nil {
			line.Time, line.Run, line.Phase = now, l.runID, l.phase
			h.last, h.fresh = line, 0
			out = l.appendLine(out, line)
		}
	}
	if t := l.total(now); t != nil {
		out = l.appendLine(out, t)
	}
	if len(out) == 0 {
		return
	}
	select {
	case l.q <- out:
	default:
		l.dropped++
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

// second returns the host's figures between its previous snapshot and s,
// or nil when s is not newer.
func (h *liveHost) second(s engine.Snapshot) *LiveLine {
	prev, had := h.prev, h.have
	if had && s.Elapsed <= prev.Elapsed {
		return nil
	}
	h.prev, h.have = s, true
	if !had {
		for _, lt := range s.Lat {
			h.lat[lt.Op] = lt
		}
		return nil
	}
	dt := (s.Elapsed - prev.Elapsed).Seconds()
	line := &LiveLine{Host: s.Host, Stage: s.Stage, ElapsedS: s.Elapsed.Seconds()}
	before := map[string]record.Count{}
	for _, c := range prev.Ops {
		before[c.Op] = c
	}
	lats := map[string]record.LiveLat{}
	for _, lt := range s.Lat {
		lats[lt.Op] = lt.Sub(h.lat[lt.Op])
		h.lat[lt.Op] = lt
	}
	h.secLat = lats
	var all record.LiveLat
	for _, c := range s.Ops {
		b := before[c.Op]
		if c.Ops < b.Ops || c.Bytes < b.Bytes || c.Errors < b.Errors {
			b = record.Count{} // counters went back: a new start
		}
		op := LiveOp{Op: c.Op, LiveFigures: LiveFigures{
			OpsPerS: float64(c.Ops-b.Ops) / dt, BytesPerS: float64(c.Bytes-b.Bytes) / dt, Errors: c.Errors - b.Errors}}
		op.percentiles(lats[c.Op])
		all = all.Add(lats[c.Op])
		line.Ops = append(line.Ops, op)
		line.OpsPerS += op.OpsPerS
		line.BytesPerS += op.BytesPerS
		line.Errors += op.Errors
	}
	line.percentiles(all)
	return line
}

// total adds every host's latest second; hosts that have sent nothing new
// for two calls are left out.
func (l *Live) total(now time.Time) *LiveLine {
	t := &LiveLine{Time: now, Run: l.runID, Phase: l.phase, Total: true}
	ops := map[string]*LiveOp{}
	var order []string
	lats := map[string]record.LiveLat{}
	var all record.LiveLat
	for _, name := range l.order {
		h := l.hosts[name]
		if h.last == nil || h.fresh > 1 {
			continue
		}
		t.Hosts++
		t.ElapsedS = max(t.ElapsedS, h.last.ElapsedS)
		if t.Stage == "" {
			t.Stage = h.last.Stage
		}
		t.OpsPerS += h.last.OpsPerS
		t.BytesPerS += h.last.BytesPerS
		t.Errors += h.last.Errors
		for _, o := range h.last.Ops {
			x := ops[o.Op]
			if x == nil {
				x = &LiveOp{Op: o.Op}
				ops[o.Op] = x
				order = append(order, o.Op)
			}
			x.OpsPerS += o.OpsPerS
			x.BytesPerS += o.BytesPerS
			x.Errors += o.Errors
		}
		for op, lt := range h.secLat {
			lats[op] = lats[op].Add(lt)
			all = all.Add(lt)
		}
	}
	if t.Hosts == 0 {
		return nil
	}
	for _, op := range order {
		x := ops[op]
		x.percentiles(lats[op])
		t.Ops = append(t.Ops, *x)
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

// PhaseDone ends the phase's lines.
func (l *Live) PhaseDone(run.PhaseDone) {}

// Note is not part of the stream.
func (l *Live) Note(run.Note) {}
