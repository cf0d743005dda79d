package s3

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/s3test"
)

// Four hosts of one run preparing at once on a missing bucket ask the
// server to make it once: the first host makes it, the others wait for it
// (and its marker) and use it; all four run and clean up, and the bucket
// is gone after. Before, every host that found it missing made it: a
// versitygw gateway per GlusterFS client, asked at the same moment, made
// it twice and answered InternalError to everything on it afterwards. A
// proxy in front of the real versitygw counts the creations and holds
// each for 200 ms, so that the hosts' looks all come before it.
func TestOneHostMakesTheBucket(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	var creates atomic.Int32
	ep := faultProxy(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPut && strings.Trim(r.URL.Path, "/") == "bench" && r.URL.RawQuery == "" {
			creates.Add(1)
			time.Sleep(200 * time.Millisecond)
		}
		return false
	})
	p := baseParams(srv, "get")
	p["hosts"] = []string{ep}
	p["objects"], p["duration"] = 8, "300ms"
	ctx := context.Background()
	const hosts = 4
	ph := phaseOf(t, "once", p)
	prs, errs := prepareAtOnce(hosts, func(i int) (engine.Prepared, error) {
		return Engine{}.Prepare(ctx, engine.Env{Host: fmt.Sprintf("h%d", i), RunID: "once", Hosts: hosts, Rank: i}, ph)
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("host %d: prepare: %v", i, err)
		}
	}
	if n := creates.Load(); n != 1 {
		t.Errorf("the server was asked %d times to make the bucket, want once (by the first host)", n)
	}
	for i, pr := range prs {
		if res, err := pr.Run(ctx, time.Now(), nil); err != nil || len(res.Ops) != 1 || res.Ops[0].Errors != 0 {
			t.Errorf("host %d: run: %v %+v", i, err, res)
		}
	}
	for i := hosts - 1; i >= 0; i-- {
		if err := prs[i].Cleanup(ctx); err != nil {
			t.Errorf("host %d: cleanup: %v", i, err)
		}
	}
	if ok, err := adminClient(t, srv).BucketExists(ctx, "bench"); err != nil || ok {
		t.Errorf("bucket bench still there (%v, %v)", ok, err)
	}
}

// A host that is not the run's first waits for the bucket for bucketMade,
// then says the first host did not make it.
func TestBucketNotMadeByTheFirstHost(t *testing.T) {
	srv := s3test.StartT(t, s3test.Options{})
	defer func(d time.Duration) { bucketMade = d }(bucketMade)
	bucketMade = 300 * time.Millisecond
	_, err := Engine{}.Prepare(context.Background(), engine.Env{Host: "h1", RunID: "alone", Hosts: 2, Rank: 1}, phaseOf(t, "alone", baseParams(srv, "get")))
	if err == nil || !strings.Contains(err.Error(), `bucket "bench" does not exist and the run's first host did not make it within 300ms`) {
		t.Errorf("prepare: %v, want the bucket not made by the first host", err)
	}
	if ok, _ := adminClient(t, srv).BucketExists(context.Background(), "bench"); ok {
		t.Error("the second host made the bucket")
	}
}
