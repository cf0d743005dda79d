package s3

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/storbench/storbench/internal/engine"
)

// Cleanup deletes every object (and version, and unfinished upload) under
// this phase's prefix, then the bucket if storbench created it and nothing
// else is in it. Objects outside the prefix are never listed for deletion.
// What it cannot remove comes back as a *engine.LeftoverError: the prefix
// with the count of objects still there (or, when the server does not
// answer, how many at most), and the bucket this run created.
func (ph *phase) Cleanup(ctx context.Context) error {
	defer ph.closeIdle()
	if ph.env.Keep || ph.c.NoClear || ph.c.ListExisting {
		// --list-existing made nothing: it deletes nothing either.
		return nil
	}
	// A server error (a gateway over a shared file system while another
	// host's removals settle) gets the removal asked again.
	first := again(ctx, func() error { return ph.removeObjects(ctx) })
	left := ""
	if first == nil {
		left, first = ph.removeBucketIfOurs(ctx)
	}
	if first == nil && left == "" {
		return nil
	}
	return ph.leftovers(ctx, first, left)
}

// reached says whether the server answered the cleanup so far, given its
// first error: every request is bounded (boundedTransport), and once one
// found the server unreachable, the next steps would each wait out their
// own bound for nothing, so what stays is reported at once.
func reached(first error) bool { return first == nil || !connErrorKind(errorKind(first)) }

// removeObjects deletes what the phase uploaded, then everything under its
// prefix and its unfinished uploads, and looks again for uploads that
// landed late; it returns the first error.
func (ph *phase) removeObjects(ctx context.Context) error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	keep(ph.removeUploads(ctx))
	if reached(first) {
		keep(ph.removePrefix(ctx, ph.prefix))
	}
	if reached(first) {
		keep(ph.abortUploads(ctx))
	}
	if first == nil {
		keep(ph.removeLate(ctx))
	}
	return first
}

// abortUploads aborts the unfinished multipart uploads under the phase's
// prefix and returns the first error.
func (ph *phase) abortUploads(ctx context.Context) error {
	var first error
	for u := range ph.admin.ListIncompleteUploads(ctx, ph.c.Bucket, ph.prefix, true) {
		if u.Err != nil {
			break // not every server lists uploads; nothing to abort then
		}
		if strings.HasPrefix(u.Key, ph.prefix) {
			if err := ph.admin.RemoveIncompleteUpload(ctx, ph.c.Bucket, u.Key); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// removeLate removes what landed under the prefix after its listing: an
// upload cut by an interrupt may land late. It looks up to three times.
func (ph *phase) removeLate(ctx context.Context) error {
	for pass := 0; pass < 3; pass++ {
		n, err := ph.countPrefix(ctx, 1)
		if err != nil || n == 0 {
			return err
		}
		time.Sleep(200 * time.Millisecond)
		if err := ph.removePrefix(ctx, ph.prefix); err != nil {
			return err
		}
	}
	return nil
}

// leftovers says what cleanup left, given its first error and why the
// bucket stayed (left): the objects under the prefix, counted (or, when
// the server does not answer, how many at most), and the bucket this run
// created; nil when nothing is left after all.
func (ph *phase) leftovers(ctx context.Context, first error, left string) error {
	c := ph.c
	reason := left
	if first != nil {
		reason = "cleanup: " + first.Error()
	}
	l := engine.Leftover{Host: ph.env.Host, What: "objects", Where: c.Bucket + "/" + ph.prefix, Reason: reason}
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	if !reached(first) {
		cancel() // the count would wait for nothing too
	}
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
	for o := range listObjects(lctx, ph.admin, ph.c.Bucket, minio.ListObjectsOptions{Prefix: ph.prefix, Recursive: true, WithVersions: ph.c.versionedListing()}) {
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
	// The first failure ends the removal: the batches after it would each
	// wait out their request's bound on a server that does not answer.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
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
	return drainRemovals(ph.admin.RemoveObjects(ctx, c.Bucket, objs, minio.RemoveObjectsOptions{}), stop)
}

// drainRemovals reads RemoveObjects' results and returns the first error
// (a missing key is none); at the first one it calls stop, which ends the
// removal's context.
func drainRemovals(errs <-chan minio.RemoveObjectError, stop func()) error {
	var rmErr error
	for e := range errs {
		if e.Err != nil && rmErr == nil && minio.ToErrorResponse(e.Err).Code != "NoSuchKey" {
			rmErr = fmt.Errorf("%s: %w", e.ObjectName, e.Err)
			stop()
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
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	objs := make(chan minio.ObjectInfo, 1000)
	var listErr error
	go func() {
		defer close(objs)
		for o := range listObjects(ctx, ph.admin, c.Bucket, minio.ListObjectsOptions{Prefix: pfx, Recursive: true, WithVersions: c.versionedListing()}) {
			if o.Err != nil {
				listErr = o.Err
				return
			}
			if !strings.HasPrefix(o.Key, pfx) {
				continue
			}
			if o.VersionID == "null" && !ph.versioningOn {
				// The one version of an object in a bucket without
				// versioning: versitygw deletes it only when asked without
				// a version.
				o.VersionID = ""
			}
			select {
			case objs <- o:
			case <-ctx.Done():
				return
			}
		}
	}()
	// Objects of retention are under governance-mode retention, which the
	// remover may bypass.
	rmErr := drainRemovals(ph.admin.RemoveObjects(ctx, c.Bucket, objs, minio.RemoveObjectsOptions{GovernanceBypass: c.Op == "retention"}), stop)
	if rmErr != nil {
		return rmErr // the listing may have ended because of it
	}
	return listErr
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
		// A server may still be removing what another host deleted a
		// moment ago (versitygw: the emptied directories; over a GlusterFS
		// client it answers InternalError to a listing or a removal while
		// another client's removals settle): such an answer, a server
		// error or BucketNotEmpty, is looked at again until bucketWait.
		others, foreign, err := ph.bucketHolds(ctx, marker)
		switch {
		case noSuchBucket(err):
			ph.bucketGone = true
			return "", nil
		case err != nil && !serverFailed(err):
			return "", err
		case err != nil:
		case foreign:
			return "it holds objects that are not this run's", nil
		case !others:
			if err = ph.admin.RemoveObject(ctx, c.Bucket, marker, minio.RemoveObjectOptions{}); err != nil && !noSuchBucket(err) && !serverFailed(err) {
				return "", err
			}
			if c.versionedListing() {
				_ = ph.removePrefix(ctx, ph.runPfx) // delete markers of the marker
			}
			err = ph.admin.RemoveBucket(ctx, c.Bucket)
			if err == nil || noSuchBucket(err) {
				ph.bucketGone = true
				return "", nil
			}
			if minio.ToErrorResponse(err).Code != "BucketNotEmpty" && !serverFailed(err) {
				return "", err
			}
		}
		if time.Now().After(deadline) {
			if err != nil && serverFailed(err) {
				return "", err
			}
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
	opts := minio.ListObjectsOptions{Recursive: true, WithVersions: ph.c.versionedListing()}
	for o := range listObjects(lctx, ph.admin, ph.c.Bucket, opts) {
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
