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
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/encrypt"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/secret"
)

// Engine is the s3 engine. It is stateless; each phase gets its own clients.
type Engine struct{}

var (
	_ engine.Engine   = Engine{}
	_ engine.Prepared = (*phase)(nil)
)

// Location names where host's phase puts its objects: bucket/prefix.
func (pl plan) Location(runID, host string) (what, where string, ok bool) {
	bucket := pl.ps.Bucket
	if bucket == "" {
		bucket = "storbench"
	}
	return "objects", bucket + "/storbench/" + runID + "/" + sanitize(host) + "/" + sanitize(pl.name) + "/", true
}

// Info: s3's rates are obj/s; its results print as warp's.
func (Engine) Info() engine.Info {
	return engine.Info{
		RateUnit:     "obj/s",
		TextFormats:  []string{model.FormatWarp},
		Secrets:      []string{"access_key", "secret_key", "session_token"},
		ParamKeys:    engine.JSONKeys(Params{}),
		Operations:   append([]string(nil), Ops...),
		PausesLoad:   true,
		UsesKeys:     true,
		LogsRequests: true,
		Endpoint:     endpoint,
		Environment:  variables,
		SecretsFrom:  secretsFrom,
		Flags:        flags,
		// The engine reads its variables itself (awsenv.go).
		ApplyEnvironment: applyEnvironment,
	}
}

// plan is an s3 phase decoded.
type plan struct {
	engine.BasePlan
	phase engine.Phase
	name  string
	ps    Params
}

// Plan decodes a phase's settings.
func (Engine) Plan(p engine.Phase) (engine.Plan, error) {
	ps, err := phaseParams(p)
	if err != nil {
		return nil, err
	}
	return plan{phase: p, name: p.Name, ps: ps}, nil
}

// Check checks a phase without touching the network. Credentials are not
// required here: an agent may hold them in its own environment.
func (pl plan) Check() error {
	c, err := resolve(pl.ps, engine.Credentials{AccessKey: secret.New("-"), SecretKey: secret.New("-")})
	if err != nil {
		return err
	}
	if err := checkPlan(c); err != nil {
		return err
	}
	// A --ca-cert that cannot be read is found here, before anything runs.
	return c.loadTLS(1)
}

// Planned is the measured stage's length (prepare and cleanup excluded).
func (pl plan) Planned() (time.Duration, bool) {
	if pl.ps.Duration == 0 {
		return 5 * time.Minute, false
	}
	return time.Duration(pl.ps.Duration), false
}

// validate plans p and checks it.
func validate(p engine.Phase) error {
	pl, err := Engine{}.Plan(p)
	if err != nil {
		return err
	}
	return pl.Check()
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
	case "multipart-put":
		// warp's name for a part; UPLOAD is the whole object.
		return []string{"UPLOAD", "PUTPART"}
	case "retention":
		return []string{"GETRETENTION", "RETENTION"}
	default: // mixed, versioned
		return []string{"GET", "STAT", "PUT", "DELETE"}
	}
}

// markerName is the object that says storbench created the bucket for a
// run; the bucket is removed only when it holds nothing else.
const markerName = ".storbench-created-bucket"

