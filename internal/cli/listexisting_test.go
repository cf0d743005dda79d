package cli

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/s3test"
)

// objectState is what an independent client sees of one object.
type objectState struct {
	Size     int64
	MD5      string // of the content read back, not the server's ETag
	ETag     string
	Modified time.Time
}

// serverState is every bucket, and every object of each with its content's
// MD5, as minio-go (not storbench's code) reads them.
func serverState(t *testing.T, cl *minio.Client) map[string]map[string]objectState {
	t.Helper()
	ctx := context.Background()
	out := map[string]map[string]objectState{}
	for _, b := range bucketNames(t, cl) {
		objs := map[string]objectState{}
		for o := range cl.ListObjects(ctx, b, minio.ListObjectsOptions{Recursive: true}) {
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			r, err := cl.GetObject(ctx, b, o.Key, minio.GetObjectOptions{})
			if err != nil {
				t.Fatal(err)
			}
			h := md5.New()
			_, err = io.Copy(h, r)
			r.Close()
			if err != nil {
				t.Fatalf("read %s/%s: %v", b, o.Key, err)
			}
			objs[o.Key] = objectState{Size: o.Size, MD5: hex.EncodeToString(h.Sum(nil)), ETag: o.ETag, Modified: o.LastModified}
		}
		out[b] = objs
	}
	return out
}

