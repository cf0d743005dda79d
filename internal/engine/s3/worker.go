package s3

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"hash"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
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
			lctx, cancel := context.WithCancel(ctx)
			opts := minio.ListObjectsOptions{Prefix: pfx, Recursive: true, WithVersions: c.Versions > 1,
				WithMetadata: c.Metadata, MaxKeys: c.MaxKeys}
			for o := range wk.core[ep].Client.ListObjects(lctx, c.Bucket, opts) {
				if first.IsZero() {
					first = time.Now()
				}
				if o.Err != nil {
					err = o.Err
					break
				}
				n++
			}
			cancel()
		} else {
			token := ""
			for {
				res, lerr := wk.core[ep].ListObjectsV2(c.Bucket, pfx, "", token, "", c.MaxKeys)
				if first.IsZero() {
					first = time.Now()
				}
				if lerr != nil {
					err = lerr
					break
				}
				n += int64(len(res.Contents))
				if !res.IsTruncated || res.NextContinuationToken == "" {
					break
				}
				token = res.NextContinuationToken
			}
		}
		if err == nil && want >= 0 && n != want {
			err = errListCount
		}
		wk.finish(0, ep, t0, first, 0, err)
	}
}

// errListCount is a listing that did not return every entry prepared.
var errListCount = errors.New("the listing missed entries or returned others")

// loopMultipart uploads objects of --parts parts, --part.concurrent at a
// time; each part is a PART request, each whole upload an UPLOAD.
func (wk *worker) loopMultipart(ctx context.Context) {
	ph := wk.ph
	c := ph.c
	size := int64(c.PartSize)
	helpers := append([]*worker{wk}, wk.parts...)
	parts := make([]minio.CompletePart, c.Parts)
	create := wk.put0
	ck := checksumTypes[c.Checksum]
	if ck.IsSet() {
		// The upload announces the algorithm; every part carries its sum.
		create.UserMetadata = map[string]string{"x-amz-checksum-algorithm": ck.String()}
		if ck.FullObjectRequested() {
			create.UserMetadata["x-amz-checksum-type"] = "FULL_OBJECT"
		}
		for k, v := range c.AddMetadata {
			create.UserMetadata[k] = v
		}
	}
	for {
		t0, ok := wk.begin()
		if !ok {
			return
		}
		wk.seq++
		key := wk.pfx + strconv.Itoa(wk.id) + "-" + strconv.Itoa(wk.seq)
		ep := ph.picker.pick()
		id, err := wk.core[ep].NewMultipartUpload(ctx, c.Bucket, key, create)
		if err != nil {
			wk.finish(0, ep, t0, time.Time{}, 0, err)
			continue
		}
		var next, failed int64
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, h := range helpers {
			wg.Add(1)
			go func(h *worker) {
				defer wg.Done()
				for {
					mu.Lock()
					p := int(next)
					next++
					stop := failed > 0
					mu.Unlock()
					if p >= c.Parts || stop {
						return
					}
					pt0 := time.Now()
					d := ph.data
					h.gate.wait()
					start := (d.offset(key) + p*7919) % len(d.b)
					popts := minio.PutObjectPartOptions{SSE: ph.sse, DisableContentSha256: !c.SignPayload}
					var sum string
					if ck.IsSet() {
						sum = h.partChecksum(ck, start, size)
						popts.CustomHeader = http.Header{ck.Key(): []string{sum}}
					}
					h.body.reset(d, start, size)
					info, perr := h.core[ep].PutObjectPart(h.gated(ctx), c.Bucket, key, id, p+1, &h.body, size, popts)
					n := size
					if perr != nil {
						n = 0
						mu.Lock()
						failed++
						mu.Unlock()
					}
					parts[p] = completePart(p+1, info.ETag, ck, sum)
					h.finish(1, ep, pt0, time.Time{}, n, perr)
				}
			}(h)
		}
		wg.Wait()
		if failed > 0 {
			_ = wk.core[ep].AbortMultipartUpload(context.WithoutCancel(ctx), c.Bucket, key, id)
			wk.finish(0, ep, t0, time.Time{}, 0, errPartFailed)
			continue
		}
		_, err = wk.core[ep].CompleteMultipartUpload(ctx, c.Bucket, key, id, parts, wk.put0)
		n := size * int64(c.Parts)
		if err != nil {
			n = 0
		}
		wk.finish(0, ep, t0, time.Time{}, n, err)
	}
}

