package s3

// The steps of a phase's Run, each a function of its own.

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
)

// startWorkers runs every worker in a goroutine of its own; the channel
// closes when all have ended.
func startWorkers(ctx context.Context, workers []*worker) <-chan struct{} {
	var wg sync.WaitGroup
	for _, wk := range workers {
		wg.Add(1)
		go func(wk *worker) {
			defer wg.Done()
			wk.run(ctx)
			wk.log.flush()
			for _, s := range wk.parts {
				s.log.flush()
			}
		}(wk)
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	return finished
}

// countWritten keeps what the workers wrote: each PUT worker's last
// sequence number (for cleanup) and the objects written in all.
func (ph *phase) countWritten(workers []*worker) {
	if ph.c.Op == "put" {
		ph.putSeqs = make([]int, len(workers))
		for w, wk := range workers {
			ph.putSeqs[w] = wk.seq
		}
	}
	for _, wk := range workers {
		ph.written += int64(wk.seq)
	}
}

// recorders makes the run's recorders, one per worker (part workers of a
// multipart upload included), and per endpoint when there are several.
func (ph *phase) recorders() (recs []*record.Recorder, epRecs [][]*record.Recorder) {
	c := ph.c
	nw := c.Concurrent
	if c.multipart() {
		nw = c.Concurrent * c.PartConcurrency
	}
	recs = make([]*record.Recorder, nw)
	if len(c.endpoints) > 1 {
		epRecs = make([][]*record.Recorder, len(c.endpoints)) // [endpoint][worker]
	}
	for w := range recs {
		recs[w] = record.NewRecorder(ph.ops, true)
	}
	for e := range epRecs {
		epRecs[e] = make([]*record.Recorder, nw)
		for w := range epRecs[e] {
			epRecs[e][w] = record.NewRecorder(ph.ops, true)
		}
	}
	return recs, epRecs
}

// workers makes the run's workers, each with its part workers for a
// multipart upload.
func (ph *phase) workers(recs []*record.Recorder, epRecs [][]*record.Recorder, olog *opLog) []*worker {
	c := ph.c
	workers := make([]*worker, c.Concurrent)
	for w := range workers {
		var er []*record.Recorder
		for e := range epRecs {
			er = append(er, epRecs[e][w])
		}
		workers[w] = ph.newWorker(w, recs[w], er)
		workers[w].log.l = olog
		workers[w].szRec = ph.sizeRecorders()
		if c.multipart() {
			for k := 1; k < c.PartConcurrency; k++ {
				pw := c.Concurrent + (w*(c.PartConcurrency-1) + k - 1)
				var per []*record.Recorder
				for e := range epRecs {
					per = append(per, epRecs[e][pw])
				}
				sub := ph.newWorker(pw, recs[pw], per)
				sub.log.l = olog
				workers[w].parts = append(workers[w].parts, sub)
			}
		}
	}
	return workers
}

// until samples the run every second until the workers finish, ctx ends,
// the duration passes or autoterm finds throughput stable, and says which
// ("done", "interrupted", "duration", "autoterm"); after the duration or
// autoterm, graceCut runs past the grace (the timer is returned, to stop).
func (ph *phase) until(ctx context.Context, finished <-chan struct{}, sampler *record.Sampler, live engine.LiveFunc, graceCut func()) (string, *time.Timer) {
	c := ph.c
	feed := record.NewLiveFeed(sampler)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	stopTimer := time.NewTimer(time.Until(ph.monoBase.Add(c.duration)))
	defer stopTimer.Stop()
	term := autoTerm{pct: c.AutoTermPct, minDur: time.Duration(c.AutoTermDur), bytes: c.Op == "get" || c.Op == "put" || c.multipart()}
	for {
		select {
		case <-finished:
			return "done", nil
		case <-ctx.Done():
			ph.halt()
			<-finished
			return "interrupted", nil
		case <-stopTimer.C:
			ph.halt()
			graceTimer := time.AfterFunc(c.grace, graceCut)
			<-finished
			return "duration", graceTimer
		case now := <-tick.C:
			cum := sampler.Sample(now.UnixNano())
			if live != nil {
				live(engine.Snapshot{Host: ph.env.Host, Phase: ph.name, Stage: "run", Elapsed: now.Sub(ph.monoBase), Planned: c.duration, Ops: cum, Lat: feed.Take()})
			}
			if c.AutoTerm && term.stable(sampler.Series) {
				ph.halt()
				graceTimer := time.AfterFunc(c.grace, graceCut)
				<-finished
				return "autoterm", graceTimer
			}
		}
	}
}

// hostResult is the host's result of the run, without its figures: the
// series, the latency per second and what the run was.
func (ph *phase) hostResult(sampler *record.Sampler, workers []*worker, stoppedBy string) *engine.HostResult {
	c := ph.c
	var latSecs []byte
	if secs := sampler.LatSeconds(); len(secs) > 0 {
		latSecs, _ = record.EncodeLatSeconds(secs)
	}
	res := &engine.HostResult{Host: ph.env.Host, Series: sampler.Series, LatencySeconds: latSecs, Meta: map[string]string{
		"endpoints":  strings.Join(c.endpoints, ","),
		"concurrent": strconv.Itoa(c.Concurrent),
		"obj_size":   strconv.FormatInt(int64(c.ObjSize), 10),
		"prefix":     ph.prefix,
		"stopped_by": stoppedBy,
		"s3_client":  "minio-go",
		// The bounds the run had: what "timeout: request" and "timeout:
		// phase grace" errors mean.
		"request_timeout": c.requestTimeout.String(),
		"grace":           c.grace.String(),
	}}
	if ph.lean {
		res.Meta["s3_client"] = "lean"
		redials, hs, resumed := 0, 0, 0
		for _, wk := range workers {
			redials += wk.lean.Redials
			hs += wk.lean.Handshakes
			resumed += wk.lean.Resumed
		}
		res.Meta["reconnects"] = strconv.Itoa(redials)
		if c.tls {
			res.Meta["tls_handshakes"] = strconv.Itoa(hs)
			res.Meta["tls_resumed"] = strconv.Itoa(resumed)
		}
	}
	return res
}

// opStats adds the workers' recorders per operation, over the run from
// startNs to endNs; operations that never ran are left out.
func opStats(ops []string, recs []*record.Recorder, startNs, endNs int64) []record.OpStats {
	var out []record.OpStats
	for i, name := range ops {
		var s record.OpStats
		for w := range recs {
			s = s.Combine(recs[w].Stats(i, name))
		}
		s.Op = name
		s.StartNs, s.EndNs = startNs, endNs
		if s.Ops > 0 || s.Errors > 0 {
			out = append(out, s)
		}
	}
	return out
}

// endpointStats are the operations' figures per endpoint.
func (ph *phase) endpointStats(epRecs [][]*record.Recorder, startNs, endNs int64) map[string][]record.OpStats {
	per := map[string][]record.OpStats{}
	for e, ep := range ph.c.endpoints {
		if s := opStats(ph.ops, epRecs[e], startNs, endNs); len(s) > 0 {
			per[ep] = s
		}
	}
	return per
}

// addMeta notes the run's sizes, open-loop schedule and listing in res;
// the run ended at end.
func (ph *phase) addMeta(res *engine.HostResult, end time.Time) {
	c := ph.c
	if len(res.BySize) > 0 {
		res.Meta["obj_sizes"] = c.sizes.desc
	}
	if ph.picker.cross {
		// Which gateway this host wrote through and read back through.
		res.Meta["writes_through"], res.Meta["reads_through"] = c.endpoints[ph.picker.write], c.endpoints[ph.picker.read]
	}
	if c.Rate > 0 {
		// Starts scheduled within the run (the schedule ends at the
		// duration) that no worker took.
		scheduled := int64(min(end.Sub(ph.monoBase), c.duration).Seconds() * c.Rate)
		dropped := max(0, scheduled-ph.ticket.Load())
		res.Meta["rate_ops_per_s"] = strconv.FormatFloat(c.Rate, 'f', -1, 64)
		res.Meta["dropped_starts"] = strconv.FormatInt(dropped, 10)
	}
	if c.Op == "list" {
		res.Meta["objects_per_list"] = strconv.Itoa((c.Objects + c.Concurrent - 1) / c.Concurrent)
		if c.ListExisting {
			res.Meta["objects_per_list"] = strconv.Itoa(len(ph.keys))
		}
	}
	if c.ListExisting {
		res.Meta["list_existing"] = c.Bucket + "/" + c.Prefix
		res.Meta["objects"] = strconv.Itoa(len(ph.keys))
		res.Meta["prefix"] = c.Prefix
	}
}
