package s3

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/s3test"
)

// runPhase prepares, runs and cleans up one phase against srv.
func runPhase(t *testing.T, name string, p map[string]any) (*phase, *engine.HostResult) {
	t.Helper()
	ctx := context.Background()
	pr, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "feat"}, phaseOf(t, name, p))
	if err != nil {
		t.Fatal(err)
	}
	res, err := pr.Run(ctx, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := pr.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	return pr.(*phase), res
}

// With a size distribution, GET and PUT are given per size class too: the
// classes add up to the operation, and every class's requests have sizes
// inside it.
func TestSizeClassesAgainstVersityGW(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	for _, tc := range []struct {
		name  string
		extra map[string]any
		ops   []string
	}{
		{"get buckets", map[string]any{"op": "get", "obj_size": "1KiB:50,8KiB:30,64KiB:20", "objects": 60}, []string{"GET"}},
		{"put buckets", map[string]any{"op": "put", "obj_size": "1KiB:50,8KiB:30,64KiB:20"}, []string{"PUT"}},
		{"put uniform sdk", map[string]any{"op": "put", "obj_size": "1KiB,256KiB", "sdk": true}, []string{"PUT"}},
		{"get lognormal", map[string]any{"op": "get", "obj_dist": "lognormal", "obj_mean": "16KiB", "obj_sd": "16KiB", "obj_size": "1MiB", "objects": 60}, []string{"GET"}},
		{"mixed ranges", map[string]any{"op": "mixed", "obj_size": "8KiB,256KiB", "objects": 60, "range_size": "1KiB"}, []string{"GET", "PUT"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := baseParams(srv, "get")
			for k, v := range tc.extra {
				p[k] = v
			}
			ph, res := runPhase(t, "sz", p)
			for _, op := range tc.ops {
				var total, sum uint64
				for _, o := range res.Ops {
					if o.Op == op {
						total = o.Ops
						if o.Errors != 0 {
							t.Errorf("%s: %d errors %v", op, o.Errors, o.ErrorKinds)
						}
					}
				}
				classes := 0
				for _, s := range res.BySize {
					if s.Op != op {
						continue
					}
					classes++
					sum += s.Ops
					if s.Ops == 0 || s.Lat.Stats.N != s.Ops {
						t.Errorf("%s %s: %d requests, %d latencies", op, s.Size.Label, s.Ops, s.Lat.Stats.N)
					}
					if op == "GET" && (s.TTFB == nil || s.TTFB.Stats.N != s.Ops) {
						t.Errorf("GET %s: no time to first byte", s.Size.Label)
					}
					if s.EndNs <= s.StartNs {
						t.Errorf("%s %s: no window", op, s.Size.Label)
					}
					mean := int64(s.Bytes / s.Ops)
					if p["range_size"] != nil && op == "GET" {
						if mean != 1024 {
							t.Errorf("GET %s: %d bytes per ranged GET, want 1024", s.Size.Label, mean)
						}
					} else if mean < s.Size.MinBytes || mean > s.Size.MaxBytes {
						t.Errorf("%s %s: mean request %d bytes is outside the class [%d, %d]", op, s.Size.Label, mean, s.Size.MinBytes, s.Size.MaxBytes)
					}
				}
				if classes < 2 || sum != total {
					t.Errorf("%s: %d classes adding up to %d requests, the operation has %d: %+v", op, classes, sum, total, res.BySize)
				}
			}
			if res.Meta["obj_sizes"] == "" {
				t.Error("the result does not say how sizes were drawn")
			}
			if ph.c.sizes.classes == nil {
				t.Error("no classes")
			}
		})
	}
	// One size: no per-size results.
	p := baseParams(srv, "get")
	if _, res := runPhase(t, "one", p); len(res.BySize) != 0 || res.Meta["obj_sizes"] != "" {
		t.Errorf("one object size has per-size results %+v", res.BySize)
	}
}