// phase is a prepared s3 phase.
type phase struct {
	c     *config
	env   engine.Env
	name  string
	ops   []string
	trs   []*http.Transport   // one per --bind address, or one
	rts   []*boundedTransport // over trs, with every request's bound: what clients use
	httpc []*http.Client      // over rts: requests minio-go does not make
	admin *minio.Client       // the bucket's upkeep: set-up, cleanup
	// adminEp is admin's endpoint, by its index in c.endpoints.
	adminEp int
	cls     [][]*minio.Client // [worker][endpoint]
	runPfx  string            // storbench/<run>/
	prefix  string            // storbench/<run>/<host>/<phase>/
	data    *dataBlock
	sse     encrypt.ServerSide // SSE-C: every request on an object carries the key
	putSSE  encrypt.ServerSide // what uploads carry: SSE-C, SSE-S3 or SSE-KMS
	lean    bool               // GET, PUT, HEAD and DELETE of one object bypass minio-go

	createdBucket bool
	// versioningOn says the bucket keeps versions (phases that list them).
	versioningOn bool
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
	// failed, once set, is why a worker ended the run stage (a listing
	// that never ends): Run returns it with what was measured.
	failed atomic.Pointer[error]
	ticket atomic.Int64 // open-loop schedule position
	// pausedUntil, when not 0, holds workers until then (Unix ns): a
	// suite event's pause.
	pausedUntil atomic.Int64
	picker      *hostPicker
	pool        *objectPool
	delNext     atomic.Int64
	putSeqs     []int // put: uploads made by each worker, whose keys putKey gives
	listPfx     []string
	listWant    []int64  // list: the entries each worker's listing must return
	retVers     []string // retention: version j/len(keys) of key j%len(keys)
	// retainFor is how far ahead of now uploads and updates set the
	// retention (retention).
	retainFor time.Duration
	monoBase  time.Time
	unixBase  int64
}

// Prepare checks the endpoints, creates the bucket if it is missing, and
// uploads the objects the benchmark reads.
func (Engine) Prepare(ctx context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	ps, err := phaseParams(p)
	if err != nil {
		return nil, err
	}
	c, err := resolve(ps, keysOf(env.Secrets))
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
	if err := checkMemory(c, ph.prefix); err != nil {
		return nil, err
	}
	inFlight := c.Concurrent
	if c.multipart() {
		inFlight *= c.PartConcurrency
	}
	if err := c.loadTLS(inFlight * len(c.endpoints)); err != nil {
		return nil, err
	}
	if err := checkBind(c.bind); err != nil {
		return nil, err
	}
	if err := ph.newClients(inFlight); err != nil {
		return nil, err
	}
	ph.retainFor = c.duration + time.Hour
	ph.lean = leanUsable(c)
	ph.picker = newHostPicker(len(c.endpoints), c.HostSelect, ph.env.Rank)
	if ph.picker.cross {
		ph.adminEp = ph.picker.write // the bucket's upkeep through this host's own gateway
	}
	ph.admin = ph.cls[0][ph.adminEp]
	if err := ph.setEncryption(); err != nil {
		return nil, err
	}
	var seed [8]byte
	_, _ = rand.Read(seed[:])
	blockSize := int64(c.ObjSize)
	if c.ListExisting {
		blockSize = 0 // nothing is uploaded
	}
	ph.data = newDataBlock(blockSize, uint64(seed[0])|uint64(seed[1])<<8|uint64(seed[2])<<16|uint64(seed[3])<<24)

	if err := ph.checkEndpoints(ctx); err != nil {
		ph.closeIdle()
		return nil, err
	}
	if c.ListExisting {
		// Reads only: no bucket, marker or object is made, so there is
		// nothing to undo.
		if err := ph.listExisting(ctx); err != nil {
			ph.closeIdle()
			return nil, err
		}
		return ph, nil
	}
	// From here on the bucket, its marker and objects may exist: a failure
	// or an interrupt removes what this phase made before returning.
	if err := ph.ensureBucket(ctx); err != nil {
		return nil, ph.undo(ctx, err)
	}
	if err := ph.probeOptions(ctx); err != nil {
		return nil, ph.undo(ctx, err)
	}
	if err := ph.prepareObjects(ctx); err != nil {
		return nil, ph.undo(ctx, err)
	}
	return ph, nil
}

// newClients makes the phase's HTTP transports and its minio-go clients,
// one per in-flight request and endpoint; split out of Prepare to keep it
// short. One transport per --bind address (one without), each pooling the
// connections of the workers that start from that address, and each
// bounding every request (boundedTransport).
func (ph *phase) newClients(inFlight int) error {
	c := ph.c
	nt := max(1, len(c.bind))
	for i := range nt {
		t := newTransport(c, (inFlight+nt-1)/nt, ph.localAddr(i))
		rt := &boundedTransport{base: t, timeout: c.requestTimeout}
		ph.trs, ph.rts = append(ph.trs, t), append(ph.rts, rt)
		ph.httpc = append(ph.httpc, &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }})
	}
	ph.cls = make([][]*minio.Client, inFlight)
	for w := range ph.cls {
		ph.cls[w] = make([]*minio.Client, len(c.endpoints))
		for e, ep := range c.endpoints {
			var err error
			if ph.cls[w][e], err = newClient(c, ep, ph.rts[w%nt]); err != nil {
				return err
			}
		}
	}
	return nil
}

