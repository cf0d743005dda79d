package s3

import (
	"sort"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// Backoff on connection errors: a worker whose request could not reach its
// endpoint (refused, reset, closed, timed out, no such host) waits before
// its next request, 10 ms after the first such error, doubling up to 1 s,
// and starts again at once after a request the server answered. A dead
// server then costs each worker about one request a second instead of a
// tight loop of errors, and the time it was down is measured.
const (
	backoffMin = 10 * time.Millisecond
	backoffMax = time.Second
)

// connErrorKind says whether an error kind means the endpoint was not
// reached, as opposed to an answer from it.
func connErrorKind(kind string) bool {
	switch kind {
	case "connection refused", "connection reset", "connection closed", "timeout", "no such host",
		errRequestTimeout.kind, errGraceCut.kind:
		return true
	}
	return false
}

// downSpan is a time in which one worker could not reach one endpoint, in
// ns since the run's start.
type downSpan struct {
	ep       int
	from, to int64
}

// reach is a worker's view of its endpoints' reachability. Nothing here
// allocates per request: spans are appended only when an endpoint comes
// back, and their room is made once.
type reach struct {
	downSince []int64  // per endpoint: 1 + ns of the first failed request, 0 while reachable
	errs      []uint64 // per endpoint: connection errors
	spans     []downSpan
	wait      time.Duration // backoff before the next request
	timer     *time.Timer
}

func (r *reach) init(endpoints int) {
	r.downSince = make([]int64, endpoints)
	r.errs = make([]uint64, endpoints)
	r.spans = make([]downSpan, 0, 8)
}

// failed notes a connection error of a request to ep started at t (ns since
// the run's start) and lengthens the backoff.
func (r *reach) failed(ep int, t int64) {
	if r.downSince == nil {
		return
	}
	if r.downSince[ep] == 0 {
		r.downSince[ep] = t + 1
	}
	r.errs[ep]++
	r.wait = min(max(2*r.wait, backoffMin), backoffMax)
}

// answered notes that ep answered a request started at t, and ends the
// backoff.
func (r *reach) answered(ep int, t int64) {
	r.wait = 0
	if r.downSince == nil || r.downSince[ep] == 0 {
		return
	}
	r.spans = append(r.spans, downSpan{ep: ep, from: r.downSince[ep] - 1, to: t})
	r.downSince[ep] = 0
}

// pause waits out the backoff, or until stop closes.
func (r *reach) pause(stop <-chan struct{}) {
	if r.wait <= 0 {
		return
	}
	if r.timer == nil {
		r.timer = time.NewTimer(r.wait)
	} else {
		r.timer.Reset(r.wait)
	}
	select {
	case <-r.timer.C:
	case <-stop:
		r.timer.Stop()
	}
}

// unreachable merges the workers' spans per endpoint (their union: ten
// workers seeing one outage count it once), closing spans still open at
// end, and returns the endpoints that were unreachable for a while.
func unreachable(endpoints []string, workers []*worker, end time.Duration) []engine.Unreachable {
	var out []engine.Unreachable
	for e, ep := range endpoints {
		var spans []downSpan
		var errs uint64
		collect := func(wk *worker) {
			for _, s := range wk.reach.spans {
				if s.ep == e {
					spans = append(spans, s)
				}
			}
			if wk.reach.downSince != nil {
				if since := wk.reach.downSince[e]; since != 0 {
					spans = append(spans, downSpan{ep: e, from: since - 1, to: int64(end)})
				}
				errs += wk.reach.errs[e]
			}
		}
		for _, wk := range workers {
			collect(wk)
			for _, p := range wk.parts {
				collect(p)
			}
		}
		if len(spans) == 0 {
			continue
		}
		sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
		var total, curFrom, curTo int64
		curFrom, curTo = spans[0].from, spans[0].to
		for _, s := range spans[1:] {
			if s.from > curTo {
				total += curTo - curFrom
				curFrom, curTo = s.from, s.to
				continue
			}
			curTo = max(curTo, s.to)
		}
		total += curTo - curFrom
		out = append(out, engine.Unreachable{Endpoint: ep, Seconds: float64(total) / 1e9, Errors: errs})
	}
	return out
}
