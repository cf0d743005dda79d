package s3

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"hash"
	"io"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/storbench/storbench/internal/record"
)

// checksumNames lists --checksum's algorithms for error lines.
const checksumNames = "CRC32, CRC32C, CRC64NVME, SHA1 or SHA256"

// checksumTypes are the S3 checksum algorithms --checksum takes.
var checksumTypes = map[string]minio.ChecksumType{
	"CRC32":     minio.ChecksumCRC32,
	"CRC32C":    minio.ChecksumCRC32C,
	"CRC64NVME": minio.ChecksumCRC64NVME,
	"SHA1":      minio.ChecksumSHA1,
	"SHA256":    minio.ChecksumSHA256,
}

// readBufSize is each worker's GET buffer: bodies stream through it.
const readBufSize = 64 << 10

// worker is one request loop. Everything it touches per request is its own:
// clients, buffer, body reader, random source, recorders and log chunk.
type worker struct {
	id    int
	ph    *phase
	core  []minio.Core // one per endpoint
	rec   *record.Recorder
	epRec []*record.Recorder
	buf   []byte
	body  dataReader // a PUT's body on minio-go, reused once closed (see bodyGate)
	gate  bodyGate
	gctx  context.Context // ctx of minio-go uploads, carrying gate
	gbase context.Context // what gctx was made from
	rng   *rand.Rand
	log   opLine
	put0  minio.PutObjectOptions
	get0  minio.GetObjectOptions
	stat0 minio.StatObjectOptions
	seq   int
	pfx   string
	parts []*worker   // multipart: helpers uploading parts of this worker's uploads
	lean  *leanClient // GET, PUT, HEAD, DELETE of one object, when usable
	iov   [][]byte    // body chunks of a lean PUT
	kb    []byte      // the key of a lean request
	reach reach       // endpoints' reachability and the backoff (run stage only)

	// szRec are per operation (nil where it has none) the recorders of
	// its size classes, when the phase's objects have several sizes.
	szRec []*record.Recorder
	// reqSize is the size of the object of the request finish records
	// next (a ranged GET's too), for its size class; 0: none.
	reqSize int64
	chk     bodyCheck // --verify: the GET body being checked
	ckHash  hash.Hash // --checksum of multipart parts
}

func (ph *phase) newWorker(w int, rec *record.Recorder, epRec []*record.Recorder) *worker {
	wk := &worker{id: w, ph: ph, rec: rec, epRec: epRec,
		buf:  make([]byte, readBufSize),
		rng:  rand.New(rand.NewPCG(uint64(w)+1, uint64(time.Now().UnixNano()))),
		put0: ph.putOpts(),
		pfx:  ph.workerPrefix(w % ph.c.Concurrent),
	}
	for _, cl := range ph.cls[w%len(ph.cls)] {
		wk.core = append(wk.core, minio.Core{Client: cl})
	}
	if ph.lean {
		wk.lean = newLeanClient(ph.c)
		wk.lean.local = localAddr(ph.localAddr(w))
	}
	if rec != nil {
		wk.reach.init(len(ph.c.endpoints))
	}
	if ph.sse != nil {
		wk.get0.ServerSideEncryption = ph.sse
		wk.stat0.ServerSideEncryption = ph.sse
	}
	return wk
}

// begin returns the request's start: now, or with --rate its scheduled time
// after waiting for it. ok is false when the run is over.
func (wk *worker) begin() (time.Time, bool) {
	ph := wk.ph
	if ph.stop.Load() {
		return time.Time{}, false
	}
	if u := ph.pausedUntil.Load(); u != 0 {
		ph.waitPause(u)
		if ph.stop.Load() {
			return time.Time{}, false
		}
	}
	if wk.reach.wait > 0 {
		// The last request did not reach its endpoint: back off.
		wk.reach.pause(ph.stopCh)
		if ph.stop.Load() {
			return time.Time{}, false
		}
	}
	if ph.c.Rate <= 0 {
		return time.Now(), true
	}
	k := ph.ticket.Add(1) - 1
	at := ph.monoBase.Add(time.Duration(float64(k) / ph.c.Rate * 1e9))
	if at.After(ph.monoBase.Add(ph.c.duration)) {
		ph.ticket.Add(-1)
		return time.Time{}, false
	}
	if d := time.Until(at); d > 0 {
		time.Sleep(d)
	}
	if ph.stop.Load() {
		return time.Time{}, false
	}
	return at, true
}

