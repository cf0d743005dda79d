// Package s3 is storbench's native S3 benchmark engine. It runs warp's
// benchmarks (get, put, delete, list, stat, mixed, multipart, versioned),
// records every request into per-worker histograms, and touches only
// objects under storbench/<run id>/ in the bucket.
//
// Two request paths: the hot loop's GET, PUT, HEAD and DELETE of one object
// go by default over the lean path (lean.go: one hand-written HTTP/1.1
// keep-alive connection per worker and endpoint, no allocation per
// request), over HTTP or HTTPS; everything else, and every request with
// Params.SDK, SSE-C, checksums or versions, goes through minio-go v7 with
// per-worker clients over one shared transport.
package s3

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/encrypt"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/secret"
)

// Engine is the s3 engine. It is stateless; each phase gets its own clients.
type Engine struct{}

var (
	_ engine.Engine    = Engine{}
	_ engine.Validator = Engine{}
	_ engine.Planner   = Engine{}
	_ engine.Locator   = Engine{}
	_ engine.Prepared  = (*phase)(nil)
)

// Location names where host's phase puts its objects: bucket/prefix.
func (Engine) Location(p engine.Phase, runID, host string) (what, where string, err error) {
	ps, err := DecodeParams(p.Params)
	if err != nil {
		return "", "", err
	}
	bucket := ps.Bucket
	if bucket == "" {
		bucket = "storbench"
	}
	return "objects", bucket + "/storbench/" + runID + "/" + sanitize(host) + "/" + sanitize(p.Name) + "/", nil
}

// Validate checks a phase without touching the network. Credentials are not
// required here: an agent may hold them in its own environment.
func (Engine) Validate(p engine.Phase) error {
	ps, err := DecodeParams(p.Params)
	if err != nil {
		return err
	}
	c, err := resolve(ps, engine.Credentials{AccessKey: secret.New("-"), SecretKey: secret.New("-")})
	if err != nil {
		return err
	}
	// A --ca-cert that cannot be read is found here, before anything runs.
	return c.loadTLS(1)
}

// Planned returns the measured stage's length (prepare and cleanup excluded).
func (Engine) Planned(p engine.Phase) (time.Duration, error) {
	ps, err := DecodeParams(p.Params)
	if err != nil {
		return 0, err
	}
	if ps.Duration == 0 {
		return 5 * time.Minute, nil
	}
	return time.Duration(ps.Duration), nil
}

// Redact returns the phase with its secrets removed, for anything that is
// written down (run.json, logs). Results writers must call it.
func (Engine) Redact(p engine.Phase) engine.Phase {
	return RedactPhase(p)
}

// RedactPhase blanks access_key, secret_key and session_token in an s3
// phase's params.
func RedactPhase(p engine.Phase) engine.Phase {
	var m map[string]json.RawMessage
	if json.Unmarshal(p.Params, &m) != nil {
		// Not an object: keep nothing of it rather than risk a secret.
		p.Params = json.RawMessage(`{}`)
		return p
	}
	changed := false
	for _, k := range []string{"access_key", "secret_key", "session_token"} {
		if _, ok := m[k]; ok {
			m[k] = json.RawMessage(`"REDACTED"`)
			changed = true
		}
	}
	if changed {
		b, _ := json.Marshal(m)
		p.Params = b
	}
	return p
}

// opNames returns the recorded operations of a benchmark kind.
func opNames(op string) []string {
	switch op {
	case "get":
		return []string{"GET"}
	case "put":
		return []string{"PUT"}
	case "delete":
		return []string{"DELETE"}
	case "list":
		return []string{"LIST"}
	case "stat":
		return []string{"STAT"}
	case "multipart":
		return []string{"UPLOAD", "PART"}
	default: // mixed, versioned
		return []string{"GET", "STAT", "PUT", "DELETE"}
	}
}

// markerName is the object that says storbench created the bucket for a
// run; the bucket is removed only when it holds nothing else.
const markerName = ".storbench-created-bucket"

