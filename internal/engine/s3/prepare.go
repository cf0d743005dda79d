package s3

// Preparation of a phase's objects: the uploads a run reads (prepareObjects)
// or the listing of objects already there (listExisting). Split out of
// engine.go to keep it short.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/storbench/storbench/internal/engine"
)

// listExisting lists the objects under --prefix once, into the key list
// the run draws from. The keys share one string, so a key costs its own
// length plus 24 bytes (its string header and its size): a million keys of
// 60 bytes take 84 MB.
func (ph *phase) listExisting(ctx context.Context) error {
	c := ph.c
	ok, err := ph.admin.BucketExists(ctx, c.Bucket)
	if err != nil {
		return explain(c.endpoints[ph.adminEp], c, err)
	}
	if !ok {
		return engine.Unsupported(fmt.Sprintf("s3: --list-existing: bucket %q does not exist", c.Bucket))
	}
	var all strings.Builder
	var ends []int
	var sizes []int64
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for o := range listObjects(lctx, ph.admin, c.Bucket, minio.ListObjectsOptions{Prefix: c.Prefix, Recursive: true}) {
		if o.Err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("s3: --list-existing: list %s/%s: %v", c.Bucket, c.Prefix, explain(c.endpoints[ph.adminEp], c, o.Err))
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
	smallest, largest := slices.Min(sizes), slices.Max(sizes)
	if c.RangeSize > 0 && int64(c.RangeSize) > smallest {
		return engine.Unsupported(fmt.Sprintf("s3: --range-size %s is larger than the smallest object under %s/%s (%s): ranges must fit in every object",
			sizeLabel(int64(c.RangeSize)), c.Bucket, c.Prefix, sizeLabel(smallest)))
	}
	// The objects, not the benchmark's default size, set how long a GET
	// may take.
	c.boundRequests(largest)
	for _, rt := range ph.rts {
		rt.timeout = c.requestTimeout
	}
	ph.listPfx = []string{c.Prefix}
	// What a listing of data that is not storbench's must return is not
	// known (others may write there): no count is checked.
	ph.listWant = []int64{-1}
	return nil
}

// prepareObjects uploads the objects get, stat, delete, list, mixed and
// versioned work on, with all workers.
func (ph *phase) prepareObjects(ctx context.Context) error {
	c := ph.c
	switch c.Op {
	case "put", "multipart", "multipart-put":
		return nil
	}
	n := c.Objects
	ph.layoutKeys(n)
	// Every key is uploaded in --versions versions: item j is version
	// j/n of key j%n, so the versions of one key are made apart in time.
	total := n * c.Versions
	if c.Op == "retention" {
		ph.retVers = make([]string, total)
	}
	if err := ph.uploadAll(ctx, n, total); err != nil {
		return err
	}
	if c.Op == "mixed" || c.Op == "versioned" {
		ph.pool = newObjectPool(ph.keys, ph.sizes, ph.vers)
	}
	if c.Op == "list" && c.Metadata {
		return ph.probeListMetadata(ctx)
	}
	return nil
}

// uploadAll uploads the total items prepareObjects lays out over the n
// keys with all workers (item j is version j/n of key j%n) and returns
// the first failure or ctx's error; split out of prepareObjects to keep it
// short.
func (ph *phase) uploadAll(ctx context.Context, n, total int) error {
	c := ph.c
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
				j := int(next.Add(1) - 1)
				if j >= total || ctx.Err() != nil {
					return
				}
				i := j % n
				size := c.sizes.draw(wk.rng)
				ep := j % len(c.endpoints)
				if ph.picker.cross {
					ep = ph.picker.write // read back through another
				}
				var info minio.UploadInfo
				err := again(ctx, func() (err error) {
					info, err = wk.put(uctx, ep, ph.keys[i], size)
					return err
				})
				if err != nil && ctx.Err() != nil {
					return
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("s3: prepare: upload %s: %v", ph.keys[i], explain(c.endpoints[ep], c, err))
					}
					mu.Unlock()
					next.Store(int64(total))
					return
				}
				if ph.retVers != nil {
					ph.retVers[j] = info.VersionID
				}
				if j < n {
					ph.sizes[i] = size
					ph.vers[i] = info.VersionID
				}
			}
		}(w)
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	return firstErr
}

// layoutKeys names the n keys prepareObjects uploads, spread over the
// workers' prefixes in turn, and for list the prefixes and the count each
// listing must return; split out of prepareObjects to keep it short.
func (ph *phase) layoutKeys(n int) {
	c := ph.c
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
			// Keys go to the workers' prefixes in turn, each in every
			// version.
			ph.listWant = append(ph.listWant, int64((n-w+c.Concurrent-1)/c.Concurrent*c.Versions))
		}
	}
}

// probeListMetadata lists one prepared object with metadata: a server that
// does not return the metadata every upload carried lacks the MinIO
// extension --metadata measures.
func (ph *phase) probeListMetadata(ctx context.Context) error {
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := minio.ListObjectsOptions{Prefix: ph.listPfx[0], Recursive: true, WithMetadata: true, MaxKeys: 1}
	for o := range listObjects(lctx, ph.admin, ph.c.Bucket, opts) {
		if o.Err != nil {
			return fmt.Errorf("s3: list --metadata: %v", o.Err)
		}
		if len(o.UserMetadata) == 0 {
			return engine.Unsupported("s3: list --metadata: the server does not return user metadata in listings (MinIO's extension of ListObjectsV2)")
		}
		break
	}
	return nil
}

// prepareGrace is how long uploads in flight may finish after an
// interrupt during preparation.
const prepareGrace = 5 * time.Second