// finish records one request that started at t0 on endpoint ep.
func (wk *worker) finish(op, ep int, t0, first time.Time, n int64, err error) {
	end := time.Now()
	lat := int64(end.Sub(t0))
	ph := wk.ph
	ph.picker.done(ep, int64(end.Sub(ph.monoBase)))
	var ttfb int64
	if !first.IsZero() {
		ttfb = int64(first.Sub(t0))
	}
	kind := ""
	if err != nil {
		kind = errorKind(err)
		if kind == "canceled" && ph.stop.Load() {
			return // the run was stopped under this request
		}
		if connErrorKind(kind) {
			wk.reach.failed(ep, int64(t0.Sub(ph.monoBase)))
		} else {
			wk.reach.answered(ep, int64(t0.Sub(ph.monoBase)))
		}
		wk.rec.Op(op).RecordError(kind)
		if wk.epRec != nil {
			wk.epRec[ep].Op(op).RecordError(kind)
		}
	} else {
		if wk.reach.wait > 0 || (wk.reach.downSince != nil && wk.reach.downSince[ep] != 0) {
			wk.reach.answered(ep, int64(t0.Sub(ph.monoBase)))
		}
		o := wk.rec.Op(op)
		o.Record(lat, n)
		if ttfb > 0 {
			o.RecordTTFB(ttfb)
		}
		if wk.epRec != nil {
			e := wk.epRec[ep].Op(op)
			e.Record(lat, n)
			if ttfb > 0 {
				e.RecordTTFB(ttfb)
			}
		}
	}
	if wk.szRec != nil {
		wk.recordSize(op, lat, ttfb, n, kind, err != nil)
	}
	if wk.log.l != nil {
		wk.log.add(ph.ops[op], wk.id, ph.c.endpoints[ep], ph.unixBase+int64(t0.Sub(ph.monoBase)), ttfb, lat, n, kind)
	}
}

// recordSize records a request in its size class, and forgets its size.
func (wk *worker) recordSize(op int, lat, ttfb, n int64, kind string, failed bool) {
	size := wk.reqSize
	wk.reqSize = 0
	r := wk.szRec[op]
	if r == nil || size <= 0 {
		return
	}
	o := r.Op(wk.ph.c.sizes.class(size))
	if failed {
		o.RecordError(kind)
		return
	}
	o.Record(lat, n)
	if ttfb > 0 {
		o.RecordTTFB(ttfb)
	}
}

// run is the worker's loop for the phase's benchmark.
func (wk *worker) run(ctx context.Context) {
	if wk.lean != nil {
		defer wk.lean.bind(ctx)()
	}
	switch wk.ph.c.Op {
	case "get":
		wk.loopGet(ctx)
	case "put":
		wk.loopPut(ctx)
	case "stat":
		wk.loopStat(ctx)
	case "delete":
		wk.loopDelete(ctx)
	case "list":
		wk.loopList(ctx)
	case "multipart", "multipart-put":
		wk.loopMultipart(ctx)
	case "retention":
		wk.loopRetention(ctx)
	default:
		wk.loopMixed(ctx)
	}
}

