package s3

// The s3 engine against Ceph's RADOS Gateway (make cluster-test): the
// benchmarks and options run as against versitygw.

import (
	"errors"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/testutil/ceph"
)

// rgw is the RADOS Gateway the radosgw tests of this package share,
// started by the first (internal/testutil/ceph) and torn down by TestMain.
func rgw(t *testing.T) *s3test.Server {
	t.Helper()
	ceph.Full(t)
	return ceph.Shared(t, ceph.Options{Gateway: true}).S3()
}

// versioned, retention, multipart (both kinds) and the list variants run
// against radosgw with no error, as against versitygw; list --metadata
// (MinIO's extension) is refused, as on versitygw.
func TestRadosgwFeatures(t *testing.T) {
	srv := rgw(t)
	t.Run("versioned", func(t *testing.T) { versioned(t, srv) })
	// radosgw answers two retention updates of one object at once with
	// 500 (ECANCELED: the object changed under it), which the benchmark
	// counts as errors: one worker here makes none.
	t.Run("retention", func(t *testing.T) { retention(t, srv, map[string]any{"versions": 3, "concurrent": 1}) })
	t.Run("multipart", func(t *testing.T) { everyOp(t, srv, []opCase{multipartCase}) })
	t.Run("multipart-put", func(t *testing.T) { multipartPut(t, srv) })
	t.Run("list", func(t *testing.T) { listVariants(t, srv) })
	t.Run("list --metadata", func(t *testing.T) {
		p := baseParams(srv, "list")
		p["bucket"], p["metadata"] = "nolist", true
		if err := prepareErr(t, p); err == nil || err.Error() != listMetadataRefused || !errors.Is(err, engine.ErrUnsupported) {
			t.Errorf("got %v\nwant %s", err, listMetadataRefused)
		}
	})
}