// foreignData fills buckets with objects storbench did not write: under the
// prefix the tests read, next to it, and in another bucket.
func foreignData(t *testing.T, cl *minio.Client) (underPrefix int) {
	t.Helper()
	ctx := context.Background()
	objs := map[string][]string{
		"prod":  {"images/a.bin", "images/b c+ü.bin", "images/deep/x/y.bin", "images/empty", "imagesque", "other/z.bin", "top.bin"},
		"other": {"images/not-this-bucket.bin"},
	}
	sizes := []int{1, 4096, 100 << 10, 0, 3000, 777, 5}
	for b, keys := range objs {
		if err := cl.MakeBucket(ctx, b, minio.MakeBucketOptions{}); err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			data := make([]byte, sizes[i%len(sizes)])
			_, _ = rand.Read(data)
			// Unsigned payloads: versitygw 1.8 leaves the end of minio-go's
			// signed 0-byte upload on the connection and answers it 400.
			if _, err := cl.PutObject(ctx, b, k, bytes.NewReader(data), int64(len(data)), minio.PutObjectOptions{DisableContentSha256: true}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return 4 // images/a.bin, images/b c+ü.bin, images/deep/x/y.bin, images/empty
}

// Item 6: get, stat, list and mixed run on the objects already in a bucket
// (--list-existing --prefix), on the lean path and through minio-go, and
// write nothing. They run with keys that may only read the bucket (a
// bucket policy allows GetObject and ListBucket, nothing else), so a write
// or delete, even one undone later, would fail the run; and every bucket's
// listing, and every object's size, content MD5, ETag and modification
// time, are the same before and after, as an independent minio-go client
// sees them.
func TestListExistingLeavesTheBucketUnchanged(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{IAM: true})
	cl := independent(t, srv.Endpoint)
	want := foreignData(t, cl)
	const reader, readerSecret = "AKsbReadOnly1", "SKsbReadOnlySecret1"
	if err := srv.CreateUser(reader, readerSecret, "user"); err != nil {
		t.Fatal(err)
	}
	policy := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":["` + reader + `"]},` +
		`"Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::prod","arn:aws:s3:::prod/*"]}]}`
	if err := cl.SetBucketPolicy(context.Background(), "prod", policy); err != nil {
		t.Fatal(err)
	}
	before := serverState(t, cl)
	for _, tc := range [][]string{
		{"get"}, {"get", "--sdk"}, {"get", "--range"}, {"stat"}, {"list"}, {"mixed"}, {"mixed", "--sdk"},
		{"mixed", "--put-distrib", "0", "--delete-distrib", "0", "--get-distrib", "1", "--stat-distrib", "1"},
	} {
		t.Run(strings.Join(tc, " "), func(t *testing.T) {
			st, out := s3State(srv)
			dir := t.TempDir()
			args := append([]string{"s3"}, tc...)
			args = append(args, "--list-existing", "--prefix", "images/", "--bucket", "prod", "--concurrent", "3",
				"--duration", "700ms", "--results", dir, "--access-key", reader, "--secret-key", readerSecret)
			if err := Execute(context.Background(), st, args); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			folder := onlyFolder(t, dir)
			sum, err := results.ReadSummary(folder)
			if err != nil {
				t.Fatal(err)
			}
			var ops, errs uint64
			for _, o := range sum.Phases[0].Ops {
				ops += o.Ops
				errs += o.Errors
			}
			if ops == 0 || errs != 0 {
				t.Errorf("%d requests, %d errors:\n%s", ops, errs, out)
			}
			hr, err := results.ReadHostResult(folder, sum.Phases[0].Dir, sum.Phases[0].Hosts[0])
			if err != nil {
				t.Fatal(err)
			}
			meta := hr.Meta
			if meta["objects"] != fmt.Sprint(want) || meta["list_existing"] != "prod/images/" {
				t.Errorf("read %s objects of %q, want %d of prod/images/", meta["objects"], meta["list_existing"], want)
			}
		})
	}
	if after := serverState(t, cl); !reflect.DeepEqual(before, after) {
		t.Errorf("the server changed:\nbefore %v\nafter  %v", before, after)
	}
}

// Bad input of --list-existing is one line, exit 2, and writes nothing: a
// prefix with no objects, a bucket that is not there (not created), a
// write benchmark, mixed with writes, --prefix alone, sizes, upload options
// or --verify (for objects storbench wrote), a --range-size some listed
// object is too small for.
func TestListExistingBadInput(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	cl := independent(t, srv.Endpoint)
	foreignData(t, cl)
	before := serverState(t, cl)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "--list-existing", "--prefix", "nothing/", "--bucket", "prod"}, "no objects under prod/nothing/"},
		{[]string{"stat", "--list-existing", "--bucket", "notthere"}, `bucket "notthere" does not exist`},
		{[]string{"put", "--list-existing", "--bucket", "prod"}, "--list-existing writes and deletes nothing, and put writes"},
		{[]string{"delete", "--list-existing", "--bucket", "prod"}, "and delete writes"},
		{[]string{"multipart", "--list-existing", "--bucket", "prod"}, "and multipart writes"},
		{[]string{"versioned", "--list-existing", "--bucket", "prod"}, "and versioned writes"},
		{[]string{"mixed", "--list-existing", "--bucket", "prod", "--put-distrib", "5"}, "mixed reads only"},
		{[]string{"get", "--prefix", "images/", "--bucket", "prod"}, "give it with --list-existing"},
		{[]string{"get", "--list-existing", "--bucket", "prod", "--obj.size", "4KiB"}, "leave out --obj.size"},
		{[]string{"list", "--list-existing", "--bucket", "prod", "--objects", "5"}, "leave out --objects"},
		{[]string{"multipart-put", "--list-existing", "--bucket", "prod"}, "and multipart-put writes"},
		{[]string{"retention", "--list-existing", "--bucket", "prod"}, "and retention writes"},
		{[]string{"get", "--list-existing", "--bucket", "prod", "--obj.dist", "lognormal", "--obj.mean", "4KiB", "--obj.sd", "1KiB"}, "leave out --obj.size, --obj.randsize and --obj.dist"},
		{[]string{"get", "--list-existing", "--bucket", "prod", "--verify"}, "these objects are not storbench's"},
		{[]string{"get", "--list-existing", "--bucket", "prod", "--storage-class", "STANDARD"}, "uploads nothing: leave out the upload options"},
		{[]string{"mixed", "--list-existing", "--bucket", "prod", "--put-distrib", "0", "--delete-distrib", "0", "--tag", "a=b"}, "uploads nothing"},
		{[]string{"get", "--list-existing", "--bucket", "prod", "--prefix", "images/", "--range-size", "1KiB"}, "--range-size 1KiB is larger than the smallest object under prod/images/ (0B)"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			st, out := s3State(srv)
			dir := filepath.Join(t.TempDir(), "results")
			err := Execute(context.Background(), st, append(append([]string{"s3"}, tc.args...), "--duration", "1s", "--results", dir))
			if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("exit %d, %v\nwant one line with %q\n%s", ExitCode(err), err, tc.want, out)
			}
			// What only the server can tell (an empty prefix, a missing
			// bucket) is found at preparation, before any load: no results
			// folder is left either (issue 21), nor an empty results/
			// (issue 34).
			noResults(t, dir)
		})
	}
	if after := serverState(t, cl); !reflect.DeepEqual(before, after) {
		t.Errorf("the server changed:\nbefore %v\nafter  %v", before, after)
	}
}