// put uploads one object of size bytes to key through endpoint ep.
func (wk *worker) put(ctx context.Context, ep int, key string, size int64) (minio.UploadInfo, error) {
	d := wk.ph.data
	c := wk.ph.c
	if size > MultipartThreshold && !c.DisableMultipart {
		// In parts, as warp (through minio-go) uploads it: the body is an
		// io.ReaderAt, so minio-go sends parts from it without buffers.
		wk.body.reset(d, d.offset(key), size)
		opts := wk.put0
		opts.DisableMultipart = false
		opts.SendContentMd5 = c.MD5
		return wk.core[ep].Client.PutObject(ctx, c.Bucket, key, &wk.body, size, opts)
	}
	if wk.lean != nil {
		return minio.UploadInfo{}, wk.putLean(ep, wk.keyBytes(key), size)
	}
	wk.gate.wait()
	wk.body.reset(d, d.offset(key), size)
	var md5b64 string
	if c.MD5 {
		h := md5.New()
		_, _ = io.Copy(h, &wk.body)
		var sum [md5.Size]byte
		md5b64 = base64.StdEncoding.EncodeToString(h.Sum(sum[:0]))
		wk.body.reset(d, d.offset(key), size)
	}
	return wk.core[ep].PutObject(wk.gated(ctx), wk.ph.c.Bucket, key, &wk.body, size, md5b64, "", wk.put0)
}

// gated returns ctx carrying the worker's body gate, made once per ctx.
func (wk *worker) gated(ctx context.Context) context.Context {
	if wk.gbase != ctx {
		if wk.gate.closed == nil {
			wk.gate.closed = make(chan struct{}, 1)
		}
		wk.gctx, wk.gbase = context.WithValue(ctx, bodyGateKey{}, &wk.gate), ctx
	}
	return wk.gctx
}

// get reads key (version ver when not empty; the bytes [off, off+ln) of
// it when ln > 0) through ep into the worker's buffer, and returns the
// bytes read and when the first byte arrived; want is the length the body
// must have. With --verify every byte is checked as it streams.
func (wk *worker) get(ctx context.Context, ep int, key, ver string, want, off, ln int64) (int64, time.Time, error) {
	var chk *bodyCheck
	if wk.ph.c.Verify {
		chk = &wk.chk
		chk.reset(wk.ph.data, offsetOf(wk.ph.data, key), off)
	}
	if wk.lean != nil {
		wk.lean.check = chk
		n, first, err := wk.lean.get(ep, wk.keyBytes(key), off, ln, wk.buf)
		if err == nil && want >= 0 && n != want {
			err = errShortRead
		}
		return n, first, err
	}
	opts := &wk.get0
	if ln > 0 || ver != "" {
		// A new value, not a copy of get0: SetRange writes into a header map.
		o := minio.GetObjectOptions{ServerSideEncryption: wk.get0.ServerSideEncryption, VersionID: ver}
		if ln > 0 {
			_ = o.SetRange(off, off+ln-1)
		}
		opts = &o
	}
	rc, _, _, err := wk.core[ep].GetObject(ctx, wk.ph.c.Bucket, key, *opts)
	if err != nil {
		return 0, time.Time{}, err
	}
	var n int64
	var first time.Time
	for {
		m, rerr := rc.Read(wk.buf)
		if m > 0 {
			if n == 0 {
				first = time.Now()
			}
			n += int64(m)
			if chk != nil {
				chk.check(wk.buf[:m])
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			rc.Close()
			return n, first, rerr
		}
	}
	rc.Close()
	if chk != nil && chk.bad {
		return n, first, errContentMismatch
	}
	if want >= 0 && n != want {
		return n, first, errShortRead
	}
	return n, first, nil
}

func (wk *worker) loopGet(ctx context.Context) {
	for {
		t0, ok := wk.begin()
		if !ok {
			return
		}
		wk.getOnce(ctx, t0)
	}
}

// pickRange draws the byte range of a GET of an object of size bytes:
// with --range-size a range of that length at a random offset, with
// --range a random offset and length, else the whole object (ln 0). want
// is the length the body must have.
func (wk *worker) pickRange(size int64) (off, ln, want int64) {
	c := wk.ph.c
	switch {
	case c.RangeSize > 0:
		ln = int64(c.RangeSize)
		return wk.rng.Int64N(size - ln + 1), ln, ln
	case c.Range && size > 1:
		off = wk.rng.Int64N(size)
		ln = 1 + wk.rng.Int64N(size-off)
		return off, ln, ln
	}
	return 0, 0, size
}

func (wk *worker) getOnce(ctx context.Context, t0 time.Time) {
	ph := wk.ph
	i := wk.rng.IntN(len(ph.keys))
	off, ln, want := wk.pickRange(ph.sizes[i])
	ep := ph.picker.pick()
	n, first, err := wk.get(ctx, ep, ph.keys[i], "", want, off, ln)
	wk.reqSize = ph.sizes[i]
	wk.finish(0, ep, t0, first, n, err)
}

// putKey appends the key of a worker's seq-th upload (sep "-" for put,
// "-m" for mixed) to b.
func putKey(b []byte, pfx string, id int, sep string, seq int) []byte {
	b = append(b, pfx...)
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, sep...)
	return strconv.AppendInt(b, int64(seq), 10)
}