// setEncryption sets the phase's server-side encryption: an SSE-C key of
// its own with --encrypt (every request), and SSE-S3 or SSE-KMS for
// uploads only; split out of Prepare to keep it short.
func (ph *phase) setEncryption() error {
	c := ph.c
	if c.Encrypt {
		key := make([]byte, 32)
		_, _ = rand.Read(key)
		var err error
		if ph.sse, err = encrypt.NewSSEC(key); err != nil {
			return err
		}
	}
	ph.putSSE = ph.sse
	switch {
	case c.SSES3:
		ph.putSSE = encrypt.NewSSE()
	case c.SSEKMS != "":
		var err error
		if ph.putSSE, err = encrypt.NewSSEKMS(c.SSEKMS, nil); err != nil {
			return fmt.Errorf("s3: --sse-kms: %v", err)
		}
	}
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

// fail ends the run stage because of err: the workers stop between
// requests, and Run returns the first such err with what was measured.
func (ph *phase) fail(err error) {
	ph.failed.CompareAndSwap(nil, &err)
	ph.halt()
}

// closeIdle closes the idle connections of the phase's transports.
func (ph *phase) closeIdle() {
	for _, t := range ph.trs {
		t.CloseIdleConnections()
	}
}

// localAddr is the address worker w's connections start from (--bind,
// the addresses in turn), or nil.
func (ph *phase) localAddr(w int) *net.TCPAddr {
	if len(ph.c.bind) == 0 {
		return nil
	}
	return &net.TCPAddr{IP: net.ParseIP(ph.c.bind[w%len(ph.c.bind)])}
}

// CheckBind checks --bind's addresses (comma-separated) on this machine,
// as an agent does before its phase: for a run whose workers are local,
// before anything is written.
func CheckBind(bind string) error {
	c := &config{Params: Params{Bind: bind}}
	if err := resolveRequestOptions(c); err != nil {
		return err
	}
	return checkBind(c.bind)
}

// checkBind makes sure every --bind address is one of this machine's: a
// socket is bound to each. A missing one is bad input, said before any
// load runs.
func checkBind(addrs []string) error {
	for _, a := range addrs {
		l, err := net.Listen("tcp", net.JoinHostPort(a, "0"))
		if err != nil {
			why := err.Error()
			var se *os.SyscallError
			if errors.As(err, &se) {
				why = se.Err.Error()
			}
			return engine.Unsupported(fmt.Sprintf("s3: --bind %s: not an address of this machine (%s)", a, why))
		}
		l.Close()
	}
	return nil
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
		err := again(ctx, func() error {
			cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
			defer cancel()
			for o := range listObjects(cctx, ph.cls[0][e], ph.c.Bucket, minio.ListObjectsOptions{Prefix: ph.prefix, MaxKeys: 1}) {
				return o.Err
			}
			return nil
		})
		if err != nil && minio.ToErrorResponse(err).Code != "NoSuchBucket" {
			return explain(ep, ph.c, err)
		}
	}
	return nil
}