// --verify checks every GET body against what storbench wrote: an object
// changed behind the benchmark's back is counted under its own error
// kind, on both request paths; untouched objects pass.
func TestVerifyCountsMismatches(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	for _, client := range []string{"lean", "minio-go"} {
		t.Run(client, func(t *testing.T) {
			for _, rng := range []bool{false, true} {
				p := baseParams(srv, "get")
				p["verify"], p["sdk"], p["objects"], p["obj_size"] = true, client == "minio-go", 4, "100KiB"
				if rng {
					p["range_size"] = "30KiB"
				}
				ctx := context.Background()
				pr, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "ver"}, phaseOf(t, "v"+client, p))
				if err != nil {
					t.Fatal(err)
				}
				ph := pr.(*phase)
				// One of four objects changes on the server's disk: one byte
				// in every 4 KiB, so every range of it sees a change.
				file := filepath.Join(srv.Root, ph.c.Bucket, filepath.FromSlash(ph.keys[0]))
				b, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < len(b); i += 4096 {
					b[i] ^= 0xff
				}
				if err := os.WriteFile(file, b, 0o644); err != nil {
					t.Fatal(err)
				}
				res, err := pr.Run(ctx, time.Now(), nil)
				if err != nil {
					t.Fatal(err)
				}
				_ = pr.Cleanup(ctx)
				o := res.Ops[0]
				bad := o.ErrorKinds["content mismatch"]
				if bad == 0 || bad != o.Errors {
					t.Fatalf("range %v: %d errors %v, want only content mismatches", rng, o.Errors, o.ErrorKinds)
				}
				// About a quarter of the GETs read the changed object.
				if f := float64(bad) / float64(o.Ops+o.Errors); f < 0.1 || f > 0.45 {
					t.Errorf("range %v: %.2f of GETs mismatched, want about 0.25", rng, f)
				}
			}
		})
	}
}

// --bind spreads the workers over the local addresses given: versitygw's
// access log shows requests from each, on both request paths, over HTTP
// and HTTPS. An address this machine does not have is refused before
// anything is written.
func TestBindSpreadsWorkersOverLocalAddresses(t *testing.T) {
	t.Parallel()
	logFile := filepath.Join(t.TempDir(), "access.log")
	srv := s3test.StartT(t, s3test.Options{AccessLog: logFile})
	tlsLog := filepath.Join(t.TempDir(), "access.log")
	tlsSrv := s3test.StartT(t, s3test.Options{AccessLog: tlsLog, TLS: true})
	for _, client := range []string{"lean", "minio-go", "lean https", "minio-go https"} {
		t.Run(client, func(t *testing.T) {
			srv, logFile := srv, logFile
			if strings.HasSuffix(client, "https") {
				srv, logFile = tlsSrv, tlsLog
			}
			_ = os.Truncate(logFile, 0)
			p := baseParams(srv, "get")
			p["bind"], p["sdk"], p["duration"] = "127.0.0.1,127.0.0.2", strings.HasPrefix(client, "minio-go"), "500ms"
			_, res := runPhase(t, "bind-"+strings.ReplaceAll(client, " ", "-"), p)
			if res.Ops[0].Ops == 0 || res.Ops[0].Errors != 0 {
				t.Fatalf("%d GETs, %d errors %v", res.Ops[0].Ops, res.Ops[0].Errors, res.Ops[0].ErrorKinds)
			}
			if want, _, _ := strings.Cut(client, " "); res.Meta["s3_client"] != want {
				t.Fatalf("client %q, want %q", res.Meta["s3_client"], want)
			}
			from := requestsFrom(t, logFile, "s3_GetObject")
			if from["127.0.0.1"] == 0 || from["127.0.0.2"] == 0 || len(from) != 2 {
				t.Errorf("GETs by client address: %v, want both 127.0.0.1 and 127.0.0.2", from)
			}
		})
	}
	p := baseParams(srv, "get")
	p["bind"] = "127.0.0.1,192.0.2.77" // TEST-NET-1: on no machine
	err := prepareErr(t, p)
	if err == nil || !errors.Is(err, engine.ErrUnsupported) ||
		err.Error() != "s3: --bind 192.0.2.77: not an address of this machine (cannot assign requested address)" {
		t.Fatalf("got %v, want the one line naming the address", err)
	}
	if keys := keysUnder(t, adminClient(t, srv), "bench", ""); len(keys) != 0 {
		t.Errorf("a refused --bind wrote %v", keys)
	}
	p["bind"] = "127.0.0.1,eth0"
	if _, err := resolve(mustDecode(t, p), noKeys); err == nil || !strings.Contains(err.Error(), `"eth0" is not an IP address`) {
		t.Fatalf("a name in --bind: %v", err)
	}
}