func (wk *worker) loopPut(ctx context.Context) {
	for {
		t0, ok := wk.begin()
		if !ok {
			return
		}
		wk.putOnce(ctx, t0)
	}
}

func (wk *worker) putOnce(ctx context.Context, t0 time.Time) {
	ph := wk.ph
	wk.seq++
	wk.kb = putKey(wk.kb[:0], wk.pfx, wk.id, "-", wk.seq)
	size := ph.c.sizes.draw(wk.rng)
	ep := ph.picker.pickWrite()
	var err error
	if wk.lean != nil && (size <= MultipartThreshold || ph.c.DisableMultipart) {
		err = wk.putLean(ep, wk.kb, size)
	} else {
		_, err = wk.put(ctx, ep, string(wk.kb), size)
	}
	wk.reqSize = size
	if err != nil {
		size = 0
	}
	wk.finish(0, ep, t0, time.Time{}, size, err)
}

func (wk *worker) loopStat(ctx context.Context) {
	ph := wk.ph
	for {
		t0, ok := wk.begin()
		if !ok {
			return
		}
		i := wk.rng.IntN(len(ph.keys))
		ep := ph.picker.pick()
		var err error
		if wk.lean != nil {
			err = wk.lean.stat(ep, wk.keyBytes(ph.keys[i]), wk.buf)
		} else {
			_, err = wk.core[ep].StatObject(ctx, ph.c.Bucket, ph.keys[i], wk.stat0)
		}
		wk.finish(0, ep, t0, time.Time{}, 0, err)
	}
}

// loopDelete removes the prepared objects in batches until none are left.
func (wk *worker) loopDelete(ctx context.Context) {
	ph := wk.ph
	batch := ph.c.Batch
	objs := make([]minio.ObjectInfo, 0, batch)
	for {
		t0, ok := wk.begin()
		if !ok {
			return
		}
		from := int(ph.delNext.Add(int64(batch))) - batch
		if from >= len(ph.keys) {
			return
		}
		to := min(from+batch, len(ph.keys))
		objs = objs[:0]
		for _, k := range ph.keys[from:to] {
			objs = append(objs, minio.ObjectInfo{Key: k})
		}
		ep := ph.picker.pick()
		var err error
		if len(objs) == 1 && wk.lean != nil {
			err = wk.lean.remove(ep, wk.keyBytes(objs[0].Key), wk.buf)
		} else if len(objs) == 1 {
			err = wk.core[ep].RemoveObject(ctx, ph.c.Bucket, objs[0].Key, minio.RemoveObjectOptions{})
		} else {
			for r := range wk.core[ep].RemoveObjectsWithResult(ctx, ph.c.Bucket, sliceChan(objs), minio.RemoveObjectsOptions{}) {
				if r.Err != nil && err == nil {
					err = r.Err
				}
			}
		}
		wk.finish(0, ep, t0, time.Time{}, 0, err)
	}
}

