package s3

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/encrypt"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
)

// probeClass is the storage class a probe asks for: one besides STANDARD
// (which a server that keeps no class echoes as well).
const probeClass = "STANDARD_IA"

// Probe tries, on the first endpoint p names, each S3 feature storbench's
// benchmarks use, with one small request each, in buckets of its own
// (storbench-probe-<random>, and one with object lock) that it removes
// with all they hold. It says what each feature did: a feature that
// fails is a result, not an error. An error says the server could not be
// probed at all (it does not answer, the keys are refused) or that what
// the probe made could not all be removed.
func (pl plan) Probe(ctx context.Context, env engine.Env) (*model.Probe, error) {
	ps := pl.ps
	// Only the endpoint, keys and transport settings count (a benchmark's
	// own, with --probe, are not the probe's): its requests are its own.
	c, err := resolve(Params{Op: "put", Bucket: probeBucket(), Hosts: ps.Hosts, Host: ps.Host, HostLimit: ps.HostLimit,
		AccessKey: ps.AccessKey, SecretKey: ps.SecretKey, SessionToken: ps.SessionToken, TLS: ps.TLS, Insecure: ps.Insecure,
		CACert: ps.CACert, Region: ps.Region, Lookup: ps.Lookup, Bind: ps.Bind}, keysOf(env.Secrets))
	if err != nil {
		return nil, err
	}
	if err := c.loadTLS(1); err != nil {
		return nil, err
	}
	ph := &phase{c: c, env: env}
	if err := ph.newClients(1); err != nil {
		return nil, err
	}
	defer ph.closeIdle()
	names := &serverNames{base: ph.rts[0]}
	pr := &prober{c: c, bucket: c.Bucket, httpc: ph.httpc[0]}
	if pr.cl, err = newClient(c, c.endpoints[0], names); err != nil {
		return nil, err
	}
	// A client that sends checksums in trailers, as a phase's with
	// --checksum: only the checksum uploads go through it (with trailers
	// on, minio-go adds a CRC32C trailer to other uploads over HTTPS).
	c.Checksum = "CRC32C"
	pr.ckcl, err = newClient(c, c.endpoints[0], names)
	c.Checksum = ""
	if err != nil {
		return nil, err
	}
	if err := pr.cl.MakeBucket(ctx, pr.bucket, minio.MakeBucketOptions{Region: c.Region}); err != nil {
		return nil, fmt.Errorf("s3 probe: cannot make a bucket to try features in: %v", explain(c.endpoints[0], c, err))
	}
	pr.made = append(pr.made, pr.bucket)
	pr.run(ctx)
	cerr := pr.cleanup(context.WithoutCancel(ctx))
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return &model.Probe{Endpoint: c.endpoints[0], Server: names.name(), Features: pr.feats}, cerr
}

// probeBucket is a new name for the probe's bucket.
func probeBucket() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "storbench-probe-" + hex.EncodeToString(b[:])
}

// serverNames keeps the Server header of the answers through it.
type serverNames struct {
	base http.RoundTripper
	mu   sync.Mutex
	last string
}

func (s *serverNames) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.base.RoundTrip(r)
	if err == nil {
		if v := resp.Header.Get("Server"); v != "" {
			s.mu.Lock()
			s.last = v
			s.mu.Unlock()
		}
	}
	return resp, err
}

func (s *serverNames) name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// prober tries features in its bucket and notes what each did.
type prober struct {
	cl     *minio.Client
	ckcl   *minio.Client // sends checksums in trailers
	httpc  *http.Client  // requests minio-go does not make
	c      *config
	bucket string
	made   []string // buckets made, to remove
	feats  []model.Feature
}

// note records a feature's result.
func (pr *prober) note(name, result, detail string) {
	pr.feats = append(pr.feats, model.Feature{Name: name, Result: result, Detail: detail})
}

// refused records a feature the server answered with err (a context that
// ended is no answer: the feature is not tried).
func (pr *prober) refused(ctx context.Context, name string, err error) {
	if ctx.Err() != nil {
		pr.note(name, model.FeatureUntried, "the probe was stopped")
		return
	}
	pr.note(name, model.FeatureRefused, errorKind(err))
}