// phase is a prepared s3 phase.
type phase struct {
	c      *config
	env    engine.Env
	name   string
	ops    []string
	tr     *http.Transport
	admin  *minio.Client
	cls    [][]*minio.Client // [worker][endpoint]
	runPfx string            // storbench/<run>/
	prefix string            // storbench/<run>/<host>/<phase>/
	data   *dataBlock
	sse    encrypt.ServerSide
	lean   bool // GET, PUT, HEAD and DELETE of one object bypass minio-go

	createdBucket bool
	// bucketGone says cleanup removed the bucket this run created.
	bucketGone bool
	// written counts the uploads the run stage attempted (put, mixed,
	// multipart): with the prepared objects, at most that many objects
	// can be left under the prefix.
	written int64

	// Prepared objects and their sizes (and versions for versioned).
	keys  []string
	sizes []int64
	vers  []string

	stop     atomic.Bool
	stopCh   chan struct{} // closed with stop set: wakes workers backing off
	stopOnce sync.Once
	ticket   atomic.Int64 // open-loop schedule position
	picker   *hostPicker
	pool     *objectPool
	delNext  atomic.Int64
	putSeqs  []int // put: uploads made by each worker, whose keys putKey gives
	listPfx  []string
	monoBase time.Time
	unixBase int64
}

// Prepare checks the endpoints, creates the bucket if it is missing, and
// uploads the objects the benchmark reads.
func (Engine) Prepare(ctx context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	ps, err := DecodeParams(p.Params)
	if err != nil {
		return nil, err
	}
	c, err := resolve(ps, env.Credentials)
	if err != nil {
		return nil, err
	}
	if env.RunID == "" || strings.ContainsAny(env.RunID, "/\\") {
		return nil, fmt.Errorf("s3: invalid run id %q", env.RunID)
	}
	host := sanitize(env.Host)
	ph := &phase{c: c, env: env, name: p.Name, ops: opNames(c.Op)}
	ph.runPfx = "storbench/" + env.RunID + "/"
	ph.prefix = ph.runPfx + host + "/" + sanitize(p.Name) + "/"
	inFlight := c.Concurrent
	if c.Op == "multipart" {
		inFlight *= c.PartConcurrency
	}
	if err := c.loadTLS(inFlight * len(c.endpoints)); err != nil {
		return nil, err
	}
	ph.tr = newTransport(c, inFlight)
	ph.cls = make([][]*minio.Client, inFlight)
	for w := range ph.cls {
		ph.cls[w] = make([]*minio.Client, len(c.endpoints))
		for e, ep := range c.endpoints {
			if ph.cls[w][e], err = newClient(c, ep, ph.tr); err != nil {
				return nil, err
			}
		}
	}
	ph.admin = ph.cls[0][0]
	ph.lean = leanUsable(c)
	ph.picker = newHostPicker(len(c.endpoints), c.HostSelect == "roundrobin")
	if c.Encrypt {
		key := make([]byte, 32)
		_, _ = rand.Read(key)
		if ph.sse, err = encrypt.NewSSEC(key); err != nil {
			return nil, err
		}
	}
	var seed [8]byte
	_, _ = rand.Read(seed[:])
	blockSize := int64(c.ObjSize)
	if c.ListExisting {
		blockSize = 0 // nothing is uploaded
	}
	ph.data = newDataBlock(blockSize, uint64(seed[0])|uint64(seed[1])<<8|uint64(seed[2])<<16|uint64(seed[3])<<24)

	if err := ph.checkEndpoints(ctx); err != nil {
		ph.tr.CloseIdleConnections()
		return nil, err
	}
	if c.ListExisting {
		// Reads only: no bucket, marker or object is made, so there is
		// nothing to undo.
		if err := ph.listExisting(ctx); err != nil {
			ph.tr.CloseIdleConnections()
			return nil, err
		}
		return ph, nil
	}
	// From here on the bucket, its marker and objects may exist: a failure
	// or an interrupt removes what this phase made before returning.
	if err := ph.ensureBucket(ctx); err != nil {
		return nil, ph.undo(ctx, err)
	}
	if err := ph.prepareObjects(ctx); err != nil {
		return nil, ph.undo(ctx, err)
	}
	return ph, nil
}