// probeOptions uploads one small object with the upload options a server
// may ignore without a word - encryption, storage class, checksums
// (checkChecksum) - and reads it back: a server that refused or ignored one is said in one line, before
// any load, rather than measured as if it had applied it.
func (ph *phase) probeOptions(ctx context.Context) error {
	c := ph.c
	if c.Checksum != "" {
		if err := ph.checkChecksum(ctx); err != nil {
			return err
		}
	}
	class := c.StorageClass != "" && c.StorageClass != "STANDARD" // STANDARD is not echoed
	if !c.SSES3 && c.SSEKMS == "" && !class {
		return nil
	}
	var flags []string
	if c.SSES3 {
		flags = append(flags, "--sse-s3-encrypt")
	}
	if c.SSEKMS != "" {
		flags = append(flags, "--sse-kms "+c.SSEKMS)
	}
	if class {
		flags = append(flags, "--storage-class "+c.StorageClass)
	}
	key := ph.prefix + "probe"
	opts := ph.putOpts()
	opts.Checksum = 0
	core := minio.Core{Client: ph.admin}
	if _, err := core.PutObject(ctx, c.Bucket, key, strings.NewReader("probe"), 5, "", "", opts); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return engine.Unsupported(fmt.Sprintf("s3: %s: the server refused an upload with it (%s)", strings.Join(flags, " "), errorKind(err)))
	}
	info, err := ph.admin.StatObject(ctx, c.Bucket, key, minio.StatObjectOptions{})
	_ = ph.admin.RemoveObject(context.WithoutCancel(ctx), c.Bucket, key, minio.RemoveObjectOptions{})
	if err != nil {
		return fmt.Errorf("s3: reading back an upload with %s: %v", strings.Join(flags, " "), err)
	}
	got := info.Metadata.Get("X-Amz-Server-Side-Encryption")
	switch {
	case c.SSES3 && got != "AES256":
		return engine.Unsupported("s3: --sse-s3-encrypt: the server does not encrypt with SSE-S3 (an object written with it reads back without x-amz-server-side-encryption: AES256)")
	case c.SSEKMS != "" && got != "aws:kms":
		return engine.Unsupported("s3: --sse-kms: the server does not encrypt with SSE-KMS (an object written with it reads back without x-amz-server-side-encryption: aws:kms)")
	case class && info.StorageClass != c.StorageClass:
		return engine.Unsupported(fmt.Sprintf("s3: --storage-class %s: the server does not keep storage classes (an object written with it reads back as %q)", c.StorageClass, info.StorageClass))
	}
	return nil
}

// workerPrefix is worker w's key prefix.
func (ph *phase) workerPrefix(w int) string {
	if ph.c.NoPrefix && ph.c.Op != "list" {
		return ph.prefix
	}
	return ph.prefix + "w" + strconv.Itoa(w) + "/"
}

// putOpts are the options of a single PUT (and of a multipart upload's
// creation and completion) through minio-go.
func (ph *phase) putOpts() minio.PutObjectOptions {
	c := ph.c
	o := minio.PutObjectOptions{
		DisableContentSha256: !c.SignPayload,
		DisableMultipart:     true,
		ServerSideEncryption: ph.putSSE,
		StorageClass:         c.StorageClass,
		UserMetadata:         c.AddMetadata,
		UserTags:             c.Tag,
	}
	if c.Checksum != "" {
		o.Checksum = checksumTypes[c.Checksum]
	}
	if c.Op == "list" && c.Metadata {
		// Something for a listing with metadata to return.
		md := map[string]string{"storbench": "list"}
		for k, v := range c.AddMetadata {
			md[k] = v
		}
		o.UserMetadata = md
	}
	if c.Op == "retention" {
		// Uploads are made with a retention the run then reads and
		// updates.
		o.Mode = minio.Governance
		o.RetainUntilDate = time.Now().Add(ph.retainFor).UTC()
	}
	return o
}