// run tries every feature, in an order that leaves the bucket's own
// settings last: versioning, then object lock in a bucket of its own.
func (pr *prober) run(ctx context.Context) {
	for _, try := range []func(context.Context){
		pr.listing, pr.multipart, pr.conditional, pr.encryption, pr.class, pr.checksums, pr.versioning, pr.objectLock,
	} {
		if ctx.Err() != nil {
			return
		}
		try(ctx)
	}
}

// put uploads a small object to key with opts.
func (pr *prober) put(ctx context.Context, key string, opts minio.PutObjectOptions) error {
	_, err := pr.cl.PutObject(ctx, pr.bucket, key, strings.NewReader(probeBody), int64(len(probeBody)), opts)
	return err
}

// listing tries ListObjectsV2, ListObjects (v1) and MinIO's metadata in
// listings on an object with user metadata.
func (pr *prober) listing(ctx context.Context) {
	const key = "probe/listed"
	if err := pr.put(ctx, key, minio.PutObjectOptions{UserMetadata: map[string]string{"storbench": "probe"}}); err != nil {
		for _, n := range []string{"list v2", "list v1", "metadata in listings"} {
			pr.note(n, model.FeatureUntried, "an upload to list failed: "+errorKind(err))
		}
		return
	}
	for _, tc := range []struct {
		name string
		opts minio.ListObjectsOptions
	}{
		{"list v2", minio.ListObjectsOptions{Prefix: "probe/", Recursive: true}},
		{"list v1", minio.ListObjectsOptions{Prefix: "probe/", Recursive: true, UseV1: true}},
		{"metadata in listings", minio.ListObjectsOptions{Prefix: "probe/", Recursive: true, WithMetadata: true}},
	} {
		found, meta, err := pr.list(ctx, key, tc.opts)
		switch {
		case err != nil:
			pr.refused(ctx, tc.name, err)
		case !found:
			pr.note(tc.name, model.FeatureFails, "the listing lacks the object just uploaded")
		case tc.opts.WithMetadata && !meta:
			pr.note(tc.name, model.FeatureIgnored, "no user metadata in the listing (MinIO's extension of ListObjectsV2)")
		default:
			pr.note(tc.name, model.FeatureWorks, "")
		}
	}
}

// list lists with opts and says whether key is listed, with user
// metadata.
func (pr *prober) list(ctx context.Context, key string, opts minio.ListObjectsOptions) (found, meta bool, err error) {
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for o := range pr.cl.ListObjects(lctx, pr.bucket, opts) {
		if o.Err != nil {
			return false, false, o.Err
		}
		if o.Key == key {
			found, meta = true, len(o.UserMetadata) > 0
		}
	}
	return found, meta, nil
}

// multipart makes a multipart upload of one small part and reads its
// size back.
func (pr *prober) multipart(ctx context.Context) {
	const key, name = "probe/multipart", "multipart"
	core := minio.Core{Client: pr.cl}
	id, err := core.NewMultipartUpload(ctx, pr.bucket, key, minio.PutObjectOptions{})
	if err != nil {
		pr.refused(ctx, name, err)
		return
	}
	part, err := core.PutObjectPart(ctx, pr.bucket, key, id, 1, strings.NewReader(probeBody), int64(len(probeBody)), minio.PutObjectPartOptions{})
	if err == nil {
		_, err = core.CompleteMultipartUpload(ctx, pr.bucket, key, id, []minio.CompletePart{{PartNumber: 1, ETag: part.ETag}}, minio.PutObjectOptions{})
	}
	if err != nil {
		_ = core.AbortMultipartUpload(context.WithoutCancel(ctx), pr.bucket, key, id)
		pr.refused(ctx, name, err)
		return
	}
	info, err := pr.cl.StatObject(ctx, pr.bucket, key, minio.StatObjectOptions{})
	switch {
	case err != nil:
		pr.refused(ctx, name, err)
	case info.Size != int64(len(probeBody)):
		pr.note(name, model.FeatureFails, fmt.Sprintf("the object reads back with %d bytes, not %d", info.Size, len(probeBody)))
	default:
		pr.note(name, model.FeatureWorks, "")
	}
}

