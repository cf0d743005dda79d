package s3

import (
	"context"
	"errors"
	"time"

	"github.com/minio/minio-go/v7"
)

// setupWait bounds how long a request of the phase's set-up or cleanup
// (never a measured one) is asked again while the server answers it with
// a server error. An object store of gateways over one shared file system
// answers so for a moment while another gateway changes what it lists
// (versitygw over GlusterFS clients: InternalError on a listing while the
// run's other hosts upload or delete). A variable for tests.
var setupWait = 30 * time.Second

// again calls f until it succeeds, fails otherwise than with a server
// error, ctx ends or setupWait passes; it waits 100 ms between the first
// calls, doubling up to 2 s, and returns f's last error.
func again(ctx context.Context, f func() error) error {
	deadline := time.Now().Add(setupWait)
	wait := 100 * time.Millisecond
	for {
		err := f()
		if err == nil || !serverFailed(err) || time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// serverFailed says whether err is the server's answer that it failed
// for now, from the lean path or from minio-go: 500 (InternalError), 502,
// 503 (ServiceUnavailable, SlowDown) or 504. A 501 (NotImplemented) or
// 507 (storage full) will not change by asking again.
func serverFailed(err error) bool {
	status := 0
	var se *s3Error
	var er minio.ErrorResponse
	switch {
	case errors.As(err, &se):
		status = se.Status
	case errors.As(err, &er):
		status = er.StatusCode
	}
	switch status {
	case 500, 502, 503, 504:
		return true
	}
	return false
}
