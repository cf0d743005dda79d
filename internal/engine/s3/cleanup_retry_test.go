package s3

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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
	srv := s3test.StartT(t, s3test.Options{})
	target, _ := url.Parse("http://" + srv.Endpoint)
	rp := httputil.NewSingleHostReverseProxy(target)
	var failed atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete && strings.Trim(r.URL.Path, "/") == "bench" && r.URL.RawQuery == "" && failed.Load() < 3 {
			failed.Add(1)
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>We encountered an internal error, please try again.</Message></Error>`))
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	p := baseParams(srv, "put")
	p["hosts"] = []string{strings.TrimPrefix(proxy.URL, "http://")}
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