// conditional overwrites an object with If-None-Match: *, which a server
// that takes conditional writes refuses (412).
func (pr *prober) conditional(ctx context.Context) {
	const key, name = "probe/conditional", "conditional writes"
	if err := pr.put(ctx, key, minio.PutObjectOptions{}); err != nil {
		pr.note(name, model.FeatureUntried, "the first upload failed: "+errorKind(err))
		return
	}
	var opts minio.PutObjectOptions
	opts.SetMatchETagExcept("*")
	err := pr.put(ctx, key, opts)
	switch code := minio.ToErrorResponse(err).Code; {
	case err == nil:
		pr.note(name, model.FeatureIgnored, "an overwrite with If-None-Match: * was taken")
	case code == "PreconditionFailed" || minio.ToErrorResponse(err).StatusCode == http.StatusPreconditionFailed:
		pr.note(name, model.FeatureWorks, "")
	default:
		pr.refused(ctx, name, err)
	}
}

// encryption uploads with SSE-S3 and SSE-C and reads the encryption back.
// SSE-C needs HTTPS (its key is sent with every request).
func (pr *prober) encryption(ctx context.Context) {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	ssec, _ := encrypt.NewSSEC(key)
	for _, tc := range []struct {
		name, want string
		sse        encrypt.ServerSide
	}{{"SSE-S3", "AES256", encrypt.NewSSE()}, {"SSE-C", "AES256", ssec}} {
		if tc.sse.Type() == encrypt.SSEC && !pr.c.tls {
			pr.note(tc.name, model.FeatureUntried, "SSE-C sends its key with every request: only over HTTPS (--tls)")
			continue
		}
		okey := "probe/" + strings.ToLower(tc.name)
		if err := pr.put(ctx, okey, minio.PutObjectOptions{ServerSideEncryption: tc.sse}); err != nil {
			pr.refused(ctx, tc.name, err)
			continue
		}
		opts := minio.StatObjectOptions{}
		if tc.sse.Type() == encrypt.SSEC {
			opts.ServerSideEncryption = tc.sse
		}
		info, err := pr.cl.StatObject(ctx, pr.bucket, okey, opts)
		got := info.Metadata.Get("X-Amz-Server-Side-Encryption")
		if tc.sse.Type() == encrypt.SSEC {
			got = info.Metadata.Get("X-Amz-Server-Side-Encryption-Customer-Algorithm")
		}
		switch {
		case err != nil:
			pr.refused(ctx, tc.name, err)
		case got != tc.want:
			pr.note(tc.name, model.FeatureIgnored, "the object reads back without encryption "+tc.want)
		default:
			pr.note(tc.name, model.FeatureWorks, "")
		}
	}
}

// class uploads with storage class probeClass and reads the class back.
func (pr *prober) class(ctx context.Context) {
	const key, name = "probe/class", "storage class " + probeClass
	if err := pr.put(ctx, key, minio.PutObjectOptions{StorageClass: probeClass}); err != nil {
		pr.refused(ctx, name, err)
		return
	}
	info, err := pr.cl.StatObject(ctx, pr.bucket, key, minio.StatObjectOptions{})
	switch {
	case err != nil:
		pr.refused(ctx, name, err)
	case info.StorageClass != probeClass:
		pr.note(name, model.FeatureIgnored, fmt.Sprintf("the object reads back as %q", info.StorageClass))
	default:
		pr.note(name, model.FeatureWorks, "")
	}
}

// checksums uploads with each algorithm --checksum takes, in both forms
// storbench sends, and reads each checksum back.
func (pr *prober) checksums(ctx context.Context) {
	for _, f := range []checksumForm{inTrailer, inPartHeader} {
		for _, name := range checksumOrder {
			ck := checksumTypes[name]
			feat := "checksum " + name + " " + f.String()
			key := "probe/checksum-" + strings.ToLower(name) + fmt.Sprint(int(f))
			if err := checksumUpload(ctx, pr.ckcl, pr.bucket, key, ck, f, minio.PutObjectOptions{DisableContentSha256: true}); err != nil {
				pr.refused(ctx, feat, err)
				continue
			}
			kept, err := checksumKept(ctx, pr.cl, pr.bucket, key, ck)
			switch {
			case err != nil:
				pr.refused(ctx, feat, err)
			case !kept:
				pr.note(feat, model.FeatureIgnored, "the object reads back without "+strings.ToLower(ck.Key()))
			default:
				pr.note(feat, model.FeatureWorks, "")
			}
		}
	}
}

