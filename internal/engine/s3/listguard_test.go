package s3

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/s3test"
)

// workerPrefix matches the listings of a list phase's workers (the
// prefix .../w<N>/), not the phase's own prefix (checks, cleanup).
var workerPrefix = regexp.MustCompile(`/w[0-9]+/$`)

// A server whose listing answers IsTruncated with the same continuation
// for ever (a FAKE: versitygw cannot be made to loop, so the stall proxy
// answers the workers' listings itself; everything else is versitygw's):
// the list phase ends with one error naming the listing and the repeated
// continuation, at once rather than at its duration - before the fix it
// listed the same page until SIGKILL, SIGTERM included - through
// Core.ListObjectsV2 (plain) and through minio-go's iterator (versions,
// metadata). What it prepared is then removed, the bucket too.
func TestListingThatRepeatsEnds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		extra map[string]any
	}{
		{"plain", nil},
		{"versions", map[string]any{"versions": 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := s3test.StartT(t, s3test.Options{Versioning: true})
			px := s3test.StartStallProxy(t, srv.Endpoint)
			cl := adminClient(t, srv)
			ctx := context.Background()
			p := baseParams(srv, "list")
			p["hosts"], p["bucket"], p["objects"], p["concurrent"], p["duration"] = []string{px.Endpoint}, "loop", 20, 2, "60s"
			for k, v := range tc.extra {
				p[k] = v
			}
			pr, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "rloop"}, phaseOf(t, "list", p))
			if err != nil {
				t.Fatal(err)
			}
			px.LoopOnly(workerPrefix.MatchString)
			px.Set(s3test.LoopListings)
			t0 := time.Now()
			res, err := pr.Run(ctx, time.Now(), nil)
			el := time.Since(t0)
			px.Set(s3test.Pass)
			var le *ListLoopError
			switch {
			case !errors.As(err, &le):
				t.Errorf("the run ended with %v, want the listing that never ends", err)
			case !strings.Contains(err.Error(), "never ends") || !strings.Contains(err.Error(), "a second time") || !strings.Contains(err.Error(), px.Endpoint):
				t.Errorf("the error does not say which listing repeats and how: %v", err)
			}
			// The duration is a minute: ending it is the guard's doing.
			if el > 20*time.Second {
				t.Errorf("the phase took %v to end", el)
			}
			if res == nil || len(res.Ops) == 0 || res.Ops[0].ErrorKinds["listing never ends"] == 0 {
				t.Errorf("the failed listings are not counted as such: %+v", res)
			}
			if px.Listings.Load() == 0 {
				t.Fatal("the fake answered no listing: the test tests nothing")
			}
			if err := pr.Cleanup(ctx); err != nil {
				t.Errorf("cleanup: %v", err)
			}
			if ok, _ := cl.BucketExists(ctx, "loop"); ok {
				t.Errorf("the bucket is left: %v", keysUnder(t, cl, "loop", ""))
			}
		})
	}
}

// The cleanup's listing of the phase's prefix on a server whose listing
// repeats for ever (the FAKE above, on every listing): the cleanup ends
// at once - it listed until its 10-minute bound before, deleting the same
// key again and again - and what it left is reported, with why.
func TestCleanupListingThatRepeatsEnds(t *testing.T) {
	srv := s3test.StartT(t, s3test.Options{})
	px := s3test.StartStallProxy(t, srv.Endpoint)
	ctx := context.Background()
	p := baseParams(srv, "get")
	p["hosts"], p["bucket"], p["objects"], p["duration"] = []string{px.Endpoint}, "loopclean", 10, "300ms"
	pr, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "rloopc"}, phaseOf(t, "get", p))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pr.Run(ctx, time.Now(), nil); err != nil {
		t.Fatal(err)
	}
	px.Set(s3test.LoopListings)
	t0 := time.Now()
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	err = pr.Cleanup(cctx)
	el := time.Since(t0)
	px.Set(s3test.Pass)
	var left *engine.LeftoverError
	if !errors.As(err, &left) || len(left.Items) == 0 {
		t.Fatalf("cleanup: %v, want what it left reported", err)
	}
	if !strings.Contains(left.Items[0].Reason, "never ends") {
		t.Errorf("the leftover does not say why: %+v", left.Items[0])
	}
	if el > 30*time.Second {
		t.Errorf("the cleanup took %v", el)
	}
}

// pageGuard on its own: the first page and new continuations pass; a
// continuation seen before, however long ago, ends the listing; so does
// a run of empty pages, which an entry resets.
func TestPageGuard(t *testing.T) {
	g := newPageGuard("b", "p/")
	for _, tok := range []string{"", "a", "b", "c"} {
		g.entries.Add(1)
		if err := g.next("ep", tok); err != nil {
			t.Fatalf("%q: %v", tok, err)
		}
	}
	if err := g.next("ep", "a"); err == nil || !strings.Contains(err.Error(), `"a" a second time`) {
		t.Errorf("a continuation given again: %v", err)
	}
	g = newPageGuard("b", "p/")
	for i := range maxEmptyPages + 1 {
		err := g.next("ep", "t"+strings.Repeat("x", i))
		if i == maxEmptyPages/2 {
			g.entries.Add(1) // progress: the run of empty pages starts again
		}
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
	}
	var err error
	for i := 0; err == nil && i < maxEmptyPages; i++ {
		err = g.next("ep", "u"+strings.Repeat("y", i))
	}
	if err == nil || !strings.Contains(err.Error(), "no entry") || !errors.Is(err, errListLoop) {
		t.Errorf("pages with no entry for ever: %v", err)
	}
}
