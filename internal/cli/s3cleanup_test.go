package cli

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/testutil"
)

// independent is a minio-go client of the test server that shares nothing
// with storbench's own clients.
func independent(t *testing.T, endpoint string) *minio.Client {
	t.Helper()
	cl, err := minio.New(endpoint, &minio.Options{Creds: credentials.NewStaticV4(s3test.AccessKey, s3test.SecretKey, ""), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func bucketNames(t *testing.T, cl *minio.Client) []string {
	t.Helper()
	bs, err := cl.ListBuckets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range bs {
		out = append(out, b.Name)
	}
	return out
}

func allKeys(t *testing.T, cl *minio.Client, bucket string) []string {
	t.Helper()
	var out []string
	for o := range cl.ListObjects(context.Background(), bucket, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			if minio.ToErrorResponse(o.Err).Code == "NoSuchBucket" {
				return nil
			}
			t.Fatal(o.Err)
		}
		out = append(out, o.Key)
	}
	return out
}

func onlyFolder(t *testing.T, root string) string {
	t.Helper()
	fs, _ := filepath.Glob(filepath.Join(root, "*"))
	if len(fs) != 1 {
		t.Fatalf("results folders: %v", fs)
	}
	return fs[0]
}

// Item 4: cleanup that cannot remove what the phase made (the server died
// under the run) says what stayed where, in the output and in
// summary.json, and the run exits 1 instead of "completed", 0.
func TestS3CleanupFailureIsReported(t *testing.T) {
	t.Parallel()
	if _, err := s3test.Binary(); err != nil {
		t.Skip(err)
	}
	gwDir := t.TempDir()
	srv, err := s3test.Start(gwDir, s3test.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	st, out := s3State(srv)
	dir := t.TempDir()
	time.AfterFunc(2500*time.Millisecond, srv.Stop) // prepare ~0.1s, then 1.5s of PUTs
	err = Execute(context.Background(), st, []string{"s3", "put", "--obj.size", "4KiB", "--concurrent", "2",
		"--duration", "3s", "--results", dir, "--bucket", "leftb"})
	if ExitCode(err) != ExitFailed {
		t.Fatalf("exit %d (%v), want 1\n%s", ExitCode(err), err, out)
	}
	sum, rerr := results.ReadSummary(onlyFolder(t, dir))
	if rerr != nil {
		t.Fatal(rerr)
	}
	if sum.Status == results.StatusCompleted {
		t.Errorf("run status %s after leaving objects behind", sum.Status)
	}
	ph := sum.Phases[0]
	if len(ph.Leftovers) == 0 {
		t.Fatalf("no leftovers in summary.json:\n%s", out)
	}
	var where string
	for _, l := range ph.Leftovers {
		if l.What == "objects" {
			where = l.Where
			if l.Host == "" || (l.Count == nil && l.AtMost == nil) || l.Reason == "" {
				t.Errorf("leftover lacks host, count or reason: %+v", l)
			}
		}
	}
	pfx := "leftb/storbench/" + sum.RunID + "/"
	if !strings.HasPrefix(where, pfx) {
		t.Fatalf("objects left in %q, want under %s", where, pfx)
	}
	text := out.String()
	if !strings.Contains(text, "left behind on ") || !strings.Contains(text, where) || !strings.Contains(text, "the bucket leftb") {
		t.Errorf("the output does not say what was left where:\n%s", text)
	}
	// What the report names is really there: restart the server on the
	// same root and look with an independent client.
	port := srv.Endpoint[strings.LastIndex(srv.Endpoint, ":")+1:]
	var p int
	fmt.Sscan(port, &p)
	srv2, err := s3test.Start(gwDir, s3test.Options{Port: p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv2.Stop)
	keys := allKeys(t, independent(t, srv2.Endpoint), "leftb")
	n := 0
	for _, k := range keys {
		if strings.HasPrefix("leftb/"+k, where) {
			n++
		}
	}
	for _, l := range ph.Leftovers {
		if l.What == "objects" && l.AtMost != nil && (n == 0 || int64(n) > *l.AtMost) {
			t.Errorf("%d objects under %s, the report said at most %d", n, where, *l.AtMost)
		}
	}
}

// Item 5: Ctrl-C at any moment of an s3 preparation leaves nothing of the
// run and no bucket storbench created, as an independent client sees it.
func TestS3InterruptDuringPrepareLeavesNothing(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	cl := independent(t, srv.Endpoint)
	// A bucket that was there before: storbench's objects go, it stays.
	if err := cl.MakeBucket(context.Background(), "theirs", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	delays := []time.Duration{0, time.Millisecond, 3 * time.Millisecond, 8 * time.Millisecond, 20 * time.Millisecond,
		50 * time.Millisecond, 120 * time.Millisecond, 300 * time.Millisecond}
	for i, d := range delays {
		for _, bucket := range []string{fmt.Sprintf("fresh%d", i), "theirs"} {
			st, out := s3State(srv)
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(d, cancel)
			err := Execute(ctx, st, []string{"s3", "get", "--obj.size", "4KiB", "--objects", "2000", "--concurrent", "8",
				"--duration", "5s", "--results", t.TempDir(), "--bucket", bucket})
			cancel()
			if err == nil {
				t.Fatalf("interrupt after %s: the run was not interrupted\n%s", d, out)
			}
			for _, b := range bucketNames(t, cl) {
				if b != "theirs" {
					t.Errorf("interrupt after %s: bucket %s that storbench created is still there\n%s", d, b, out)
					cl.RemoveBucketWithOptions(context.Background(), b, minio.RemoveBucketOptions{ForceDelete: true})
				}
			}
			if keys := allKeys(t, cl, "theirs"); len(keys) != 0 {
				t.Errorf("interrupt after %s: %d objects of the run left in a bucket that was there before (%v...)\n%s", d, len(keys), keys[0], out)
				for _, k := range keys {
					cl.RemoveObject(context.Background(), "theirs", k, minio.RemoveObjectOptions{})
				}
			}
		}
	}
}

// Item 8: versioned on a server without versioning says so in one line,
// exits 2, and leaves neither the bucket it created nor its marker.
func TestS3VersionedWithoutVersioningSupport(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{}) // no --versioning-dir
	cl := independent(t, srv.Endpoint)
	st, out := s3State(srv)
	err := Execute(context.Background(), st, []string{"s3", "versioned", "--objects", "20", "--concurrent", "2",
		"--duration", "1s", "--results", t.TempDir(), "--bucket", "nover"})
	if ExitCode(err) != ExitUsage {
		t.Errorf("exit %d (%v), want 2\n%s", ExitCode(err), err, out)
	}
	if err == nil || err.Error() != "s3: versioned: the server does not support bucket versioning" {
		t.Errorf("error %q, want the one line saying the server does not support bucket versioning", err)
	}
	if bs := bucketNames(t, cl); len(bs) != 0 {
		t.Errorf("buckets left: %v (keys %v)", bs, allKeys(t, cl, "nover"))
	}
}

// Item 15: a server killed and restarted mid-phase: workers back off
// instead of spinning, the output and summary.json say how long each
// endpoint could not be reached, and the run exits 1 (the endpoint was
// unreachable for more than 5% of the phase).
func TestS3ServerDownMidPhase(t *testing.T) {
	t.Parallel()
	if _, err := s3test.Binary(); err != nil {
		t.Skip(err)
	}
	gwDir := t.TempDir()
	srv, err := s3test.Start(gwDir, s3test.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	var port int
	fmt.Sscan(srv.Endpoint[strings.LastIndex(srv.Endpoint, ":")+1:], &port)
	restarted := make(chan *s3test.Server, 1)
	var down time.Duration
	// The server goes down a second into the run stage: once the 100
	// objects the phase prepares are in its directory (a fixed 1.5 s from
	// the start fell in the preparation under load, which then failed as
	// an endpoint that cannot be reached).
	const objects = 100
	go func() {
		for deadline := time.Now().Add(testutil.Bound); countFiles(filepath.Join(gwDir, "gwroot", "downb")) < objects && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(time.Second)
		srv.Stop()
		t0 := time.Now()
		time.Sleep(3 * time.Second)
		s2, err := s3test.Start(gwDir, s3test.Options{Port: port})
		down = time.Since(t0)
		if err != nil {
			t.Error(err)
		}
		restarted <- s2
	}()
	st, out := s3State(srv)
	dir := t.TempDir()
	const conc = 8
	err = Execute(context.Background(), st, []string{"s3", "get", "--obj.size", "4KiB", "--objects", fmt.Sprint(objects), "--concurrent", fmt.Sprint(conc),
		"--duration", "7s", "--results", dir, "--bucket", "downb"})
	if s2 := <-restarted; s2 != nil {
		t.Cleanup(s2.Stop)
	}
	if ExitCode(err) != ExitFailed {
		t.Errorf("exit %d (%v), want 1\n%s", ExitCode(err), err, out)
	}
	sum, rerr := results.ReadSummary(onlyFolder(t, dir))
	if rerr != nil {
		t.Fatal(rerr)
	}
	ph := sum.Phases[0]
	if ph.Status != results.StatusFailed || !strings.Contains(ph.Error, "--max-error-share") {
		t.Errorf("phase status %s (%s), want failed over the error share", ph.Status, ph.Error)
	}
	if len(ph.Ops) == 0 {
		t.Fatalf("the phase measured no operation: %+v", ph)
	}
	g := ph.Ops[0]
	// Backoff: 10 ms doubling to 1 s is at most ~7 + 3 s-steps per worker
	// in a 3 s outage; a tight loop makes thousands.
	if limit := uint64(conc * 20); g.Errors == 0 || g.Errors > limit {
		t.Errorf("%d errors in a %s outage with %d workers, want 1..%d", g.Errors, down, conc, limit)
	}
	if len(ph.PerHost) != 1 || len(ph.PerHost[0].Unreachable) != 1 {
		t.Fatalf("per host unreachable: %+v", ph.PerHost)
	}
	u := ph.PerHost[0].Unreachable[0]
	if u.Endpoint != srv.Endpoint || u.Seconds < down.Seconds()-0.5 || u.Seconds > down.Seconds()+2 {
		t.Errorf("unreachable %+v, the server was down %s", u, down)
	}
	if !strings.Contains(out.String(), "could not reach "+srv.Endpoint+" for ") {
		t.Errorf("the output does not say how long the server was unreachable:\n%s", out)
	}
	if g.Ops == 0 {
		t.Error("no GETs counted around the outage")
	}
}

// countFiles is how many regular files are under dir (0 when it cannot
// be read).
func countFiles(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}