func sliceChan(objs []minio.ObjectInfo) <-chan minio.ObjectInfo {
	ch := make(chan minio.ObjectInfo, len(objs))
	for _, o := range objs {
		ch <- o
	}
	close(ch)
	return ch
}

// loopList lists the worker's own prefix in full, --max-keys keys a
// request (with --versions > 1 every version, with --metadata the objects'
// metadata); the time to the first page is its TTFB. A listing that does
// not return every entry prepared is an error ("list count"), as warp
// counts it (with --list-existing, whose entries are not storbench's, no
// count is checked).
func (wk *worker) loopList(ctx context.Context) {
	ph := wk.ph
	c := ph.c
	pfx := ph.listPfx[wk.id%len(ph.listPfx)]
	want := ph.listWant[wk.id%len(ph.listWant)]
	for {
		t0, ok := wk.begin()
		if !ok {
			return
		}
		ep := ph.picker.pick()
		var first time.Time
		var err error
		var n int64
		if c.Versions > 1 || c.Metadata {
			opts := minio.ListObjectsOptions{Prefix: pfx, Recursive: true, WithVersions: c.Versions > 1,
				WithMetadata: c.Metadata, MaxKeys: c.MaxKeys}
			for o := range listObjects(ctx, wk.core[ep].Client, c.Bucket, opts) {
				if first.IsZero() {
					first = time.Now()
				}
				if o.Err != nil {
					err = o.Err
					break
				}
				n++
			}
		} else {
			n, first, err = wk.listPages(ctx, ep, pfx)
		}
		if err == nil && want >= 0 && n != want {
			err = errListCount
		}
		wk.finish(0, ep, t0, first, 0, err)
		if errors.Is(err, errListLoop) {
			// Listing on would only list the same pages again.
			wk.ph.fail(err)
			return
		}
	}
}

// listPages lists pfx in full on endpoint ep, a page at a time, and
// returns the entries it counted and when the first page came. A hard
// stop (ctx) ends it between pages; a server that gives a continuation
// twice, or pages with nothing in them for ever, ends it with a
// *ListLoopError (pageGuard).
func (wk *worker) listPages(ctx context.Context, ep int, pfx string) (n int64, first time.Time, err error) {
	c := wk.ph.c
	g := newPageGuard(c.Bucket, pfx)
	token := ""
	for {
		at := ""
		if token != "" {
			at = "continuation-token=" + token
		}
		if err := g.next(c.endpoints[ep], at); err != nil {
			return n, first, err
		}
		res, err := wk.core[ep].ListObjectsV2(c.Bucket, pfx, "", token, "", c.MaxKeys)
		if first.IsZero() {
			first = time.Now()
		}
		if err != nil {
			return n, first, err
		}
		n += int64(len(res.Contents))
		g.entries.Store(n)
		if !res.IsTruncated || res.NextContinuationToken == "" {
			return n, first, nil
		}
		if ctx.Err() != nil {
			return n, first, ctx.Err()
		}
		token = res.NextContinuationToken
	}
}

// errListCount is a listing that did not return every entry prepared.
var errListCount = errors.New("the listing missed entries or returned others")

// putLean uploads size bytes of the phase's content for key on the lean path.
func (wk *worker) putLean(ep int, key []byte, size int64) error {
	d := wk.ph.data
	wk.iov = d.bodyChunks(wk.iov[:0], offsetOf(d, key), size)
	return wk.lean.put(ep, key, size, wk.iov, wk.buf)
}

// keyBytes copies key into the worker's key buffer.
func (wk *worker) keyBytes(key string) []byte {
	wk.kb = append(wk.kb[:0], key...)
	return wk.kb
}
