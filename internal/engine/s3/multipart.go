package s3

import (
	"context"
	"encoding/base64"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
)

// upload is one multipart upload in flight, shared by the worker and its
// part helpers: where it goes, the checksum its parts carry, and the
// parts as CompleteMultipartUpload lists them.
type upload struct {
	ep      int
	key, id string
	ck      minio.ChecksumType
	size    int64 // of a part
	parts   []minio.CompletePart

	// mu guards next, the part a helper takes next, and failed, the parts
	// that failed: after a failure no helper starts another part.
	mu     sync.Mutex
	next   int
	failed int
}

// take hands out the next part to upload; ok is false when every part is
// taken or one failed.
func (u *upload) take() (p int, ok bool) {
	u.mu.Lock()
	p = u.next
	u.next++
	stop := u.failed > 0
	u.mu.Unlock()
	return p, p < len(u.parts) && !stop
}

// fail counts a part that failed.
func (u *upload) fail() {
	u.mu.Lock()
	u.failed++
	u.mu.Unlock()
}

// loopMultipart uploads objects of --parts parts, --part.concurrent at a
// time; each part is a PART request, each whole upload an UPLOAD.
func (wk *worker) loopMultipart(ctx context.Context) {
	c := wk.ph.c
	helpers := append([]*worker{wk}, wk.parts...)
	create := wk.multipartOpts()
	up := &upload{ck: checksumTypes[c.Checksum], size: int64(c.PartSize), parts: make([]minio.CompletePart, c.Parts)}
	for {
		t0, ok := wk.begin()
		if !ok {
			return
		}
		wk.uploadOnce(ctx, t0, up, create, helpers)
	}
}

// multipartOpts are the options of a multipart upload's creation: with
// --checksum, the upload announces the algorithm, and every part carries
// its sum.
func (wk *worker) multipartOpts() minio.PutObjectOptions {
	return multipartCreate(wk.put0, checksumTypes[wk.ph.c.Checksum], wk.ph.c.AddMetadata)
}

// multipartCreate is base made to announce checksum ck (when set), as the
// creation of a multipart upload whose parts carry it; meta is the user
// metadata every upload carries.
func multipartCreate(base minio.PutObjectOptions, ck minio.ChecksumType, meta map[string]string) minio.PutObjectOptions {
	if ck.IsSet() {
		base.UserMetadata = map[string]string{"x-amz-checksum-algorithm": ck.String()}
		if ck.FullObjectRequested() {
			base.UserMetadata["x-amz-checksum-type"] = "FULL_OBJECT"
		}
		for k, v := range meta {
			base.UserMetadata[k] = v
		}
	}
	return base
}

// uploadOnce makes one multipart upload that started at t0: creates it,
// has the helpers upload its parts, and completes it, or aborts it when a
// part failed.
func (wk *worker) uploadOnce(ctx context.Context, t0 time.Time, up *upload, create minio.PutObjectOptions, helpers []*worker) {
	ph := wk.ph
	c := ph.c
	wk.seq++
	up.key = wk.pfx + strconv.Itoa(wk.id) + "-" + strconv.Itoa(wk.seq)
	up.ep = ph.picker.pick()
	id, err := wk.core[up.ep].NewMultipartUpload(ctx, c.Bucket, up.key, create)
	if err != nil {
		wk.finish(0, up.ep, t0, time.Time{}, 0, err)
		return
	}
	up.id, up.next, up.failed = id, 0, 0
	var wg sync.WaitGroup
	for _, h := range helpers {
		wg.Add(1)
		go func(h *worker) {
			defer wg.Done()
			h.putParts(ctx, up)
		}(h)
	}
	wg.Wait()
	if up.failed > 0 {
		_ = wk.core[up.ep].AbortMultipartUpload(context.WithoutCancel(ctx), c.Bucket, up.key, id)
		wk.finish(0, up.ep, t0, time.Time{}, 0, errPartFailed)
		return
	}
	_, err = wk.core[up.ep].CompleteMultipartUpload(ctx, c.Bucket, up.key, id, up.parts, wk.put0)
	n := up.size * int64(c.Parts)
	if err != nil {
		n = 0
	}
	wk.finish(0, up.ep, t0, time.Time{}, n, err)
}

// putParts uploads parts of up, one at a time, until none is left or one
// failed; each is a PART request recorded by this helper.
func (wk *worker) putParts(ctx context.Context, up *upload) {
	ph := wk.ph
	c := ph.c
	d := ph.data
	for {
		p, ok := up.take()
		if !ok {
			return
		}
		pt0 := time.Now()
		wk.gate.wait()
		start := (d.offset(up.key) + p*7919) % len(d.b)
		popts := minio.PutObjectPartOptions{SSE: ph.sse, DisableContentSha256: !c.SignPayload}
		var sum string
		if up.ck.IsSet() {
			sum = wk.partChecksum(up.ck, start, up.size)
			popts.CustomHeader = http.Header{up.ck.Key(): []string{sum}}
		}
		wk.body.reset(d, start, up.size)
		info, perr := wk.core[up.ep].PutObjectPart(wk.gated(ctx), c.Bucket, up.key, up.id, p+1, &wk.body, up.size, popts)
		n := up.size
		if perr != nil {
			n = 0
			up.fail()
		}
		up.parts[p] = completePart(p+1, info.ETag, up.ck, sum)
		wk.finish(1, up.ep, pt0, time.Time{}, n, perr)
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
