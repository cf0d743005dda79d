package s3_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/storbench/storbench/internal/engine"
	s3e "github.com/storbench/storbench/internal/engine/s3"
	"github.com/storbench/storbench/internal/enginetest"
	"github.com/storbench/storbench/internal/s3test"
)

// The s3 engine keeps the engine contract against a real versitygw on
// loopback, on both request paths.
func TestConformance(t *testing.T) {
	conformance(t, s3test.StartT(t, s3test.Options{}))
}

// conformance runs the engine's conformance suite against srv, on both
// request paths.
func conformance(t *testing.T, srv *s3test.Server) {
	cl, err := minio.New(srv.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(s3test.AccessKey, s3test.SecretKey, ""), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, sdk := range []bool{false, true} {
		name := map[bool]string{false: "lean", true: "minio-go"}[sdk]
		t.Run(name, func(t *testing.T) {
			bucket := "conf-" + strings.ReplaceAll(name, "-", "")
			enginetest.Suite{
				Engine: s3e.Engine{},
				Env:    engine.Env{Host: "h1"},
				Target: objects{cl: cl, bucket: bucket},
				Secret: s3test.SecretKey,
				// The agent process runs the same engine, with the
				// phase's keys: what a remote run records of them.
				ThroughAgent: true,
				Phase: func(t *testing.T, name string, long bool) engine.Phase {
					dur := "700ms"
					if long {
						dur = "1h"
					}
					b, err := json.Marshal(map[string]any{"op": "mixed", "hosts": []string{srv.Endpoint},
						"access_key": s3test.AccessKey, "secret_key": s3test.SecretKey, "bucket": bucket,
						"concurrent": 4, "obj_size": "4KiB", "objects": 40, "duration": dur, "sdk": sdk})
					if err != nil {
						t.Fatal(err)
					}
					return engine.Phase{Name: name, Engine: "s3", Params: b}
				},
			}.Run(t)
		})
	}
}

// objects is the enginetest.Target of the s3 engine: a bucket, where a run
// puts its objects under storbench/<run id>/.
type objects struct {
	cl     *minio.Client
	bucket string
}

func (o objects) PlaceForeign(t *testing.T, runID string) func(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	if ok, _ := o.cl.BucketExists(ctx, o.bucket); !ok {
		if err := o.cl.MakeBucket(ctx, o.bucket, minio.MakeBucketOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string][]byte{}
	for i, k := range []string{"user.dat", "data/keep/a.bin", "storbench/other-run/h/p/obj",
		"storbench/" + runID + "0/near-miss", "storbench/" + runID + ".txt", "storbench-" + runID + "/x"} {
		b := bytes.Repeat([]byte{byte(i + 1), byte(i * 7)}, 700+i*300)
		if _, err := o.cl.PutObject(ctx, o.bucket, k, bytes.NewReader(b), int64(len(b)), minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
		want[k] = b
	}
	return func(t *testing.T) {
		t.Helper()
		for k, b := range want {
			obj, err := o.cl.GetObject(context.Background(), o.bucket, k, minio.GetObjectOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(obj)
			obj.Close()
			if err != nil || !bytes.Equal(got, b) {
				t.Errorf("foreign object %s changed or gone (%v, %d of %d bytes)", k, err, len(got), len(b))
			}
		}
	}
}

func (o objects) Created(t *testing.T, runID string) []string {
	t.Helper()
	var out []string
	for obj := range o.cl.ListObjects(context.Background(), o.bucket, minio.ListObjectsOptions{Prefix: "storbench/" + runID + "/", Recursive: true}) {
		if obj.Err != nil {
			t.Fatal(obj.Err)
		}
		out = append(out, obj.Key)
	}
	sort.Strings(out)
	return out
}

func (o objects) Everything(t *testing.T) []string {
	t.Helper()
	var out []string
	for obj := range o.cl.ListObjects(context.Background(), o.bucket, minio.ListObjectsOptions{Recursive: true}) {
		if obj.Err != nil {
			t.Fatal(obj.Err)
		}
		out = append(out, o.bucket+"/"+obj.Key)
	}
	return out
}

func (o objects) Purge(t *testing.T, runID string) {
	t.Helper()
	for _, k := range o.Created(t, runID) {
		if err := o.cl.RemoveObject(context.Background(), o.bucket, k, minio.RemoveObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}
