package s3

import (
	"context"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/s3test"
)

// probe probes ph's server through its plan.
func probe(t *testing.T, ph engine.Phase) (*model.Probe, error) {
	t.Helper()
	pl, err := Engine{}.Plan(ph)
	if err != nil {
		t.Fatal(err)
	}
	return pl.Probe(context.Background(), engine.Env{Host: "h"})
}

// probeOf probes srv through the engine, and checks it left no bucket.
func probeOf(t *testing.T, srv *s3test.Server) map[string]model.Feature {
	t.Helper()
	p := baseParams(srv, "probe")
	delete(p, "op")
	pr, err := probe(t, phaseOf(t, "probe", p))
	if err != nil {
		t.Fatal(err)
	}
	buckets, err := adminClient(t, srv).ListBuckets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range buckets {
		t.Errorf("the probe left bucket %s", b.Name)
	}
	if pr.Endpoint != srv.Endpoint || pr.Server != "VERSITYGW" {
		t.Errorf("probe of %q by %q", pr.Endpoint, pr.Server)
	}
	out := map[string]model.Feature{}
	for _, f := range pr.Features {
		out[f.Name] = f
	}
	return out
}

// A versitygw without versioning, over HTTPS: versioning is refused with
// the server's code, every checksum in both forms works, and SSE-C (tried
// only over HTTPS) is taken and not applied; the probe's buckets are
// gone.
func TestProbeVersityGWWithoutVersioningOverTLS(t *testing.T) {
	f := probeOf(t, s3test.StartT(t, s3test.Options{TLS: true}))
	if v := f["versioning"]; v.Result != model.FeatureRefused || v.Detail != "VersioningNotConfigured" {
		t.Errorf("versioning: %+v", v)
	}
	n := 0
	for name, v := range f {
		if strings.HasPrefix(name, "checksum ") {
			n++
			if v.Result != model.FeatureWorks {
				t.Errorf("%s: %+v", name, v)
			}
		}
	}
	if n != 10 {
		t.Errorf("%d checksum features, want 5 algorithms in 2 forms", n)
	}
	// versitygw takes the key and stores the object unencrypted.
	if v := f["SSE-C"]; v.Result != model.FeatureIgnored {
		t.Errorf("SSE-C over HTTPS: %+v", v)
	}
}

// --probe hands the probe the benchmark's phase: only its endpoint, keys
// and transport settings count, so a benchmark's own settings (retention's
// --versions, a checksum, a bucket) are neither refused nor used.
func TestProbeTakesAnyBenchmarksPhase(t *testing.T) {
	srv := s3test.StartT(t, s3test.Options{})
	p := baseParams(srv, "retention")
	p["versions"], p["checksum"], p["bucket"] = 5, "SHA256", "mine"
	pr, err := probe(t, phaseOf(t, "retention", p))
	if err != nil || len(pr.Features) != 20 {
		t.Fatalf("%v: %+v", err, pr)
	}
	if ok, _ := adminClient(t, srv).BucketExists(context.Background(), "mine"); ok {
		t.Error("the probe made the benchmark's bucket")
	}
}