// partChecksum is the --checksum of a part of size bytes whose content
// starts at start in the data block, base64 as S3 wants it.
func (wk *worker) partChecksum(ck minio.ChecksumType, start int, size int64) string {
	if wk.ckHash == nil {
		wk.ckHash = ck.Hasher()
	}
	wk.ckHash.Reset()
	wk.body.reset(wk.ph.data, start, size)
	_, _ = wk.body.WriteTo(wk.ckHash)
	return base64.StdEncoding.EncodeToString(wk.ckHash.Sum(nil))
}

// completePart is a part as CompleteMultipartUpload lists it, with its
// checksum when the upload has one.
func completePart(n int, etag string, ck minio.ChecksumType, sum string) minio.CompletePart {
	p := minio.CompletePart{PartNumber: n, ETag: etag}
	switch ck.Base() {
	case minio.ChecksumCRC32:
		p.ChecksumCRC32 = sum
	case minio.ChecksumCRC32C:
		p.ChecksumCRC32C = sum
	case minio.ChecksumCRC64NVME:
		p.ChecksumCRC64NVME = sum
	case minio.ChecksumSHA1:
		p.ChecksumSHA1 = sum
	case minio.ChecksumSHA256:
		p.ChecksumSHA256 = sum
	}
	return p
}

var errPartFailed = &partError{}

type partError struct{}

func (*partError) Error() string { return "a part failed" }

// loopMixed draws each request's operation from the distribution and works
// on the shared object pool (versioned: on specific versions).
func (wk *worker) loopMixed(ctx context.Context) {
	ph := wk.ph
	c := ph.c
	total := c.dist[0] + c.dist[1] + c.dist[2] + c.dist[3]
	versioned := c.Op == "versioned"
	for {
		t0, ok := wk.begin()
		if !ok {
			return
		}
		x := wk.rng.Float64() * total
		op := 0
		for op < 3 && x >= c.dist[op] {
			x -= c.dist[op]
			op++
		}
		ep := ph.picker.pick()
		switch op {
		case dGet, dStat:
			obj, ok := ph.readObject(wk.rng)
			if !ok {
				wk.finish(op, ep, t0, time.Time{}, 0, errPoolEmpty)
				continue
			}
			var err error
			var n int64
			var first time.Time
			if op == dGet {
				ver := ""
				if versioned {
					ver = obj.ver
				}
				off, ln, want := wk.pickRange(obj.size)
				n, first, err = wk.get(ctx, ep, obj.key, ver, want, off, ln)
				wk.reqSize = obj.size
			} else {
				opts := wk.stat0
				if versioned {
					opts.VersionID = obj.ver
				}
				if wk.lean != nil {
					err = wk.lean.stat(ep, wk.keyBytes(obj.key), wk.buf)
				} else {
					_, err = wk.core[ep].StatObject(ctx, c.Bucket, obj.key, opts)
				}
			}
			if ph.pool != nil {
				ph.pool.release(obj)
			}
			wk.finish(op, ep, t0, first, n, err)
		case dPut:
			size := c.sizes.draw(wk.rng)
			var key string
			if versioned {
				// A new version of an existing key, so keys carry history.
				obj, ok := ph.pool.peek(wk.rng)
				if !ok {
					wk.finish(op, ep, t0, time.Time{}, 0, errPoolEmpty)
					continue
				}
				key = obj.key
			} else {
				wk.seq++
				key = wk.pfx + strconv.Itoa(wk.id) + "-m" + strconv.Itoa(wk.seq)
			}
			info, err := wk.put(ctx, ep, key, size)
			wk.reqSize = size
			if err == nil {
				ph.pool.add(poolObj{key: key, size: size, ver: info.VersionID})
			} else {
				size = 0
			}
			wk.finish(op, ep, t0, time.Time{}, size, err)
		case dDelete:
			obj, ok := ph.pool.take(wk.rng)
			if !ok {
				wk.finish(op, ep, t0, time.Time{}, 0, errPoolEmpty)
				continue
			}
			opts := minio.RemoveObjectOptions{}
			if versioned {
				opts.VersionID = obj.ver
			}
			var err error
			if wk.lean != nil {
				err = wk.lean.remove(ep, wk.keyBytes(obj.key), wk.buf)
			} else {
				err = wk.core[ep].RemoveObject(ctx, c.Bucket, obj.key, opts)
			}
			wk.finish(op, ep, t0, time.Time{}, 0, err)
		}
	}
}

// readObject draws the object of a mixed GET or STAT: leased from the
// pool, or with --list-existing (reads only, nothing to protect a read
// from) one of the listed objects.
func (ph *phase) readObject(rng *rand.Rand) (poolObj, bool) {
	if ph.pool != nil {
		return ph.pool.lease(rng)
	}
	i := rng.IntN(len(ph.keys))
	return poolObj{key: ph.keys[i], size: ph.sizes[i]}, true
}

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