// checksumOrder is --checksum's algorithms in the order a probe tries
// them.
var checksumOrder = []string{"CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"}

// versioning turns versioning on in the probe's bucket, uploads a key
// twice and lists its versions.
func (pr *prober) versioning(ctx context.Context) {
	const key, name = "probe/versioned", "versioning"
	if err := pr.cl.EnableVersioning(ctx, pr.bucket); err != nil {
		pr.refused(ctx, name, err)
		return
	}
	for range 2 {
		if err := pr.put(ctx, key, minio.PutObjectOptions{}); err != nil {
			pr.refused(ctx, name, err)
			return
		}
	}
	n, err := pr.versions(ctx, pr.bucket, key)
	switch {
	case err != nil:
		pr.refused(ctx, name, err)
	case n != 2:
		pr.note(name, model.FeatureIgnored, fmt.Sprintf("a key uploaded twice lists %d versions", n))
	default:
		pr.note(name, model.FeatureWorks, "")
	}
}

// versions counts key's versions in bucket.
func (pr *prober) versions(ctx context.Context, bucket, key string) (int, error) {
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := 0
	for o := range pr.cl.ListObjects(lctx, bucket, minio.ListObjectsOptions{Prefix: key, WithVersions: true}) {
		if o.Err != nil {
			return 0, o.Err
		}
		if o.Key == key {
			n++
		}
	}
	return n, nil
}

// objectLock makes a bucket with object lock, uploads an object with a
// governance retention of a minute and reads the retention back.
func (pr *prober) objectLock(ctx context.Context) {
	const key, name = "probe/locked", "object lock"
	bucket := pr.bucket + "-lock"
	if err := pr.cl.MakeBucket(ctx, bucket, minio.MakeBucketOptions{Region: pr.c.Region, ObjectLocking: true}); err != nil {
		pr.refused(ctx, name, err)
		return
	}
	pr.made = append(pr.made, bucket)
	_, err := pr.cl.PutObject(ctx, bucket, key, strings.NewReader(probeBody), int64(len(probeBody)), minio.PutObjectOptions{
		Mode: minio.Governance, RetainUntilDate: time.Now().Add(time.Minute).UTC(), SendContentMd5: true})
	if err != nil {
		pr.refused(ctx, name, err)
		return
	}
	// Read as the retention benchmark reads it: minio-go's parser wants
	// an answer versitygw does not give.
	_, err = readRetention(ctx, pr.c, pr.httpc, 0, bucket, key, "")
	switch {
	case err == errBadRetention:
		pr.note(name, model.FeatureIgnored, "the object reads back without its governance retention")
	case err != nil:
		pr.refused(ctx, name, err)
	default:
		pr.note(name, model.FeatureWorks, "")
	}
}

// cleanup removes every version in the buckets the probe made (past
// their retention, which the probe set in governance mode), the uploads
// left open, and the buckets; it says what it could not remove.
func (pr *prober) cleanup(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var errs []error
	for _, b := range pr.made {
		if err := pr.empty(ctx, b, true); err != nil {
			// A server without versions may not list them.
			if err := pr.empty(ctx, b, false); err != nil {
				errs = append(errs, err)
			}
		}
		for u := range pr.cl.ListIncompleteUploads(ctx, b, "", true) {
			if u.Err == nil {
				_ = pr.cl.RemoveIncompleteUpload(ctx, b, u.Key)
			}
		}
		if err := pr.cl.RemoveBucket(ctx, b); err != nil {
			errs = append(errs, fmt.Errorf("bucket %s was left: %v", b, err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("s3 probe: removing what it made: %w", errors.Join(errs...))
	}
	return nil
}

// empty removes what bucket holds (every version with versions).
func (pr *prober) empty(ctx context.Context, bucket string, versions bool) error {
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for o := range pr.cl.ListObjects(lctx, bucket, minio.ListObjectsOptions{Recursive: true, WithVersions: versions}) {
		if o.Err != nil {
			return o.Err
		}
		if err := pr.cl.RemoveObject(ctx, bucket, o.Key, minio.RemoveObjectOptions{VersionID: o.VersionID, GovernanceBypass: true}); err != nil {
			return err
		}
	}
	return nil
}