// listExisting lists the objects under --prefix once, into the key list
// the run draws from. The keys share one string, so a key costs its own
// length plus 24 bytes (its string header and its size): a million keys of
// 60 bytes take 84 MB.
func (ph *phase) listExisting(ctx context.Context) error {
	c := ph.c
	ok, err := ph.admin.BucketExists(ctx, c.Bucket)
	if err != nil {
		return explain(c.endpoints[0], c, err)
	}
	if !ok {
		return engine.Unsupported(fmt.Sprintf("s3: --list-existing: bucket %q does not exist", c.Bucket))
	}
	var all strings.Builder
	var ends []int
	var sizes []int64
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for o := range ph.admin.ListObjects(lctx, c.Bucket, minio.ListObjectsOptions{Prefix: c.Prefix, Recursive: true}) {
		if o.Err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("s3: --list-existing: list %s/%s: %v", c.Bucket, c.Prefix, explain(c.endpoints[0], c, o.Err))
		}
		all.WriteString(o.Key)
		ends = append(ends, all.Len())
		sizes = append(sizes, o.Size)
		if c.Objects > 0 && len(ends) == c.Objects {
			break
		}
	}
	if len(ends) == 0 {
		return engine.Unsupported(fmt.Sprintf("s3: --list-existing: no objects under %s/%s: give the --prefix (and --bucket) of objects that are there", c.Bucket, c.Prefix))
	}
	// Copies of exactly the size needed: what the listing grew is freed.
	keys, start := strings.Clone(all.String()), 0
	ph.keys = make([]string, len(ends))
	for i, end := range ends {
		ph.keys[i] = keys[start:end]
		start = end
	}
	ph.sizes = slices.Clone(sizes)
	ph.listPfx = []string{c.Prefix}
	return nil
}

// undo cleans up after a failed or interrupted preparation and returns err
// with what could not be removed.
func (ph *phase) undo(ctx context.Context, err error) error {
	return engine.WithLeftovers(err, ph.Cleanup(context.WithoutCancel(ctx)))
}

// halt stops the run's workers between requests and wakes those waiting.
func (ph *phase) halt() {
	ph.stop.Store(true)
	ph.stopOnce.Do(func() {
		if ph.stopCh != nil {
			close(ph.stopCh)
		}
	})
}

// sanitize makes a name safe as one element of an object key.
func sanitize(s string) string {
	if s == "" {
		return "local"
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < ' ' {
			return '_'
		}
		return r
	}, s)
}

// checkEndpoints makes one request to every endpoint, so an unreachable
// host, TLS mismatch or bad key is one clear line before anything is written.
func (ph *phase) checkEndpoints(ctx context.Context) error {
	for e, ep := range ph.c.endpoints {
		// A listing, not a HEAD: its error body says whether the key or
		// the signature is wrong, where a HEAD only says 403.
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		var err error
		for o := range ph.cls[0][e].ListObjects(cctx, ph.c.Bucket, minio.ListObjectsOptions{Prefix: ph.prefix, MaxKeys: 1}) {
			err = o.Err
			break
		}
		cancel()
		if err != nil && minio.ToErrorResponse(err).Code != "NoSuchBucket" {
			return explain(ep, ph.c, err)
		}
	}
	return nil
}