// Run waits for startAt, runs the benchmark until its duration, autoterm or
// ctx, and returns what was measured. ctx cancelled mid-run still returns
// the results so far.
func (ph *phase) Run(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	if live != nil {
		live(engine.Starting(ph.env.Host, ph.name, ph.ops, ph.c.duration))
	}
	if err := engine.WaitUntil(ctx, startAt); err != nil {
		return nil, err
	}
	c := ph.c
	var olog *opLog
	if c.BenchData != "" {
		var err error
		if olog, err = newOpLog(c.BenchData, c.Concurrent); err != nil {
			return nil, err
		}
	}
	recs, epRecs := ph.recorders()
	ph.stopCh = make(chan struct{})
	ph.monoBase = time.Now()
	ph.unixBase = ph.monoBase.UnixNano()
	startNs := ph.unixBase
	sampler := record.NewSampler(ph.ops, recs, startNs)
	workers := ph.workers(recs, epRecs, olog)
	// A hard stop (ctx) aborts requests in flight; the duration's stop is a
	// flag checked between requests, so the last requests end normally, if
	// they end within the grace: then what is still open is cut (graceCut).
	// minio-go's requests are cut through the transport, which holds the
	// run's cut while it runs; the lean path's by each client.
	cutCtx, cutRun := context.WithCancelCause(context.Background())
	for _, rt := range ph.rts {
		rt.cut.Store(&cutCtx)
	}
	defer func() {
		for _, rt := range ph.rts {
			rt.cut.Store(nil)
		}
		cutRun(nil)
	}()
	defer context.AfterFunc(ctx, func() { cutRun(context.Canceled) })()
	graceCut := func() {
		cutRun(errGraceCut)
		for _, wk := range workers {
			if wk.lean != nil {
				wk.lean.cutAll(cutGrace)
			}
		}
	}
	finished := startWorkers(ctx, workers)
	stoppedBy, graceTimer := ph.until(ctx, finished, sampler, live, graceCut)
	defer func() {
		if graceTimer != nil {
			graceTimer.Stop()
		}
	}()
	end := time.Now()
	endNs := ph.unixBase + int64(end.Sub(ph.monoBase))
	ph.countWritten(workers)
	sampler.Sample(endNs)
	res := ph.hostResult(sampler, workers, stoppedBy)
	res.Ops = opStats(ph.ops, recs, startNs, endNs)
	res.BySize = ph.sizeStats(workers, startNs, endNs)
	ph.addMeta(res, end)
	if epRecs != nil {
		b, err := json.Marshal(ph.endpointStats(epRecs, startNs, endNs))
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
	return res, ph.endErr(ctx, stoppedBy)
}

// endErr is the error of a run stage that ended as stoppedBy says: why a
// worker ended it (fail), or the interrupt, or none.
func (ph *phase) endErr(ctx context.Context, stoppedBy string) error {
	if e := ph.failed.Load(); e != nil {
		return *e
	}
	if stoppedBy == "interrupted" {
		return engine.Interrupted(ctx.Err())
	}
	return nil
}

// sizedOps are the operations given per size class when objects have
// several sizes: those that move an object's bytes.
func sizedOp(name string) bool { return name == "GET" || name == "PUT" }

// sizeRecorders returns a worker's recorders of the size classes, one per
// operation that has them (nil for the others), or nil when the phase's
// objects have one size.
func (ph *phase) sizeRecorders() []*record.Recorder {
	classes := ph.c.sizes.classes
	if len(classes) == 0 {
		return nil
	}
	out := make([]*record.Recorder, len(ph.ops))
	has := false
	for i, name := range ph.ops {
		if sizedOp(name) {
			out[i] = record.NewRecorder(make([]string, len(classes)), name == "GET")
			has = true
		}
	}
	if !has {
		return nil
	}
	return out
}

// sizeStats merges the workers' size-class recorders into per-operation,
// per-class statistics over the run's window.
func (ph *phase) sizeStats(workers []*worker, startNs, endNs int64) []record.SizeOpStats {
	var out []record.SizeOpStats
	for i, name := range ph.ops {
		for k, class := range ph.c.sizes.classes {
			var s record.OpStats
			for _, wk := range workers {
				if wk.szRec != nil && wk.szRec[i] != nil {
					s = s.Combine(wk.szRec[i].Stats(k, name))
				}
			}
			if s.Ops == 0 && s.Errors == 0 {
				continue
			}
			s.Op = name
			s.StartNs, s.EndNs = startNs, endNs
			out = append(out, record.SizeOpStats{Size: class, OpStats: s})
		}
	}
	return out
}

// EndpointsFile is the Raw file with per-endpoint statistics
// (map endpoint -> []record.OpStats), present when there are several.
const EndpointsFile = "s3-endpoints.json"
