package s3

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/s3test"
)

// A server that answers the bucket's removal with a 500 for a while (a
// versitygw over a GlusterFS client did, while another client's removals
// settled) gets the removal asked again within the bound, not the bucket
// left behind as a leftover. The real versitygw stands behind a proxy that
// fails the first three DELETEs of the bucket itself (a fault injector, as
// no real server fails on demand).
func TestBucketRemovalRetriesServerErrors(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	var failed atomic.Int32
	ep := faultProxy(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodDelete && strings.Trim(r.URL.Path, "/") == "bench" && r.URL.RawQuery == "" && failed.Load() < 3 {
			failed.Add(1)
			internalError(w)
			return true
		}
		return false
	})
	p := baseParams(srv, "put")
	p["hosts"] = []string{ep}
	ctx := context.Background()
	pr, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "retry"}, phaseOf(t, "retry", p))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pr.Run(ctx, time.Now(), nil); err != nil {
		t.Fatal(err)
	}
	if err := pr.Cleanup(ctx); err != nil {
		t.Errorf("cleanup after %d server errors on the bucket's removal: %v", failed.Load(), err)
	}
	if failed.Load() != 3 {
		t.Errorf("the proxy failed %d removals, want 3 (did the cleanup remove the bucket?)", failed.Load())
	}
	if ok, err := adminClient(t, srv).BucketExists(ctx, "bench"); err != nil || ok {
		t.Errorf("bucket bench still there (%v, %v)", ok, err)
	}
}

// A server that answers set-up and cleanup requests with a 500 for a
// moment (versitygw over GlusterFS clients did, on listings while the
// run's other hosts uploaded or deleted) gets them asked again, within
// setupWait: the first two listings of the bucket (the endpoint check) and
// the first two uploads of the objects GET reads fail, then, after the
// run, the first two listings of the cleanup, the first two listings of
// the whole bucket (does it hold other hosts' objects?) and the first
// removal of the run's marker. The phase prepares, runs and
// cleans up without an error; before, the first failure ended the phase
// ("We encountered an internal error") and left its objects and bucket. A
// proxy in front of the real versitygw injects the errors.
func TestSetUpAndCleanupRetryServerErrors(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	var lists, puts, holds, marker, failed atomic.Int32
	lists.Store(2)
	puts.Store(2)
	fail := func(w http.ResponseWriter, budget *atomic.Int32) bool {
		if budget.Add(-1) < 0 {
			return false
		}
		failed.Add(1)
		internalError(w)
		return true
	}
	ep := faultProxy(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
		path := strings.Trim(r.URL.Path, "/")
		switch {
		case r.Method == http.MethodGet && path == "bench" && r.URL.Query().Get("prefix") == "":
			return fail(w, &holds)
		case r.Method == http.MethodGet && path == "bench" && r.URL.Query().Has("prefix"):
			return fail(w, &lists)
		case r.Method == http.MethodDelete && strings.HasSuffix(path, markerName):
			return fail(w, &marker)
		case r.Method == http.MethodPut && strings.HasPrefix(path, "bench/"):
			return fail(w, &puts)
		}
		return false
	})
	p := baseParams(srv, "get")
	p["hosts"] = []string{ep}
	ctx := context.Background()
	pr, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "retry"}, phaseOf(t, "retry", p))
	if err != nil {
		t.Fatalf("prepare after %d server errors: %v", failed.Load(), err)
	}
	res, err := pr.Run(ctx, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Ops) != 1 || res.Ops[0].Ops == 0 || res.Ops[0].Errors != 0 {
		t.Errorf("run: %+v, want GETs without an error", res.Ops)
	}
	lists.Store(2)
	holds.Store(2)
	marker.Store(1)
	if err := pr.Cleanup(ctx); err != nil {
		t.Errorf("cleanup after %d server errors: %v", failed.Load(), err)
	}
	if failed.Load() != 9 {
		t.Errorf("the proxy failed %d requests, want 9 (2 listings, 2 uploads, 2 + 2 listings, 1 removal)", failed.Load())
	}
	if ok, err := adminClient(t, srv).BucketExists(ctx, "bench"); err != nil || ok {
		t.Errorf("bucket bench still there (%v, %v)", ok, err)
	}
}

// faultProxy starts a proxy in front of the real versitygw srv and returns
// its endpoint: fault sees each request first and answers it itself when
// it returns true (a fault injector, as no real server fails on demand).
func faultProxy(t *testing.T, srv *s3test.Server, fault func(w http.ResponseWriter, r *http.Request) bool) string {
	t.Helper()
	target, _ := url.Parse("http://" + srv.Endpoint)
	rp := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !fault(w, r) {
			rp.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(proxy.Close)
	return strings.TrimPrefix(proxy.URL, "http://")
}

// internalError answers as versitygw does when it fails.
func internalError(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>We encountered an internal error, please try again.</Message></Error>`))
}

// Only an answer that may change when asked again is asked again: a
// server error of the moment (500, 502, 503, 504), from the lean path or
// minio-go, wrapped or not; not a 501 (NotImplemented) or 507 (storage
// full), a 4xx, or no answer at all.
func TestServerFailedIsForNow(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&s3Error{Status: 500, Code: "InternalError"}, true},
		{fmt.Errorf("prepare: %w", &s3Error{Status: 503, Code: "SlowDown"}), true},
		{minio.ErrorResponse{StatusCode: 502}, true},
		{fmt.Errorf("list: %w", minio.ErrorResponse{StatusCode: 504}), true},
		{&s3Error{Status: 501, Code: "NotImplemented"}, false},
		{minio.ErrorResponse{StatusCode: 507, Code: "XMinioStorageFull"}, false},
		{minio.ErrorResponse{StatusCode: 403, Code: "AccessDenied"}, false},
		{errors.New("connection refused"), false},
		{nil, false},
	} {
		if got := serverFailed(c.err); got != c.want {
			t.Errorf("serverFailed(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
