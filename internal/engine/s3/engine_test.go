package s3

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/report"
	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/testutil/ceph"
)

func phaseOf(t testing.TB, name string, params map[string]any) engine.Phase {
	t.Helper()
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	return engine.Phase{Name: name, Engine: "s3", Params: b}
}

func baseParams(srv *s3test.Server, op string) map[string]any {
	p := map[string]any{
		"op": op, "hosts": []string{srv.Endpoint},
		"access_key": s3test.AccessKey, "secret_key": s3test.SecretKey,
		"bucket": "bench", "concurrent": 4, "obj_size": "4KiB", "objects": 40,
		"duration": "700ms",
	}
	if srv.TLS {
		p["tls"], p["ca_cert"] = true, srv.CAFile
	}
	return p
}

func adminClient(t testing.TB, srv *s3test.Server) *minio.Client {
	t.Helper()
	o := &minio.Options{Creds: credentials.NewStaticV4(s3test.AccessKey, s3test.SecretKey, ""), Region: "us-east-1"}
	if srv.TLS {
		o.Secure = true
		o.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: srv.CA, MinVersion: tls.VersionTLS12}}
	}
	cl, err := minio.New(srv.Endpoint, o)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// foreign fills bucket with objects storbench did not write, some with
// names close to storbench's own prefix, and returns their contents.
func foreign(t testing.TB, cl *minio.Client, bucket, runID string) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	if ok, _ := cl.BucketExists(ctx, bucket); !ok {
		if err := cl.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	out := map[string][]byte{}
	for _, k := range []string{"data/a.bin", "top.bin", "storbench/other-run/x", "storbench/" + runID + "0/near-miss", "storbench/" + runID + ".txt"} {
		b := make([]byte, 3000)
		_, _ = rand.Read(b)
		if _, err := cl.PutObject(ctx, bucket, k, bytes.NewReader(b), int64(len(b)), minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
		out[k] = b
	}
	return out
}

func checkForeign(t testing.TB, cl *minio.Client, bucket string, want map[string][]byte) {
	t.Helper()
	for k, b := range want {
		o, err := cl.GetObject(context.Background(), bucket, k, minio.GetObjectOptions{})
		if err != nil {
			t.Fatalf("foreign object %s: %v", k, err)
		}
		got, err := io.ReadAll(o)
		o.Close()
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("foreign object %s changed or lost (err %v, %d bytes)", k, err, len(got))
		}
	}
}

// keysUnder lists the keys under prefix.
func keysUnder(t testing.TB, cl *minio.Client, bucket, prefix string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for o := range cl.ListObjects(context.Background(), bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			if minio.ToErrorResponse(o.Err).Code == "NoSuchBucket" {
				return out
			}
			t.Fatal(o.Err)
		}
		out[o.Key] = o.Size
	}
	return out
}

