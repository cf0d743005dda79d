package s3

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/storbench/storbench/internal/engine"
)

// ensureBucket creates the bucket when it is missing and leaves a marker so
// that cleanup knows the bucket is storbench's to remove once empty; then
// it checks the bucket has what the phase needs (object lock, versions).
func (ph *phase) ensureBucket(ctx context.Context) error {
	c, ep := ph.c, ph.c.endpoints[ph.adminEp]
	var ok bool
	err := again(ctx, func() (err error) {
		ok, err = ph.admin.BucketExists(ctx, c.Bucket)
		return err
	})
	if err != nil {
		return explain(ep, c, err)
	}
	switch {
	case ok:
	case ph.env.Rank > 0:
		if err := ph.awaitBucket(ctx); err != nil {
			return err
		}
	default:
		if err := ph.createBucket(ctx); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if c.Op == "retention" {
		if err := ph.checkObjectLock(ctx); err != nil {
			return err
		}
	}
	if c.versionedListing() {
		if v, err := ph.admin.GetBucketVersioning(ctx, c.Bucket); err == nil {
			ph.versioningOn = v.Enabled()
		}
	}
	if c.Op == "versioned" || c.Versions > 1 {
		return ph.ensureVersioning(ctx)
	}
	return nil
}

// bucketMade bounds how long a host waits for the run's first host to
// make the bucket. A variable for tests.
var bucketMade = time.Minute

// awaitBucket waits until the bucket the run's first host makes is there,
// with its marker (written last, once the bucket keeps versions if the
// phase needs them). Only the first host makes it: gateways of one object
// store over a shared file system asked to make one bucket at the same
// moment by several hosts can make it twice, each with its own attributes
// (versitygw over a GlusterFS replica-2 volume did, and answered
// InternalError to every request on it afterwards).
func (ph *phase) awaitBucket(ctx context.Context) error {
	c, ep := ph.c, ph.c.endpoints[ph.adminEp]
	deadline := time.Now().Add(bucketMade)
	for {
		err := again(ctx, func() error {
			_, err := ph.admin.StatObject(ctx, c.Bucket, ph.runPfx+markerName, minio.StatObjectOptions{})
			return err
		})
		switch code := minio.ToErrorResponse(err).Code; {
		case err == nil:
			return nil
		case code != "NoSuchKey" && code != "NoSuchBucket":
			return explain(ep, c, err)
		case time.Now().After(deadline):
			return fmt.Errorf("s3: bucket %q does not exist and the run's first host did not make it within %s (its own error says why)", c.Bucket, bucketMade)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// createBucket makes the missing bucket and writes the run's marker in
// it; a bucket another host of the run made a moment ago is no error.
func (ph *phase) createBucket(ctx context.Context) error {
	c, ep := ph.c, ph.c.endpoints[ph.adminEp]
	// Creating the bucket and writing its marker is one step that an
	// interrupt does not cut: a bucket made without its marker would be
	// one cleanup cannot tell is storbench's.
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	// retention needs object lock, which only a new bucket can have.
	lock := c.Op == "retention"
	err := ph.admin.MakeBucket(mctx, c.Bucket, minio.MakeBucketOptions{Region: c.Region, ObjectLocking: lock})
	if err != nil {
		code := minio.ToErrorResponse(err).Code
		switch {
		case code == "BucketAlreadyOwnedByYou", code == "BucketAlreadyExists":
			// Another host of this run made it a moment ago.
		case lock && (code == "NotImplemented" || code == "InvalidBucketObjectLockConfiguration"):
			return engine.Unsupported("s3: retention: the server does not support object lock")
		case code == "AccessDenied":
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
		return nil
	}
	ph.createdBucket = true
	if c.Op == "versioned" || c.Versions > 1 {
		// Before the marker, which the other hosts wait for: they find
		// the bucket keeping versions (an error here, ensureVersioning
		// says again).
		_ = ph.admin.EnableVersioning(mctx, c.Bucket)
	}
	if err := again(mctx, func() error {
		_, err := ph.admin.PutObject(mctx, c.Bucket, ph.runPfx+markerName, strings.NewReader(""), 0,
			minio.PutObjectOptions{DisableContentSha256: true})
		return err
	}); err != nil {
		return fmt.Errorf("s3: write marker in new bucket %q: %v", c.Bucket, err)
	}
	return nil
}

// ensureVersioning makes sure the bucket keeps versions, which versioned
// and --versions need: it turns versioning on in a bucket this run
// created, and never changes one it did not.
func (ph *phase) ensureVersioning(ctx context.Context) error {
	c := ph.c
	// What says the phase needs versions, in the refusal.
	what := c.Op
	if c.Op != "versioned" {
		what = fmt.Sprintf("%s --versions %d", c.Op, c.Versions)
	}
	unsupported := "s3: " + what + ": the server does not support bucket versioning"
	if c.Op != "versioned" {
		unsupported += " (use --versions 1)"
	}
	v, err := ph.admin.GetBucketVersioning(ctx, c.Bucket)
	if err != nil {
		if noVersioning(err) {
			return engine.Unsupported(unsupported)
		}
		return fmt.Errorf("s3: %s: cannot read versioning of bucket %q: %v", what, c.Bucket, err)
	}
	if v.Enabled() {
		return nil
	}
	if !ph.createdBucket {
		return engine.Unsupported(fmt.Sprintf("s3: %s: bucket %q has versioning off; storbench does not change a bucket it did not create: use a new --bucket", what, c.Bucket))
	}
	if err := ph.admin.EnableVersioning(ctx, c.Bucket); err != nil {
		if noVersioning(err) {
			return engine.Unsupported(unsupported)
		}
		return fmt.Errorf("s3: %s: enable versioning on %q: %v", what, c.Bucket, err)
	}
	ph.versioningOn = true
	return nil
}

// checkObjectLock makes sure the bucket has object lock, which retention
// needs: storbench creates a bucket with it, and never changes one it did
// not create.
func (ph *phase) checkObjectLock(ctx context.Context) error {
	c := ph.c
	status, _, _, _, err := ph.admin.GetObjectLockConfig(ctx, c.Bucket)
	switch code := minio.ToErrorResponse(err).Code; {
	case err == nil && status == "Enabled":
		return nil
	case code == "NotImplemented" || code == "NotSupported" || (ph.createdBucket && err != nil):
		return engine.Unsupported("s3: retention: the server does not support object lock")
	case err != nil && code != "ObjectLockConfigurationNotFoundError":
		return fmt.Errorf("s3: retention: cannot read the object lock of bucket %q: %v", c.Bucket, err)
	}
	return engine.Unsupported(fmt.Sprintf("s3: retention: bucket %q has no object lock, which only a new bucket can get: use a new --bucket", c.Bucket))
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