func mustDecode(t *testing.T, p map[string]any) Params {
	t.Helper()
	ps, err := DecodeParams(phaseOf(t, "x", p).Params)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// requestsFrom counts the requests of one action in a versitygw access log
// by client address (the field after the time in brackets).
func requestsFrom(t *testing.T, file, action string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		_, rest, ok := strings.Cut(line, "] ")
		if !ok || !strings.Contains(line, " "+action+" ") {
			continue
		}
		ip, _, _ := strings.Cut(rest, " ")
		out[ip]++
	}
	return out
}

// Storage class, user metadata and tags reach the server with every
// upload, on both request paths, over HTTP and HTTPS.
func TestUploadOptionsAgainstVersityGW(t *testing.T) {
	t.Parallel()
	plain := s3test.StartT(t, s3test.Options{})
	tlsSrv := s3test.StartT(t, s3test.Options{TLS: true})
	ctx := context.Background()
	for _, name := range []string{"lean", "minio-go", "lean https"} {
		t.Run(name, func(t *testing.T) {
			srv := plain
			if strings.HasSuffix(name, "https") {
				srv = tlsSrv
			}
			cl := adminClient(t, srv)
			client, _, _ := strings.Cut(name, " ")
			p := baseParams(srv, "put")
			p["sdk"], p["duration"] = client == "minio-go", "300ms"
			p["storage_class"] = "STANDARD"
			p["add_metadata"] = map[string]string{"Team": "storage  bench", "run": "r1"}
			p["tag"] = map[string]string{"project": "storbench", "a b": "c+d=e"}
			pr, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "opt"}, phaseOf(t, "opt"+strings.ReplaceAll(name, " ", "-"), p))
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Cleanup(ctx)
			res, err := pr.Run(ctx, time.Now(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Ops[0].Ops == 0 || res.Ops[0].Errors != 0 || res.Meta["s3_client"] != client {
				t.Fatalf("%s: %d PUTs, %d errors %v", res.Meta["s3_client"], res.Ops[0].Ops, res.Ops[0].Errors, res.Ops[0].ErrorKinds)
			}
			checked := 0
			for k := range keysUnder(t, cl, "bench", pr.(*phase).prefix) {
				info, err := cl.StatObject(ctx, "bench", k, minio.StatObjectOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if info.UserMetadata["Team"] != "storage  bench" || info.UserMetadata["Run"] != "r1" {
					t.Errorf("%s: metadata %v", k, info.UserMetadata)
				}
				tags, err := cl.GetObjectTagging(ctx, "bench", k, minio.GetObjectTaggingOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if m := tags.ToMap(); m["project"] != "storbench" || m["a b"] != "c+d=e" || len(m) != 2 {
					t.Errorf("%s: tags %v", k, m)
				}
				if checked++; checked == 5 {
					break
				}
			}
			if checked == 0 {
				t.Fatal("no object to look at")
			}
		})
	}
}

// Encryption and storage classes versitygw accepts but does not apply are
// refused in one line each before any load, and what the phase made is
// removed.
func TestUploadOptionsTheServerIgnoresAreRefused(t *testing.T) {
	srv := s3test.StartT(t, s3test.Options{})
	cl := adminClient(t, srv)
	for _, tc := range []struct {
		extra map[string]any
		want  string
	}{
		{map[string]any{"sse_s3_encrypt": true}, "s3: --sse-s3-encrypt: the server does not encrypt with SSE-S3 (an object written with it reads back without x-amz-server-side-encryption: AES256)"},
		{map[string]any{"sse_kms": "bench-key"}, "s3: --sse-kms: the server does not encrypt with SSE-KMS (an object written with it reads back without x-amz-server-side-encryption: aws:kms)"},
		{map[string]any{"storage_class": "GLACIER_IR"}, `s3: --storage-class GLACIER_IR: the server does not keep storage classes (an object written with it reads back as "")`},
	} {
		p := baseParams(srv, "get")
		p["bucket"] = "refused"
		for k, v := range tc.extra {
			p[k] = v
		}
		err := prepareErr(t, p)
		if err == nil || err.Error() != tc.want || !errors.Is(err, engine.ErrUnsupported) {
			t.Errorf("%v: got %v\nwant %s", tc.extra, err, tc.want)
		}
		if ok, _ := cl.BucketExists(context.Background(), "refused"); ok {
			t.Errorf("%v: the bucket the refused phase created was left", tc.extra)
		}
	}
}

// Objects over 16 MiB are uploaded in parts, as warp does, unless
// --disable-multipart: then one PUT, on the lean path.
func TestDisableMultipart(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	cl := adminClient(t, srv)
	ctx := context.Background()
	for _, single := range []bool{false, true} {
		p := baseParams(srv, "put")
		p["obj_size"], p["concurrent"], p["duration"], p["disable_multipart"] = "17MiB", 2, "300ms", single
		pr, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "mp"}, phaseOf(t, "mp", p))
		if err != nil {
			t.Fatal(err)
		}
		res, err := pr.Run(ctx, time.Now(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Ops[0].Ops == 0 || res.Ops[0].Errors != 0 {
			t.Fatalf("disable_multipart %v: %d PUTs, %d errors %v", single, res.Ops[0].Ops, res.Ops[0].Errors, res.Ops[0].ErrorKinds)
		}
		ph := pr.(*phase)
		n := 0
		for k, size := range keysUnder(t, cl, "bench", ph.prefix) {
			info, err := cl.StatObject(ctx, "bench", k, minio.StatObjectOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// A multipart upload's ETag ends in -<parts>.
			if parts := strings.Contains(info.ETag, "-"); parts == single || size != 17<<20 {
				t.Errorf("disable_multipart %v: %s has ETag %s, %d bytes", single, k, info.ETag, size)
			}
			n++
		}
		if n == 0 {
			t.Errorf("disable_multipart %v: nothing uploaded", single)
		}
		if err := pr.Cleanup(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// --checksum reaches the server with every upload - one PUT, a PUT sent in
// parts, and each part of multipart-put - and the server keeps it: a HEAD
// asking for checksums returns one of the algorithm.
func TestChecksumOnEveryUpload(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	cl := adminClient(t, srv)
	ctx := context.Background()
	for _, ck := range []string{"CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"} {
		for _, tc := range []struct {
			name  string
			extra map[string]any
		}{
			{"put", map[string]any{"op": "put"}},
			{"put in parts", map[string]any{"op": "put", "obj_size": "17MiB", "concurrent": 1}},
			{"multipart-put", map[string]any{"op": "multipart-put", "parts": 2, "part_size": "5MiB", "part_concurrency": 2, "concurrent": 1}},
		} {
			p := baseParams(srv, "put")
			p["checksum"], p["duration"] = ck, "300ms"
			for k, v := range tc.extra {
				p[k] = v
			}
			pr, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "ck"}, phaseOf(t, "ck", p))
			if err != nil {
				t.Fatal(err)
			}
			res, err := pr.Run(ctx, time.Now(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range res.Ops {
				if o.Ops == 0 || o.Errors != 0 {
					t.Errorf("%s %s: %s %d ops, %d errors %v", ck, tc.name, o.Op, o.Ops, o.Errors, o.ErrorKinds)
				}
			}
			for k := range keysUnder(t, cl, "bench", pr.(*phase).prefix) {
				info, err := cl.StatObject(ctx, "bench", k, minio.StatObjectOptions{Checksum: true})
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]string{"CRC32": info.ChecksumCRC32, "CRC32C": info.ChecksumCRC32C,
					"CRC64NVME": info.ChecksumCRC64NVME, "SHA1": info.ChecksumSHA1, "SHA256": info.ChecksumSHA256}
				if got[ck] == "" {
					t.Errorf("%s %s: %s kept no %s checksum: %v", ck, tc.name, k, ck, got)
				}
				break
			}
			if err := pr.Cleanup(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// list takes warp's --max-keys, --versions and --metadata: every listing
// returns every entry prepared (a missing one is an error); versions need
// bucket versioning and metadata MinIO's extension, and a server without
// either is refused in one line.
func TestListOptionsAgainstVersityGW(t *testing.T) {
	t.Parallel()
	listVariants(t, s3test.StartT(t, s3test.Options{Versioning: true}))
	srv := s3test.StartT(t, s3test.Options{}) // no versioning
	cl := adminClient(t, srv)
	for _, tc := range []struct {
		extra map[string]any
		want  string
	}{
		{map[string]any{"versions": 3}, "s3: list --versions 3: the server does not support bucket versioning (use --versions 1)"},
		{map[string]any{"metadata": true}, listMetadataRefused},
	} {
		p := baseParams(srv, "list")
		p["bucket"] = "nolist"
		for k, v := range tc.extra {
			p[k] = v
		}
		err := prepareErr(t, p)
		if err == nil || err.Error() != tc.want || !errors.Is(err, engine.ErrUnsupported) {
			t.Errorf("%v: got %v\nwant %s", tc.extra, err, tc.want)
		}
		if ok, _ := cl.BucketExists(context.Background(), "nolist"); ok {
			t.Errorf("%v: the refused phase left its bucket", tc.extra)
		}
	}
}

// listMetadataRefused is list --metadata's line on a server without
// MinIO's extension.
const listMetadataRefused = "s3: list --metadata: the server does not return user metadata in listings (MinIO's extension of ListObjectsV2)"

// listVariants runs list with --max-keys on both request paths and with
// --versions on srv, which has versioning: every listing returns every
// entry prepared.
func listVariants(t *testing.T, vsrv *s3test.Server) {
	for _, tc := range []struct {
		name  string
		extra map[string]any
	}{
		{"max-keys", map[string]any{"max_keys": 3}},
		{"max-keys sdk", map[string]any{"max_keys": 4, "sdk": true}},
		// versitygw repeats the latest version of a key whose versions a
		// page boundary splits (a list count error here): 3 versions, 3
		// keys a page.
		{"versions", map[string]any{"versions": 3, "max_keys": 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := baseParams(vsrv, "list")
			p["bucket"] = "list-" + strings.ReplaceAll(tc.name, " ", "-")
			for k, v := range tc.extra {
				p[k] = v
			}
			_, res := runPhase(t, "l", p)
			o := res.Ops[0]
			if o.Op != "LIST" || o.Ops == 0 || o.Errors != 0 || o.TTFB == nil {
				t.Fatalf("%s: %d listings, %d errors %v", o.Op, o.Ops, o.Errors, o.ErrorKinds)
			}
		})
	}
}

// retention uploads every version with a governance retention, then reads
// (GETRETENTION) and moves (RETENTION) retentions; cleanup removes the
// locked versions and the bucket it made with object lock. A server or
// bucket without what it needs is refused in one line.
func TestRetentionAgainstVersityGW(t *testing.T) {
	t.Parallel()
	vsrv := s3test.StartT(t, s3test.Options{Versioning: true})
	srv := s3test.StartT(t, s3test.Options{})
	t.Run("versions", func(t *testing.T) { retention(t, vsrv, map[string]any{"versions": 3}) })
	t.Run("without versioning, one version", func(t *testing.T) { retention(t, srv, map[string]any{"versions": 1}) })
	cl := adminClient(t, srv)
	if err := cl.MakeBucket(context.Background(), "unlocked", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		bucket   string
		versions any
		want     string
	}{
		{"fresh", nil, "s3: retention --versions 5: the server does not support bucket versioning (use --versions 1)"},
		{"unlocked", 1, `s3: retention: bucket "unlocked" has no object lock, which only a new bucket can get: use a new --bucket`},
	} {
		p := baseParams(srv, "retention")
		p["bucket"], p["objects"] = tc.bucket, 10
		if tc.versions != nil {
			p["versions"] = tc.versions
		}
		err := prepareErr(t, p)
		if err == nil || err.Error() != tc.want || !errors.Is(err, engine.ErrUnsupported) {
			t.Errorf("%s: got %v\nwant %s", tc.bucket, err, tc.want)
		}
	}
	if ok, _ := cl.BucketExists(context.Background(), "fresh"); ok {
		t.Error("the refused phase left the bucket it created")
	}
	if keys := keysUnder(t, cl, "unlocked", ""); len(keys) != 0 {
		t.Errorf("the refused phase wrote into a bucket it did not create: %v", keys)
	}
}

// retention runs the retention benchmark on srv with the extra settings:
// retentions read and moved with no error, and the locked bucket
// storbench made removed.
func retention(t *testing.T, srv *s3test.Server, extra map[string]any) {
	p := baseParams(srv, "retention")
	p["bucket"], p["objects"] = "locked", 10
	for k, v := range extra {
		p[k] = v
	}
	_, res := runPhase(t, "r", p)
	if len(res.Ops) != 2 {
		t.Fatalf("ops %+v", res.Ops)
	}
	for i, want := range []string{"GETRETENTION", "RETENTION"} {
		o := res.Ops[i]
		if o.Op != want || o.Ops == 0 || o.Errors != 0 {
			t.Errorf("%s: %d requests, %d errors %v", o.Op, o.Ops, o.Errors, o.ErrorKinds)
		}
	}
	if ok, _ := adminClient(t, srv).BucketExists(context.Background(), "locked"); ok {
		t.Error("the locked bucket storbench created was left")
	}
}

// multipart-put uploads objects in parts, several at once, and records
// each part (PUTPART, warp's name) and each whole object (UPLOAD).
func TestMultipartPutAgainstVersityGW(t *testing.T) {
	t.Parallel()
	multipartPut(t, s3test.StartT(t, s3test.Options{}))
}

func multipartPut(t *testing.T, srv *s3test.Server) {
	p := baseParams(srv, "multipart-put")
	p["parts"], p["part_size"], p["part_concurrency"], p["concurrent"] = 4, "5MiB", 3, 2
	ph, res := runPhase(t, "mpp", p)
	if len(res.Ops) != 2 || res.Ops[0].Op != "UPLOAD" || res.Ops[1].Op != "PUTPART" {
		t.Fatalf("ops %+v", res.Ops)
	}
	up, part := res.Ops[0], res.Ops[1]
	if up.Ops == 0 || up.Errors != 0 || part.Errors != 0 || part.Ops < 4*up.Ops {
		t.Fatalf("%d uploads (%d errors), %d parts (%d errors)", up.Ops, up.Errors, part.Ops, part.Errors)
	}
	if up.Bytes != up.Ops*20<<20 || part.Bytes != part.Ops*5<<20 {
		t.Errorf("bytes: uploads %d, parts %d", up.Bytes, part.Bytes)
	}
	if ph.c.Parts != 4 || ph.c.PartConcurrency != 3 {
		t.Errorf("settings %d parts, %d at once", ph.c.Parts, ph.c.PartConcurrency)
	}
	// warp's defaults when none are given.
	c, err := resolve(Params{Op: "multipart-put", Hosts: []string{"h:1"}, AccessKey: "a", SecretKey: "b"}, noKeys)
	if err != nil || c.Parts != 100 || c.PartConcurrency != 20 || c.PartSize != 5<<20 {
		t.Errorf("defaults: %v %+v", err, c)
	}
}