// ensureBucket creates the bucket when it is missing and leaves a marker so
// that cleanup knows the bucket is storbench's to remove once empty.
func (ph *phase) ensureBucket(ctx context.Context) error {
	c, ep := ph.c, ph.c.endpoints[0]
	ok, err := ph.admin.BucketExists(ctx, c.Bucket)
	if err != nil {
		return explain(ep, c, err)
	}
	if !ok {
		// Creating the bucket and writing its marker is one step that an
		// interrupt does not cut: a bucket made without its marker would
		// be one cleanup cannot tell is storbench's.
		mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		err := ph.admin.MakeBucket(mctx, c.Bucket, minio.MakeBucketOptions{Region: c.Region})
		if err != nil {
			code := minio.ToErrorResponse(err).Code
			switch code {
			case "BucketAlreadyOwnedByYou", "BucketAlreadyExists":
				// Another host of this run made it a moment ago.
			case "AccessDenied":
				return fmt.Errorf("s3: bucket %q does not exist and these credentials may not create it: create it or use --bucket with an existing one", c.Bucket)
			default:
				// Hosts of one run create the bucket at the same moment, and
				// servers answer the loser differently (versitygw: an
				// internal error): if the bucket is there now, another host
				// made it.
				if ok, _ := ph.admin.BucketExists(mctx, c.Bucket); !ok {
					return fmt.Errorf("s3: create bucket %q: %v", c.Bucket, explain(ep, c, err))
				}
			}
		} else {
			ph.createdBucket = true
			if _, err := ph.admin.PutObject(mctx, c.Bucket, ph.runPfx+markerName, strings.NewReader(""), 0,
				minio.PutObjectOptions{DisableContentSha256: true}); err != nil {
				return fmt.Errorf("s3: write marker in new bucket %q: %v", c.Bucket, err)
			}
		}
		cancel()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if c.Op == "versioned" {
		v, err := ph.admin.GetBucketVersioning(ctx, c.Bucket)
		if err != nil {
			if noVersioning(err) {
				return engine.Unsupported("s3: versioned: the server does not support bucket versioning")
			}
			return fmt.Errorf("s3: versioned: cannot read versioning of bucket %q: %v", c.Bucket, err)
		}
		if !v.Enabled() {
			if !ph.createdBucket {
				return engine.Unsupported(fmt.Sprintf("s3: versioned: bucket %q has versioning off; storbench does not change a bucket it did not create: use a new --bucket", c.Bucket))
			}
			if err := ph.admin.EnableVersioning(ctx, c.Bucket); err != nil {
				if noVersioning(err) {
					return engine.Unsupported("s3: versioned: the server does not support bucket versioning")
				}
				return fmt.Errorf("s3: versioned: enable versioning on %q: %v", c.Bucket, err)
			}
		}
	}
	return nil
}

// noVersioning recognises a server's answer that it has no bucket
// versioning (versitygw without --versioning-dir, MinIO in FS mode, ...).
func noVersioning(err error) bool {
	switch minio.ToErrorResponse(err).Code {
	case "NotImplemented", "NotSupported", "VersioningNotConfigured", "InvalidBucketState":
		return true
	}
	return false
}

// workerPrefix is worker w's key prefix.
func (ph *phase) workerPrefix(w int) string {
	if ph.c.NoPrefix && ph.c.Op != "list" {
		return ph.prefix
	}
	return ph.prefix + "w" + strconv.Itoa(w) + "/"
}

func (ph *phase) putOpts() minio.PutObjectOptions {
	o := minio.PutObjectOptions{
		DisableContentSha256: !ph.c.SignPayload,
		DisableMultipart:     true,
		ServerSideEncryption: ph.sse,
	}
	if ph.c.Checksum != "" {
		o.Checksum = checksumTypes[ph.c.Checksum]
	}
	return o
}

// prepareObjects uploads the objects get, stat, delete, list, mixed and
// versioned work on, with all workers.
func (ph *phase) prepareObjects(ctx context.Context) error {
	c := ph.c
	switch c.Op {
	case "put", "multipart":
		return nil
	}
	n := c.Objects
	ph.keys = make([]string, n)
	ph.sizes = make([]int64, n)
	ph.vers = make([]string, n)
	for i := range ph.keys {
		w := i % c.Concurrent
		ph.keys[i] = ph.workerPrefix(w) + "p" + strconv.Itoa(i)
	}
	if c.Op == "list" {
		for w := 0; w < c.Concurrent; w++ {
			ph.listPfx = append(ph.listPfx, ph.workerPrefix(w))
		}
	}
	// An interrupt stops new uploads at once, but lets those in flight
	// finish for up to prepareGrace: an upload cut mid-way may still land
	// on the server after cleanup has listed the prefix.
	uctx, ucancel := context.WithCancel(context.WithoutCancel(ctx))
	defer ucancel()
	defer context.AfterFunc(ctx, func() { time.AfterFunc(prepareGrace, ucancel) })()
	var next atomic.Int64
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < c.Concurrent; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			wk := ph.newWorker(w, nil, nil)
			if wk.lean != nil {
				defer wk.lean.bind(uctx)()
			}
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				size := objectSize(c, wk.rng)
				ep := i % len(c.endpoints)
				info, err := wk.put(uctx, ep, ph.keys[i], size)
				if err != nil && ctx.Err() != nil {
					return
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("s3: prepare: upload %s: %v", ph.keys[i], explain(c.endpoints[ep], c, err))
					}
					mu.Unlock()
					next.Store(int64(n))
					return
				}
				ph.sizes[i] = size
				ph.vers[i] = info.VersionID
			}
		}(w)
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	if firstErr != nil {
		return firstErr
	}
	if c.Op == "mixed" || c.Op == "versioned" {
		ph.pool = newObjectPool(ph.keys, ph.sizes, ph.vers)
	}
	return nil
}