// verify reads up to n objects under the phase's prefix and compares them
// with what the engine meant to write.
func verify(t testing.TB, ph *phase, cl *minio.Client, n int, expect func(key string, size int64) []byte) int {
	t.Helper()
	checked := 0
	for k, size := range keysUnder(t, cl, ph.c.Bucket, ph.prefix) {
		if checked == n {
			break
		}
		o, err := cl.GetObject(context.Background(), ph.c.Bucket, k, minio.GetObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// One read into the object's size: io.ReadAll's doubling copies
		// 15-MiB multipart objects several times, slow under -race.
		got := make([]byte, size)
		_, err = io.ReadFull(o, got)
		if err == nil {
			if n, _ := o.Read(make([]byte, 1)); n != 0 {
				err = errors.New("longer than listed")
			}
		}
		o.Close()
		if err != nil {
			t.Fatalf("read back %s: %v", k, err)
		}
		if !bytes.Equal(got, expect(k, size)) {
			t.Fatalf("object %s (%d bytes) does not hold what was written", k, size)
		}
		checked++
	}
	return checked
}

func TestEveryOpAgainstVersityGW(t *testing.T) {
	t.Parallel()
	everyOp(t, s3test.StartT(t, s3test.Options{}), everyOpCases)
}

// opCase is a benchmark everyOp runs: its settings, the operations it
// records, and whether what it wrote is read back and checked.
type opCase struct {
	op     string
	extra  map[string]any
	ops    []string
	verify bool
	// sdkOnly: the engine runs it on minio-go whatever the client asked
	// (leanUsable, TestLeanNotUsedWhereItCannot), so the lean run of it
	// would repeat the minio-go one.
	sdkOnly bool
}

// everyOpCases are the benchmarks TestEveryOpAgainstVersityGW runs;
// multipartCase the one of them that uploads in parts.
var (
	multipartCase = opCase{op: "multipart", extra: map[string]any{"parts": 3, "part_size": "5MiB", "part_concurrency": 2, "concurrent": 2}, ops: []string{"UPLOAD", "PART"}, verify: true, sdkOnly: true}
	everyOpCases  = []opCase{
		{op: "put", ops: []string{"PUT"}, verify: true},
		{op: "put", extra: map[string]any{"obj_randsize": true, "md5": true, "noprefix": true}, ops: []string{"PUT"}, verify: true},
		{op: "put", extra: map[string]any{"checksum": "crc32c", "host_select": "roundrobin"}, ops: []string{"PUT"}, verify: true},
		{op: "get", ops: []string{"GET"}, verify: true},
		{op: "get", extra: map[string]any{"range": true, "obj_randsize": true}, ops: []string{"GET"}},
		{op: "stat", ops: []string{"STAT"}},
		{op: "list", extra: map[string]any{"objects": 80}, ops: []string{"LIST"}},
		{op: "delete", extra: map[string]any{"batch": 10, "duration": "10s"}, ops: []string{"DELETE"}},
		{op: "mixed", extra: map[string]any{"objects": 100}, ops: []string{"GET", "STAT", "PUT", "DELETE"}, verify: true},
		multipartCase,
	}
)

// everyOp runs each case on srv on the request paths named (both when
// none is): every operation made with no error, what was written reads
// back, cleanup removes the run's objects and nothing else in the bucket.
func everyOp(t *testing.T, srv *s3test.Server, cases []opCase, clients ...string) {
	if len(clients) == 0 {
		clients = []string{"lean", "minio-go"}
	}
	cl := adminClient(t, srv)
	const runID = "r1"
	want := foreign(t, cl, "bench", runID)

	// Both request paths pass the same checks: the lean one (the default)
	// and minio-go (sdk).
	for j, client := range clients {
		for i, tc := range cases {
			if tc.sdkOnly && client != "minio-go" {
				continue
			}
			t.Run(client+"/"+tc.op, func(t *testing.T) {
				p := baseParams(srv, tc.op)
				for k, v := range tc.extra {
					p[k] = v
				}
				p["sdk"] = client == "minio-go"
				name := tc.op + "-" + string(rune('a'+i)) + strconv.Itoa(j)
				env := engine.Env{Host: "h1", RunID: runID}
				pr, err := Engine{}.Prepare(context.Background(), env, phaseOf(t, name, p))
				if err != nil {
					t.Fatal(err)
				}
				ph := pr.(*phase)
				res, err := pr.Run(context.Background(), time.Now(), nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Ops) != len(tc.ops) {
					t.Fatalf("ops recorded %v, want %v", res.Ops, tc.ops)
				}
				want := client
				if tc.op == "multipart" || tc.extra["checksum"] != nil {
					want = "minio-go" // the lean path sends no checksum header
				}
				if res.Meta["s3_client"] != want {
					t.Errorf("ran on %q, want %q", res.Meta["s3_client"], want)
				}
				for k, o := range res.Ops {
					if o.Op != tc.ops[k] || o.Ops == 0 || o.Errors != 0 {
						t.Errorf("%s: %d ops, %d errors %v; want ops and no errors", o.Op, o.Ops, o.Errors, o.ErrorKinds)
					}
					if o.Op == "GET" && (o.TTFB == nil || o.TTFB.Stats.N != o.Ops || o.Bytes == 0) {
						t.Errorf("GET: TTFB or bytes missing: %+v", o)
					}
					if (o.Op == "PUT" || o.Op == "UPLOAD") && tc.op != "mixed" && o.Bytes == 0 {
						t.Errorf("%s moved no bytes", o.Op)
					}
				}
				if tc.op == "delete" {
					if n := len(keysUnder(t, cl, "bench", ph.prefix)); n != 0 {
						t.Errorf("delete left %d of its objects", n)
					}
					if res.Ops[0].Ops != 4 { // 40 objects in batches of 10
						t.Errorf("delete made %d requests, want 4", res.Ops[0].Ops)
					}
				}
				if len(res.Series) == 0 {
					t.Error("no per-second series")
				}
				if tc.verify {
					expect := func(k string, size int64) []byte { return ph.data.content(k, size) }
					if tc.op == "multipart" {
						expect = func(k string, size int64) []byte {
							out := make([]byte, 0, size)
							ps := int64(ph.c.PartSize)
							for p := 0; int64(p)*ps < size; p++ {
								r := &dataReader{}
								r.reset(ph.data, (ph.data.offset(k)+p*7919)%len(ph.data.b), ps)
								b, _ := io.ReadAll(r)
								out = append(out, b...)
							}
							return out
						}
					}
					if n := verify(t, ph, cl, 20, expect); n == 0 {
						t.Error("nothing to verify under the phase prefix")
					}
				}
				if err := pr.Cleanup(context.Background()); err != nil {
					t.Fatal(err)
				}
				if left := keysUnder(t, cl, "bench", ph.prefix); len(left) != 0 {
					t.Errorf("cleanup left %d objects under %s", len(left), ph.prefix)
				}
			})
		}
	}
	checkForeign(t, cl, "bench", want)
	if ok, _ := cl.BucketExists(context.Background(), "bench"); !ok {
		t.Fatal("the pre-existing bucket was removed")
	}
}

func TestBucketCreatedAndRemovedOnlyWhenEmpty(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	cl := adminClient(t, srv)
	ctx := context.Background()
	run := func(bucket string, keepForeign bool) {
		p := baseParams(srv, "put")
		p["bucket"] = bucket
		p["duration"] = "300ms"
		pr, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "rb"}, phaseOf(t, "put", p))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pr.Run(ctx, time.Now(), nil); err != nil {
			t.Fatal(err)
		}
		if keepForeign {
			// Someone else writes into the bucket while storbench runs.
			if _, err := cl.PutObject(ctx, bucket, "theirs", strings.NewReader("x"), 1, minio.PutObjectOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		err = pr.Cleanup(ctx)
		var le *engine.LeftoverError
		switch {
		case !keepForeign && err != nil:
			t.Fatal(err)
		case keepForeign && (!errors.As(err, &le) || len(le.Items) != 1 || le.Items[0].What != "bucket" || !strings.Contains(le.Items[0].Reason, "not this run's")):
			// The bucket storbench made stays, and the user is told why.
			t.Fatalf("cleanup of a bucket with someone else's object: %v", err)
		}
	}
	run("fresh", false)
	if ok, _ := cl.BucketExists(ctx, "fresh"); ok {
		t.Error("bucket storbench created was left behind")
	}
	run("shared", true)
	if ok, _ := cl.BucketExists(ctx, "shared"); !ok {
		t.Fatal("bucket with someone else's object was removed")
	}
	if keys := keysUnder(t, cl, "shared", ""); len(keys) != 2 {
		// "theirs" and the run's marker stay; the marker is what a later
		// cleanup of the same run uses to remove the bucket.
		t.Errorf("bucket holds %v, want theirs and the marker", keys)
	}
}

func TestVersioned(t *testing.T) {
	t.Parallel()
	versioned(t, s3test.StartT(t, s3test.Options{Versioning: true}))
}

// versioned runs the versioned benchmark on srv, which has versioning,
// and checks that an unversioned bucket is refused, not changed.
func versioned(t *testing.T, srv *s3test.Server) {
	cl := adminClient(t, srv)
	ctx := context.Background()
	p := baseParams(srv, "versioned")
	// Without DELETEs every request must succeed: a PUT publishes a new
	// version under versitygw's per-key lock, so a read of any version the
	// pool holds finds it.
	p["bucket"], p["delete_distrib"] = "vers-nodel", 0
	for _, o := range runVersioned(t, p).Ops {
		if o.Ops == 0 || o.Errors != 0 {
			t.Errorf("no DELETEs: %s: %d ops %d errors %v; want ops and no errors", o.Op, o.Ops, o.Errors, o.ErrorKinds)
		}
	}
	delete(p, "delete_distrib")
	p["bucket"] = "vers"
	pr, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "rv"}, phaseOf(t, "v", p))
	if err != nil {
		t.Fatal(err)
	}
	res, err := pr.Run(ctx, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkVersionedReads(t, res.Ops)
	if err := pr.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _ := cl.BucketExists(ctx, "vers"); ok {
		t.Error("versioned bucket storbench created was left behind")
	}
	// A pre-existing unversioned bucket is refused, not changed.
	if err := cl.MakeBucket(ctx, "plain", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	p["bucket"] = "plain"
	_, err = Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "rv2"}, phaseOf(t, "v", p))
	if err == nil || !strings.Contains(err.Error(), "versioning off") {
		t.Fatalf("want a refusal to change versioning, got %v", err)
	}
}

