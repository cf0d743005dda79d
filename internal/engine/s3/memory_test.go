package s3

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/s3test"
)

// A count no host could hold is refused when the phase is checked (issue
// 21: --objects 10000000000000 crashed prepare with "fatal error: out of
// memory", leaving the bucket and its marker behind).
func TestObjectCountsAreBounded(t *testing.T) {
	for _, c := range []struct {
		name string
		p    map[string]any
		want string
	}{
		{"objects past every bound", map[string]any{"op": "get", "objects": int64(10_000_000_000_000)}, "--objects 10000000000000: want at most 1000000000"},
		{"objects times versions", map[string]any{"op": "retention", "objects": 300_000_000, "versions": 5}, "makes 1500000000 objects"},
		{"list objects times versions", map[string]any{"op": "list", "objects": 2_000_000, "versions": 1000}, "want at most 1000000000 in all"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.p["hosts"], c.p["access_key"], c.p["secret_key"] = []string{"127.0.0.1:9"}, "a", "b"
			err := validate(phaseOf(t, "s3-"+c.name, c.p))
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Validate: %v, want one line saying %q", err, c.want)
			}
		})
	}
}

// A count within the bound whose keys would not fit in this host's memory
// is refused by Prepare as bad input, before the bucket is touched.
func TestObjectsPastMemoryRefusedBeforeBucket(t *testing.T) {
	srv := s3test.StartT(t, s3test.Options{})
	p := baseParams(srv, "get")
	p["objects"], p["bucket"] = MaxObjects, "hugecount"
	ph := phaseOf(t, "s3-huge", p)
	if err := validate(ph); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	c, err := resolve(Params{Op: "get", Hosts: []string{srv.Endpoint}, AccessKey: "a", SecretKey: "b", Objects: MaxObjects, Concurrent: 4}, noKeys)
	if err != nil {
		t.Fatal(err)
	}
	need := prepareMemory(c, "storbench/r1/h1/s3-huge/")
	if avail, ok := engine.AvailableMemory(); !ok || avail >= need {
		t.Skipf("this host has %d bytes available, enough for %d objects' keys (%d bytes)", avail, MaxObjects, need)
	}
	_, err = Engine{}.Prepare(context.Background(), engine.Env{Host: "h1", RunID: "r1"}, ph)
	if err == nil {
		t.Fatal("Prepare took a billion objects' keys on a host without the memory")
	}
	if !errors.Is(err, engine.ErrUnsupported) || !strings.Contains(err.Error(), "--objects 1000000000 needs about") || strings.Contains(err.Error(), "\n") {
		t.Errorf("Prepare: %q, want one line of bad input naming --objects and the memory", err)
	}
	if ok, _ := adminClient(t, srv).BucketExists(context.Background(), "hugecount"); ok {
		t.Error("the bucket was made for a phase refused for its memory")
	}
}