// prepareGrace is how long uploads in flight may finish after an
// interrupt during preparation.
const prepareGrace = 5 * time.Second

// Run waits for startAt, runs the benchmark until its duration, autoterm or
// ctx, and returns what was measured. ctx cancelled mid-run still returns
// the results so far.
func (ph *phase) Run(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	if err := engine.WaitUntil(ctx, startAt); err != nil {
		return nil, err
	}
	c := ph.c
	// The heap of a run is small (buffers and histograms are allocated once),
	// and what the SDK allocates per request dies at once: collecting less
	// often trades a few MB for CPU, which is what a loaded client lacks.
	defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	var olog *opLog
	if c.BenchData != "" {
		var err error
		if olog, err = newOpLog(c.BenchData, c.Concurrent); err != nil {
			return nil, err
		}
	}
	nw := c.Concurrent
	if c.Op == "multipart" {
		nw = c.Concurrent * c.PartConcurrency
	}
	recs := make([]*record.Recorder, nw)
	var epRecs [][]*record.Recorder // [endpoint][worker]
	if len(c.endpoints) > 1 {
		epRecs = make([][]*record.Recorder, len(c.endpoints))
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
	ph.stopCh = make(chan struct{})
	ph.monoBase = time.Now()
	ph.unixBase = ph.monoBase.UnixNano()
	startNs := ph.unixBase
	sampler := record.NewSampler(ph.ops, recs, startNs)

	var wg sync.WaitGroup
	workers := make([]*worker, c.Concurrent)
	for w := range workers {
		var er []*record.Recorder
		for e := range epRecs {
			er = append(er, epRecs[e][w])
		}
		workers[w] = ph.newWorker(w, recs[w], er)
		workers[w].log.l = olog
		if c.Op == "multipart" {
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
	// A hard stop (ctx) aborts requests in flight; the duration's stop is a
	// flag checked between requests, so the last requests end normally.
	stopAt := ph.monoBase.Add(c.duration)
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

	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	stopTimer := time.NewTimer(time.Until(stopAt))
	defer stopTimer.Stop()
	term := autoTerm{pct: c.AutoTermPct, minDur: time.Duration(c.AutoTermDur), bytes: c.Op == "get" || c.Op == "put" || c.Op == "multipart"}
	planned := c.duration
	stoppedBy := "duration"
loop:
	for {
		select {
		case <-finished:
			stoppedBy = "done"
			break loop
		case <-ctx.Done():
			ph.halt()
			stoppedBy = "interrupted"
			<-finished
			break loop
		case <-stopTimer.C:
			ph.halt()
			<-finished
			break loop
		case now := <-tick.C:
			cum := sampler.Sample(now.UnixNano())
			if live != nil {
				live(engine.Snapshot{Host: ph.env.Host, Phase: ph.name, Stage: "run", Elapsed: now.Sub(ph.monoBase), Planned: planned, Ops: cum})
			}
			if c.AutoTerm && term.stable(sampler.Series) {
				stoppedBy = "autoterm"
				ph.halt()
				<-finished
				break loop
			}
		}
	}
	end := time.Now()
	endNs := ph.unixBase + int64(end.Sub(ph.monoBase))
	if c.Op == "put" {
		ph.putSeqs = make([]int, len(workers))
		for w, wk := range workers {
			ph.putSeqs[w] = wk.seq
		}
	}
	for _, wk := range workers {
		ph.written += int64(wk.seq)
	}
	sampler.Sample(endNs)

	res := &engine.HostResult{Host: ph.env.Host, Series: sampler.Series, Meta: map[string]string{
		"endpoints":  strings.Join(c.endpoints, ","),
		"concurrent": strconv.Itoa(c.Concurrent),
		"obj_size":   strconv.FormatInt(int64(c.ObjSize), 10),
		"prefix":     ph.prefix,
		"stopped_by": stoppedBy,
		"s3_client":  "minio-go",
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
	for i, name := range ph.ops {
		var s record.OpStats
		for w := range recs {
			s = s.Combine(recs[w].Stats(i, name))
		}
		s.Op = name
		s.StartNs, s.EndNs = startNs, endNs
		if s.Ops > 0 || s.Errors > 0 {
			res.Ops = append(res.Ops, s)
		}
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
	if epRecs != nil {
		per := map[string][]record.OpStats{}
		for e, ep := range c.endpoints {
			for i, name := range ph.ops {
				var s record.OpStats
				for w := range epRecs[e] {
					s = s.Combine(epRecs[e][w].Stats(i, name))
				}
				s.Op = name
				s.StartNs, s.EndNs = startNs, endNs
				if s.Ops > 0 || s.Errors > 0 {
					per[ep] = append(per[ep], s)
				}
			}
		}
		b, err := json.Marshal(per)
		if err == nil {
			res.Raw = map[string][]byte{EndpointsFile: b}
		}
	}
	res.Unreachable = unreachable(c.endpoints, workers, end.Sub(ph.monoBase))
	if olog != nil {
		if err := olog.close(); err != nil {
			res.Err = fmt.Sprintf("benchdata %s: %v", c.BenchData, err)
		}
	}
	if stoppedBy == "interrupted" {
		return res, ctx.Err()
	}
	return res, nil
}

// gcPercent is GOGC during a run.
const gcPercent = 400

// EndpointsFile is the Raw file with per-endpoint statistics
// (map endpoint -> []record.OpStats), present when there are several.
const EndpointsFile = "s3-endpoints.json"

// Cleanup deletes every object (and version, and unfinished upload) under
// this phase's prefix, then the bucket if storbench created it and nothing
// else is in it. Objects outside the prefix are never listed for deletion.
// What it cannot remove comes back as a *engine.LeftoverError: the prefix
// with the count of objects still there (or, when the server does not
// answer, how many at most), and the bucket this run created.
func (ph *phase) Cleanup(ctx context.Context) error {
	defer ph.tr.CloseIdleConnections()
	if ph.env.Keep || ph.c.NoClear || ph.c.ListExisting {
		// --list-existing made nothing: it deletes nothing either.
		return nil
	}
	c := ph.c
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	keep(ph.removeUploads(ctx))
	keep(ph.removePrefix(ctx, ph.prefix))
	for u := range ph.admin.ListIncompleteUploads(ctx, c.Bucket, ph.prefix, true) {
		if u.Err != nil {
			break // not every server lists uploads; nothing to abort then
		}
		if strings.HasPrefix(u.Key, ph.prefix) {
			keep(ph.admin.RemoveIncompleteUpload(ctx, c.Bucket, u.Key))
		}
	}
	if first == nil {
		// An upload cut by an interrupt may land after the listing: look
		// once more, and remove what came late.
		for pass := 0; pass < 3 && first == nil; pass++ {
			n, err := ph.countPrefix(ctx, 1)
			if err != nil || n == 0 {
				keep(err)
				break
			}
			time.Sleep(200 * time.Millisecond)
			keep(ph.removePrefix(ctx, ph.prefix))
		}
	}
	left := ""
	if first == nil {
		var err error
		left, err = ph.removeBucketIfOurs(ctx)
		keep(err)
	}
	if first == nil && left == "" {
		return nil
	}
	reason := left
	if first != nil {
		reason = "cleanup: " + first.Error()
	}
	l := engine.Leftover{Host: ph.env.Host, What: "objects", Where: c.Bucket + "/" + ph.prefix, Reason: reason}
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	if n, err := ph.countPrefix(lctx, -1); err == nil {
		l.Count = &n
	} else {
		most := int64(len(ph.keys)) + ph.written
		l.AtMost = &most
	}
	var items []engine.Leftover
	if first != nil && (l.Count == nil || *l.Count > 0) {
		items = append(items, l)
	}
	if ph.createdBucket && !ph.bucketGone {
		items = append(items, engine.Leftover{Host: ph.env.Host, What: "bucket", Where: c.Bucket,
			Reason: "created by this run, not removed: " + reason})
	}
	if len(items) == 0 {
		return nil
	}
	return &engine.LeftoverError{Items: items}
}

// countPrefix counts the objects (and versions) under the phase's prefix,
// up to limit (negative: all).
func (ph *phase) countPrefix(ctx context.Context, limit int64) (int64, error) {
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var n int64
	for o := range ph.admin.ListObjects(lctx, ph.c.Bucket, minio.ListObjectsOptions{Prefix: ph.prefix, Recursive: true, WithVersions: ph.c.Op == "versioned"}) {
		if o.Err != nil {
			if minio.ToErrorResponse(o.Err).Code == "NoSuchBucket" {
				return 0, nil
			}
			return n, o.Err
		}
		if strings.HasPrefix(o.Key, ph.prefix) {
			n++
		}
		if limit >= 0 && n >= limit {
			break
		}
	}
	return n, nil
}

// removeUploads deletes the objects a put phase uploaded by their keys,
// before the listing that finds anything else: a listing costs minio-go
// about 26 us of CPU per key (encoding/xml), more than the delete, and
// bench/s3-cpu.sh counts the cleanup in the PUTs' CPU.
func (ph *phase) removeUploads(ctx context.Context) error {
	if len(ph.putSeqs) == 0 {
		return nil
	}
	c := ph.c
	objs := make(chan minio.ObjectInfo, 1000)
	go func() {
		defer close(objs)
		var kb []byte
		for w, n := range ph.putSeqs {
			pfx := ph.workerPrefix(w % c.Concurrent)
			for seq := 1; seq <= n; seq++ {
				kb = putKey(kb[:0], pfx, w, "-", seq)
				select {
				case objs <- minio.ObjectInfo{Key: string(kb)}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	var rmErr error
	for e := range ph.admin.RemoveObjects(ctx, c.Bucket, objs, minio.RemoveObjectsOptions{}) {
		if e.Err != nil && rmErr == nil && minio.ToErrorResponse(e.Err).Code != "NoSuchKey" {
			rmErr = fmt.Errorf("%s: %v", e.ObjectName, e.Err)
		}
	}
	return rmErr
}

// removePrefix deletes all objects and versions whose key starts with pfx.
func (ph *phase) removePrefix(ctx context.Context, pfx string) error {
	if !strings.HasPrefix(pfx, "storbench/") || len(pfx) <= len("storbench/") {
		return fmt.Errorf("refusing to delete outside storbench's prefix: %q", pfx)
	}
	c := ph.c
	objs := make(chan minio.ObjectInfo, 1000)
	var listErr error
	go func() {
		defer close(objs)
		for o := range ph.admin.ListObjects(ctx, c.Bucket, minio.ListObjectsOptions{Prefix: pfx, Recursive: true, WithVersions: c.Op == "versioned"}) {
			if o.Err != nil {
				listErr = o.Err
				return
			}
			if !strings.HasPrefix(o.Key, pfx) {
				continue
			}
			objs <- o
		}
	}()
	var rmErr error
	for e := range ph.admin.RemoveObjects(ctx, c.Bucket, objs, minio.RemoveObjectsOptions{}) {
		if e.Err != nil && rmErr == nil && minio.ToErrorResponse(e.Err).Code != "NoSuchKey" {
			rmErr = fmt.Errorf("%s: %v", e.ObjectName, e.Err)
		}
	}
	if listErr != nil {
		return listErr
	}
	return rmErr
}

// bucketWait bounds how long the host that created the bucket waits at
// cleanup for the other hosts of the run to delete their objects from it.
// They clean up at the same moment, and only the creator removes the
// bucket: two hosts that each looked while the other's objects were still
// there would otherwise both leave it, or race to remove it.
var bucketWait = 2 * time.Minute

// removeBucketIfOurs removes the bucket when this host created it and,
// once the run's other hosts have deleted their objects, nothing is left in
// it but this run's marker. It returns why the bucket was left in place,
// if it was (objects that are not this run's, or other hosts' objects
// still there after bucketWait).
func (ph *phase) removeBucketIfOurs(ctx context.Context) (left string, err error) {
	if !ph.createdBucket {
		return "", nil
	}
	c := ph.c
	marker := ph.runPfx + markerName
	deadline := time.Now().Add(bucketWait)
	for {
		others, foreign, err := ph.bucketHolds(ctx, marker)
		switch {
		case noSuchBucket(err):
			ph.bucketGone = true
			return "", nil
		case err != nil:
			return "", err
		case foreign:
			return "it holds objects that are not this run's", nil
		case !others:
			if err := ph.admin.RemoveObject(ctx, c.Bucket, marker, minio.RemoveObjectOptions{}); err != nil && !noSuchBucket(err) {
				return "", err
			}
			if c.Op == "versioned" {
				_ = ph.removePrefix(ctx, ph.runPfx) // delete markers of the marker
			}
			err := ph.admin.RemoveBucket(ctx, c.Bucket)
			if err == nil || noSuchBucket(err) {
				ph.bucketGone = true
				return "", nil
			}
			if minio.ToErrorResponse(err).Code != "BucketNotEmpty" {
				return "", err
			}
			// A server may still be removing what another host deleted a
			// moment ago (versitygw: the emptied directories): look again.
		}
		if time.Now().After(deadline) {
			return fmt.Sprintf("objects of this run's other hosts were still in it after %s", bucketWait), nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// bucketHolds lists the bucket (versions too, for versioned phases) until
// it finds an object of this run other than the marker (others) or one that
// is not this run's (foreign).
func (ph *phase) bucketHolds(ctx context.Context, marker string) (others, foreign bool, err error) {
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := minio.ListObjectsOptions{Recursive: true, WithVersions: ph.c.Op == "versioned"}
	for o := range ph.admin.ListObjects(lctx, ph.c.Bucket, opts) {
		switch {
		case o.Err != nil:
			return others, foreign, o.Err
		case !strings.HasPrefix(o.Key, ph.runPfx):
			return others, true, nil
		case o.Key != marker:
			// Keys come sorted: a key that is not this run's and sorts
			// after its prefix is seen once the run's other objects are
			// gone, on the listing that decides.
			return true, false, nil
		}
	}
	return others, foreign, nil
}

func noSuchBucket(err error) bool {
	return err != nil && minio.ToErrorResponse(err).Code == "NoSuchBucket"
}