// runVersioned prepares, runs and cleans up the versioned phase of params p.
func runVersioned(t *testing.T, p map[string]any) *model.HostResult {
	t.Helper()
	ctx := context.Background()
	pr, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "rv0"}, phaseOf(t, "v", p))
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Cleanup(ctx)
	res, err := pr.Run(ctx, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkVersionedReads checks a versioned run with DELETEs: every request
// fails only as versitygw's posix backend lets it. Its DELETE of a key's
// latest version removes the file and then moves the previous version into
// its place without the per-key lock a PUT takes: a read of any version of
// that key in that window gets NoSuchKey or NoSuchVersion, and a PUT of the
// key, whose snapshot of the version it replaces meets the file gone, an
// InternalError (seen 0-5 errors in about 350 requests a run, more under
// load: 4 of 64 STATs failed CI's 5% bound). storbench asks only for
// versions the pool holds and leases them from DELETEs (TestEveryOpAgainstVersityGW's
// mixed case checks that with no error allowed; the run without DELETEs
// in versioned, with none), so each error needs a DELETE of its key in
// flight, and a worker seldom draws that key twice in one window: the
// errors stay at most the DELETEs.
func checkVersionedReads(t *testing.T, ops []record.OpStats) {
	t.Helper()
	var dels, bad uint64
	for _, o := range ops {
		if o.Ops == 0 {
			t.Errorf("%s: no ops", o.Op)
		}
		if o.Op == "DELETE" {
			dels = o.Ops
		}
		for kind, n := range o.ErrorKinds {
			// A DELETE racing another of the same key's versions was
			// once answered InvalidArgument (make test, 1 of its DELETEs).
			raced := kind == "NoSuchKey" || kind == "NoSuchVersion" || kind == "InternalError" || (o.Op == "DELETE" && kind == "InvalidArgument")
			if !raced {
				t.Errorf("%s: %d errors %s; want only versitygw's NoSuchKey/NoSuchVersion/InternalError race (InvalidArgument on a DELETE)", o.Op, n, kind)
			}
		}
		bad += o.Errors
	}
	if bad > dels {
		t.Errorf("%d requests failed beside %d DELETEs: more than versitygw's race explains", bad, dels)
	}
}

func TestBenchDataStreamsEveryRequest(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	p := baseParams(srv, "get")
	file := filepath.Join(t.TempDir(), "ops.tsv.zst")
	p["benchdata"] = file
	pr, err := Engine{}.Prepare(context.Background(), engine.Env{Host: "h", RunID: "rd"}, phaseOf(t, "g", p))
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Cleanup(context.Background())
	res, err := pr.Run(context.Background(), time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	lines, ttfb := readBenchData(t, file)
	if uint64(len(lines)) != res.Ops[0].Ops {
		t.Fatalf("benchdata has %d lines, the run recorded %d GETs", len(lines), res.Ops[0].Ops)
	}
	if ttfb == 0 {
		t.Error("no TTFB in the benchdata lines")
	}
}

func TestRateIsOpenLoop(t *testing.T) {
	srv := s3test.StartT(t, s3test.Options{})
	p := baseParams(srv, "stat")
	p["rate"] = 200
	p["duration"] = "1s"
	pr, err := Engine{}.Prepare(context.Background(), engine.Env{Host: "h", RunID: "rr"}, phaseOf(t, "s", p))
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Cleanup(context.Background())
	res, err := pr.Run(context.Background(), time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Every start of the schedule is either made or counted as dropped,
	// and the schedule is never exceeded (a loaded machine drops more).
	n := res.Ops[0].Ops + res.Ops[0].Errors
	dropped, _ := strconv.ParseUint(res.Meta["dropped_starts"], 10, 64)
	if n > 201 || n+dropped < 199 || n+dropped > 201 {
		t.Errorf("rate 200/s for 1s: %d made + %d dropped, want 200", n, dropped)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	// The Ceph cluster the radosgw tests share, torn down once they all
	// ran: what it leaves behind fails the tests.
	if err := ceph.StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

func readBenchData(t testing.TB, file string) (lines []string, ttfbSum int64) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := zstd.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if all[0] != BenchDataHeader {
		t.Fatalf("header %q", all[0])
	}
	for _, l := range all[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 8 || f[0] != "GET" || f[7] != "" {
			t.Fatalf("bad line %q", l)
		}
		v, _ := strconv.ParseInt(f[4], 10, 64)
		ttfbSum += v
	}
	return all[1:], ttfbSum
}

func TestEndpointsFileNameMatchesReport(t *testing.T) {
	if EndpointsFile != report.S3EndpointsFile {
		t.Fatalf("engine writes %q, report reads %q", EndpointsFile, report.S3EndpointsFile)
	}
}

// Two gateways on one posix root are one object store with two endpoints.
func TestSeveralEndpointsAreReportedEach(t *testing.T) {
	t.Parallel()
	if _, err := s3test.Binary(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	var eps []string
	for i := 0; i < 2; i++ {
		s, err := s3test.Start(dir, s3test.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Stop)
		eps = append(eps, s.Endpoint)
	}
	for _, sel := range []string{"weighed", "roundrobin"} {
		p := map[string]any{"op": "get", "host": strings.Join(eps, ","), "host_select": sel,
			"access_key": s3test.AccessKey, "secret_key": s3test.SecretKey, "bucket": "multi",
			"concurrent": 4, "obj_size": "4KiB", "objects": 20, "duration": "600ms"}
		pr, err := Engine{}.Prepare(context.Background(), engine.Env{Host: "h", RunID: "m"}, phaseOf(t, "g-"+sel, p))
		if err != nil {
			t.Fatal(err)
		}
		res, err := pr.Run(context.Background(), time.Now(), nil)
		if err != nil {
			t.Fatal(err)
		}
		pr.Cleanup(context.Background())
		var per map[string][]record.OpStats
		if err := json.Unmarshal(res.Raw[EndpointsFile], &per); err != nil {
			t.Fatalf("%s: per-endpoint file: %v", sel, err)
		}
		var sum uint64
		for _, ep := range eps {
			if len(per[ep]) != 1 || per[ep][0].Ops == 0 {
				t.Fatalf("%s: endpoint %s got no requests: %+v", sel, ep, per)
			}
			sum += per[ep][0].Ops
		}
		if sum != res.Ops[0].Ops {
			t.Errorf("%s: endpoints add up to %d, the total is %d", sel, sum, res.Ops[0].Ops)
		}
	}
}

// Hosts of one run clean up at the same moment: the bucket one of them
// created goes once every host has deleted its objects, and no host reports
// it as left behind. Before, each host removed the bucket when it saw
// nothing else in it: two hosts that looked while the other's objects were
// still there both left it, silently, and a host that found it already
// removed reported it as a leftover.
func TestBucketRemovedOnceByTheHostsOfOneRun(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	cl := adminClient(t, srv)
	ctx := context.Background()
	for round := range 6 {
		bucket := fmt.Sprintf("hosts%d", round)
		p := baseParams(srv, "put")
		p["bucket"] = bucket
		p["duration"] = "200ms"
		ph := phaseOf(t, "put", p)
		const hosts = 4
		prs, errs := prepareAtOnce(hosts, func(i int) (engine.Prepared, error) {
			pr, err := Engine{}.Prepare(ctx, engine.Env{Host: fmt.Sprintf("h%d", i), RunID: "r1"}, ph)
			if err == nil {
				_, err = pr.Run(ctx, time.Now(), nil)
			}
			return pr, err
		})
		var wg sync.WaitGroup
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d host %d: %v", round, i, err)
			}
		}
		for i := range hosts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = prs[i].Cleanup(ctx)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d host %d: cleanup: %v", round, i, err)
			}
		}
		if ok, _ := cl.BucketExists(ctx, bucket); ok {
			t.Errorf("round %d: the bucket the run created was left behind: %v", round, keysUnder(t, cl, bucket, ""))
		}
	}
}

// prepareAtOnce runs prepare for hosts 0..n-1 at once, as a run's agents
// prepare a phase, and returns what each gave.
func prepareAtOnce(n int, prepare func(i int) (engine.Prepared, error)) ([]engine.Prepared, []error) {
	prs, errs := make([]engine.Prepared, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			prs[i], errs[i] = prepare(i)
		}()
	}
	wg.Wait()
	return prs, errs
}
