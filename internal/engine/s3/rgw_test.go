package s3

// The s3 engine against Ceph's RADOS Gateway (make cluster-test): the
// benchmarks and options run as against versitygw, and what this
// gateway does not do is refused in one line before any load.

import (
	"context"
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
	// multipart goes through minio-go on either path: once is enough.
	t.Run("multipart", func(t *testing.T) { everyOp(t, srv, []opCase{multipartCase}, "minio-go") })
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

// radosgw 16 refuses the trailer form of --checksum (every upload failed
// with XAmzContentSHA256Mismatch once the load had started) and takes the
// part-header form of multipart-put without keeping the sum: both are
// refused in one line before any load, and the bucket the phase made is
// removed.
func TestRadosgwChecksumRefused(t *testing.T) {
	srv := rgw(t)
	cl := adminClient(t, srv)
	for _, tc := range []struct{ op, want string }{
		{"put", "s3: --checksum CRC32C: the server refused an upload carrying it in a trailer (XAmzContentSHA256Mismatch)"},
		{"get", "s3: --checksum CRC32C: the server refused an upload carrying it in a trailer (XAmzContentSHA256Mismatch)"},
		{"multipart-put", "s3: --checksum CRC32C: the server does not keep CRC32C checksums (an object uploaded with one in a part's header reads back without x-amz-checksum-crc32c)"},
	} {
		p := baseParams(srv, tc.op)
		p["bucket"], p["checksum"] = "cksum", "crc32c"
		if tc.op == "multipart-put" {
			p["parts"], p["part_size"], p["part_concurrency"] = 2, "5MiB", 2
		}
		err := prepareErr(t, p)
		if err == nil || err.Error() != tc.want || !errors.Is(err, engine.ErrUnsupported) {
			t.Errorf("%s: got %v\nwant %s", tc.op, err, tc.want)
		}
		if ok, _ := cl.BucketExists(context.Background(), "cksum"); ok {
			t.Errorf("%s: the refused phase left its bucket", tc.op)
		}
	}
}
