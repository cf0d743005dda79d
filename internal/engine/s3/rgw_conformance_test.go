package s3_test

import (
	"testing"

	"github.com/storbench/storbench/internal/testutil/ceph"
)

// The s3 engine keeps the engine contract against Ceph's RADOS Gateway
// (make cluster-test), on both request paths.
func TestRadosgwConformance(t *testing.T) {
	ceph.Full(t)
	conformance(t, ceph.Shared(t, ceph.Options{Gateway: true}).S3())
}
