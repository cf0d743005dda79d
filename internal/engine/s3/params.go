package s3

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/minio/minio-go/v7/pkg/tags"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/infile"
	"github.com/storbench/storbench/internal/units"
)

// Ops are the benchmark kinds, as the commands name them.
var Ops = []string{"get", "put", "delete", "list", "stat", "mixed", "multipart", "multipart-put", "versioned", "retention"}

// Limits that protect against typos and against what S3 refuses.
const (
	// MaxPutSize is S3's limit for one PUT request (5 GiB).
	MaxPutSize = 5 << 30
	// MaxPartSize is S3's limit for one multipart part (5 GiB).
	MaxPartSize = 5 << 30
	// MinPartSize is S3's minimum for every part but the last (5 MiB).
	MinPartSize = 5 << 20
	// MaxParts is S3's limit on parts per upload.
	MaxParts = 10000
	// MaxObjectSize is S3's limit for one object (5 TiB).
	MaxObjectSize = 5 << 40
	// MultipartThreshold is the size above which a PUT is sent as a
	// multipart upload unless --disable-multipart: minio-go's part size,
	// so warp (which uploads through minio-go) does the same.
	MultipartThreshold = 16 << 20
	// MaxListKeys is the most --max-keys allows (warp's bound).
	MaxListKeys = 5000
	// MaxConcurrent caps --concurrent unless host_limit-like overrides exist;
	// beyond it a client measures its own scheduler, not the server.
	MaxConcurrent = 10000
)

// Bounds of every wait on the server. A request that moves its body at
// less than SlowestStream is not one a benchmark can use, and 16 MiB/s is
// well below what one stream to any S3 server reaches on a working
// network; DefaultRequestTimeout covers what comes before the body (a
// server's queue, a slow first byte). Requests in flight at the end of the
// measured stage were started in it and are measured like the others, so
// they get as long to end as the object takes plus DefaultGrace, then are
// cut: a server that stops answering cannot hold a phase open forever.
const (
	DefaultRequestTimeout = time.Minute
	DefaultGrace          = 10 * time.Second
	// SlowestStream is the slowest body transfer (bytes/s) the default
	// bounds allow for.
	SlowestStream = 16 << 20
)

// Size and Duration read from JSON as numbers or as strings a person
// writes ("4KiB", "30s").
type (
	Size     = units.Size
	Duration = units.Duration
)

// Params are an s3 phase's settings. JSON keys are what suites write; the
// CLI flags map onto them one to one (--obj.size -> obj_size).
//
// Credentials: AccessKey and SecretKey travel inside the phase so that the
// controller can hand them to an agent over its authenticated channel, but
// they must never be stored. Results writers pass every phase through
// the registry (Info.Secrets) before writing it; HostResult never holds
// params. When they are empty the phase uses the keys its agent was given
// (engine.Env's Secrets): on a remote agent its own, from its
// environment or credentials file, which is the way to keep keys off the
// network entirely.
type Params struct {
	// Op is the benchmark: get, put, delete, list, stat, mixed, multipart, versioned.
	Op string `json:"op"`
	// Hosts are S3 endpoints (host:port; without a port, 80, or 443 with
	// TLS), with comma lists and {1...N} ranges.
	Hosts []string `json:"hosts,omitempty"`
	// Host is the same as a string (what --host and suites' "host:" give).
	Host string `json:"host,omitempty"`
	// HostLimit caps how many endpoints a range may expand to (0: hosts.DefaultLimit).
	HostLimit int `json:"host_limit,omitempty"`

	AccessKey string `json:"access_key,omitempty"`
	SecretKey string `json:"secret_key,omitempty"`
	// SessionToken goes with temporary keys (AWS STS): sent and signed as
	// X-Amz-Security-Token on every request.
	SessionToken string `json:"session_token,omitempty"`

	TLS      *bool `json:"tls,omitempty"`
	Insecure bool  `json:"insecure,omitempty"`
	// CACert is a PEM file of the CA certificates the endpoints' TLS
	// certificates are checked against (instead of the system's). It is
	// read where the phase runs.
	CACert string `json:"ca_cert,omitempty"`
	Region string `json:"region,omitempty"`
	Bucket string `json:"bucket,omitempty"`
	// Lookup is the bucket addressing: "path" (default) or "dns".
	Lookup string `json:"lookup,omitempty"`

	// Concurrent is the number of requests in flight (workers), default 20.
	Concurrent int `json:"concurrent,omitempty"`
	// ObjSize is the object size, or a distribution of sizes: "MIN,MAX"
	// or buckets "SIZE:WEIGHT,..." (see SizeSpec). With ObjDist it is the
	// largest size.
	ObjSize *SizeSpec `json:"obj_size,omitempty"`
	// ObjRandSize draws each object's size log2-uniformly: up to ObjSize
	// from a 1024th of it, or between MIN and MAX.
	ObjRandSize bool `json:"obj_randsize,omitempty"`
	// ObjDist "lognormal" draws sizes from a lognormal distribution whose
	// mean and standard deviation are ObjMean and ObjSD bytes.
	ObjDist string `json:"obj_dist,omitempty"`
	ObjMean Size   `json:"obj_mean,omitempty"`
	ObjSD   Size   `json:"obj_sd,omitempty"`
	// Objects is how many objects prepare uploads (get, stat, delete, list,
	// mixed); with ListExisting, at most how many are listed (0: all).
	Objects int `json:"objects,omitempty"`
	// Range makes GETs read a random byte range of each object.
	Range bool `json:"range,omitempty"`
	// RangeSize makes GETs read ranges of this many bytes at a random
	// offset (Range is implied); it may not exceed the smallest object.
	RangeSize Size `json:"range_size,omitempty"`
	// Verify checks every GET body against the content storbench wrote
	// (derived from the key); a mismatch is an error of kind "content
	// mismatch".
	Verify bool `json:"verify,omitempty"`
	// NoPrefix puts every worker's objects under one prefix.
	NoPrefix bool `json:"noprefix,omitempty"`
	// NoClear leaves the objects in place after the phase (the bucket is
	// never emptied whatever this says: only storbench's own prefix is).
	NoClear bool `json:"noclear,omitempty"`
	// HostSelect is "weighed" (default: fewest in flight, then longest idle),
	// "roundrobin", or "cross": host i of the phase writes through endpoint
	// i and reads through endpoint i+1 (mod the endpoints), so that with
	// one gateway per host over one namespace every object is read back
	// through another gateway than wrote it (--verify checks it).
	HostSelect string `json:"host_select,omitempty"`
	// MD5 sends Content-MD5 with every upload.
	MD5 bool `json:"md5,omitempty"`
	// Checksum asks for an S3 checksum on uploads: CRC32, CRC32C, CRC64NVME, SHA1, SHA256.
	Checksum string `json:"checksum,omitempty"`
	// Encrypt uses SSE-C with a random key (TLS only).
	Encrypt bool `json:"encrypt,omitempty"`
	// SSES3 asks the server to encrypt uploads with its own keys (SSE-S3).
	SSES3 bool `json:"sse_s3_encrypt,omitempty"`
	// SSEKMS asks the server to encrypt uploads with this KMS key (SSE-KMS).
	SSEKMS string `json:"sse_kms,omitempty"`
	// StorageClass is sent with every upload (x-amz-storage-class).
	StorageClass string `json:"storage_class,omitempty"`
	// AddMetadata is user metadata sent with every upload (x-amz-meta-*).
	AddMetadata map[string]string `json:"add_metadata,omitempty"`
	// Tag is the object tags sent with every upload (x-amz-tagging).
	Tag map[string]string `json:"tag,omitempty"`
	// DisableMultipart sends every PUT as one request; otherwise objects
	// over MultipartThreshold are uploaded in parts, as warp does.
	DisableMultipart bool `json:"disable_multipart,omitempty"`
	// Bind lists local addresses (comma-separated) the workers' connections
	// start from, spread over the workers: for clients with several NICs.
	Bind string `json:"bind,omitempty"`
	// SignPayload signs the body (streaming SigV4) on plain HTTP instead of
	// sending UNSIGNED-PAYLOAD, as TLS clients do.
	SignPayload bool `json:"sign_payload,omitempty"`

	// SDK sends every request through minio-go, as before the lean data
	// path existed: to compare the two, or if a server dislikes the lean
	// path's requests.
	SDK bool `json:"sdk,omitempty"`

	// Duration is how long the measured stage runs (default 5m, as warp).
	Duration Duration `json:"duration,omitempty"`
	// AutoTerm ends the run early once throughput is stable.
	AutoTerm    bool     `json:"autoterm,omitempty"`
	AutoTermPct float64  `json:"autoterm_pct,omitempty"`
	AutoTermDur Duration `json:"autoterm_dur,omitempty"`
	// RequestTimeout bounds every request, on both request paths and in
	// every stage (prepare, run, cleanup): a request still open that long
	// after it started is cut and counted as "timeout: request". Default:
	// DefaultRequestTimeout plus the time the object (or part) takes at
	// SlowestStream.
	RequestTimeout Duration `json:"request_timeout,omitempty"`
	// Grace is how long requests still in flight when the measured stage
	// ends (duration, autoterm or a stop) may go on before they are cut and
	// counted as "timeout: phase grace". Default: DefaultGrace plus the time
	// the object (or part) takes at SlowestStream.
	Grace Duration `json:"grace,omitempty"`

	// Rate, when > 0, is an open-loop request rate in requests per second
	// for the whole host: requests start on a fixed schedule and latency is
	// measured from the scheduled start.
	Rate float64 `json:"rate,omitempty"`

	// Mixed and versioned distributions (relative weights).
	GetDistrib    *float64 `json:"get_distrib,omitempty"`
	StatDistrib   *float64 `json:"stat_distrib,omitempty"`
	PutDistrib    *float64 `json:"put_distrib,omitempty"`
	DeleteDistrib *float64 `json:"delete_distrib,omitempty"`

	// Batch is how many objects one DELETE request removes (delete).
	Batch int `json:"batch,omitempty"`

	// Versions is how many versions of each object list and retention
	// upload (list: more than 1 lists versions).
	Versions int `json:"versions,omitempty"`
	// Metadata lists with user metadata (list: MinIO's extension of
	// ListObjectsV2; a server that ignores it is refused).
	Metadata bool `json:"metadata,omitempty"`
	// MaxKeys is the keys asked for per LIST request (list).
	MaxKeys int `json:"max_keys,omitempty"`

	// Multipart: parts per upload, part size, parts in flight per upload.
	Parts           int  `json:"parts,omitempty"`
	PartSize        Size `json:"part_size,omitempty"`
	PartConcurrency int  `json:"part_concurrency,omitempty"`

	// ListExisting runs get, stat, list and mixed (reads only) on the
	// objects already in the bucket under Prefix, listed once at
	// preparation, instead of uploading a pool: storbench then writes and
	// deletes nothing (no bucket, no marker, no cleanup).
	ListExisting bool `json:"list_existing,omitempty"`
	// Prefix is where ListExisting's objects are ("" for the whole bucket).
	Prefix string `json:"prefix,omitempty"`

	// BenchData, when set, is a file that receives every request as a line
	// of zstd-compressed TSV, written as the run goes.
	BenchData string `json:"benchdata,omitempty"`
}

// config is Params resolved: defaults applied, keys chosen, hosts expanded.
type config struct {
	Params
	// ObjSize is the resolved object size (Params.ObjSize or the default).
	ObjSize Size
	sizes   *sizeDist // object sizes (multipart: one part's size)
	bind    []string  // local addresses, one per worker in turn
	// putHeaders are the x-amz-* headers of every upload's options
	// (lower-case names), for the lean path.
	putHeaders map[string]string
	endpoints  []string
	tls        bool
	// tlsConf is the TLS client configuration of every connection of the
	// phase, lean and minio-go (one session cache: reconnections resume);
	// set by loadTLS, nil without TLS.
	tlsConf  *tls.Config
	duration time.Duration
	// requestTimeout and grace are RequestTimeout and Grace resolved.
	requestTimeout, grace time.Duration
	dist                  [4]float64 // get, stat, put, delete
}

// distribution indexes.
const (
	dGet = iota
	dStat
	dPut
	dDelete
)

// DecodeParams reads params strictly: unknown keys are errors, so a typo in
// a suite is caught before anything runs.
func DecodeParams(raw json.RawMessage) (Params, error) {
	var p Params
	if len(bytes.TrimSpace(raw)) == 0 {
		return p, errors.New("s3 phase has no params (at least op and hosts)")
	}
	if err := engine.DecodeStrict(raw, &p); err != nil {
		return p, fmt.Errorf("s3 params: %v", err)
	}
	var given map[string]json.RawMessage
	if json.Unmarshal(raw, &given) == nil {
		for _, z := range zeroRefused {
			if _, ok := given[z.key]; ok && z.zero(&p) {
				return p, fmt.Errorf("s3: %s 0: zero makes no sense here; leave %s (%s) out for %s", z.key, z.key, z.flag, z.leftOut)
			}
		}
	}
	return p, nil
}

// zeroRefused are the settings whose 0 would otherwise stand for "not
// given" (and so the default) although a user who writes 0 means
// something else: they are refused when given as 0.
var zeroRefused = []struct {
	key, flag, leftOut string
	zero               func(*Params) bool
}{
	{"concurrent", "--concurrent", "the default (20)", func(p *Params) bool { return p.Concurrent == 0 }},
	{"objects", "--objects", "the benchmark's default count", func(p *Params) bool { return p.Objects == 0 }},
	{"host_limit", "--host-limit", "the default (1024)", func(p *Params) bool { return p.HostLimit == 0 }},
	{"duration", "--duration", "the default (5m)", func(p *Params) bool { return p.Duration == 0 }},
	{"autoterm_pct", "--autoterm.pct", "the default (7.5)", func(p *Params) bool { return p.AutoTermPct == 0 }},
	{"autoterm_dur", "--autoterm.dur", "the default (10s)", func(p *Params) bool { return p.AutoTermDur == 0 }},
	{"rate", "--rate", "a closed loop (no rate)", func(p *Params) bool { return p.Rate == 0 }},
	{"request_timeout", "--request-timeout", "the default (1m plus 1s per 16 MiB of object)", func(p *Params) bool { return p.RequestTimeout == 0 }},
	{"grace", "--grace", "the default (10s plus 1s per 16 MiB of object)", func(p *Params) bool { return p.Grace == 0 }},
	{"batch", "--batch", "the default (100)", func(p *Params) bool { return p.Batch == 0 }},
	{"parts", "--parts", "the default (20)", func(p *Params) bool { return p.Parts == 0 }},
	{"part_size", "--part.size", "the default (5 MiB)", func(p *Params) bool { return p.PartSize == 0 }},
	{"part_concurrency", "--part.concurrent", "the default (4)", func(p *Params) bool { return p.PartConcurrency == 0 }},
	{"versions", "--versions", "the default", func(p *Params) bool { return p.Versions == 0 }},
	{"max_keys", "--max-keys", "the default (100)", func(p *Params) bool { return p.MaxKeys == 0 }},
	{"range_size", "--range-size", "whole objects (or --range)", func(p *Params) bool { return p.RangeSize == 0 }},
}

func ptr(f float64) *float64 { return &f }

// boundRequests sets the request timeout and the grace from the largest
// body one request carries, unless --request-timeout and --grace gave them.
func (c *config) boundRequests(body int64) {
	transfer := time.Duration(float64(body) / SlowestStream * float64(time.Second))
	c.requestTimeout = DefaultRequestTimeout + transfer
	if c.RequestTimeout != 0 {
		c.requestTimeout = time.Duration(c.RequestTimeout)
	}
	c.grace = DefaultGrace + transfer
	if c.Grace != 0 {
		c.grace = time.Duration(c.Grace)
	}
}

// checkListExisting refuses what --list-existing cannot do: it reads the
// objects already there and writes nothing, so benchmarks that write and
// settings that only shape what storbench would write are bad input.
func checkListExisting(c *config, p Params) error {
	if !c.ListExisting {
		if c.Prefix != "" {
			return errors.New("s3: --prefix names the existing objects to read: give it with --list-existing")
		}
		return nil
	}
	switch c.Op {
	case "get", "stat", "list":
	case "mixed":
		if (p.PutDistrib != nil && *p.PutDistrib != 0) || (p.DeleteDistrib != nil && *p.DeleteDistrib != 0) {
			return errors.New("s3: --list-existing writes and deletes nothing: mixed reads only, so leave out --put-distrib and --delete-distrib (or give 0)")
		}
	default:
		return fmt.Errorf("s3: --list-existing writes and deletes nothing, and %s writes: use get, stat, list or mixed", c.Op)
	}
	switch {
	case p.ObjSize != nil || p.ObjRandSize || p.ObjDist != "" || p.ObjMean != 0 || p.ObjSD != 0:
		return errors.New("s3: --list-existing reads the objects as they are: leave out --obj.size, --obj.randsize and --obj.dist")
	case c.Verify:
		return errors.New("s3: --list-existing: --verify checks bodies against what storbench wrote, and these objects are not storbench's")
	case c.StorageClass != "" || len(c.AddMetadata) > 0 || len(c.Tag) > 0 || c.SSES3 || c.SSEKMS != "" ||
		c.DisableMultipart || c.MD5 || c.Checksum != "" || c.SignPayload:
		return errors.New("s3: --list-existing uploads nothing: leave out the upload options (--storage-class, --add-metadata, --tag, --sse-s3-encrypt, --sse-kms, --disable-multipart, --md5, --checksum, --sign-payload)")
	case c.Encrypt:
		return errors.New("s3: --list-existing: --encrypt reads with a key of its own, which objects already there were not written with")
	case c.Op == "list" && c.Objects != 0:
		return errors.New("s3: --list-existing: list reads the whole --prefix each time: leave out --objects")
	}
	return nil
}

// loadTLS makes c's TLS client configuration: TLS 1.2 or later, the
// system's CAs or those of --ca-cert, --insecure's choice, and a session
// cache of sessions entries, so a connection made again (the server closed
// one, a request failed) resumes its session instead of a full handshake.
func (c *config) loadTLS(sessions int) error {
	if !c.tls {
		return nil
	}
	conf := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: c.Insecure, //nolint:gosec // --insecure is the user's explicit choice
		ClientSessionCache: tls.NewLRUClientSessionCache(sessions),
		// Whole records from the first byte: the benchmark sends bodies,
		// not a web page whose first bytes should arrive first.
		DynamicRecordSizingDisabled: true}
	if c.CACert != "" {
		pem, err := infile.Read("--ca-cert", c.CACert, infile.SecretLimit)
		if infile.IsRefusal(err) {
			return fmt.Errorf("s3: %w", err)
		}
		if err != nil {
			return fmt.Errorf("s3: --ca-cert: %v", err)
		}
		conf.RootCAs = x509.NewCertPool()
		if !conf.RootCAs.AppendCertsFromPEM(pem) {
			return fmt.Errorf("s3: --ca-cert %s: no PEM certificate in it", c.CACert)
		}
	}
	c.tlsConf = conf
	return nil
}

// withDefaultPort gives an endpoint written without a port HTTP's port
// (80), or HTTPS's (443) with TLS, as a URL without one means. "[v6]"
// literals count; anything else with a colon is left to the port check.
func withDefaultPort(e string, tls bool) string {
	port := "80"
	if tls {
		port = "443"
	}
	if strings.HasPrefix(e, "[") && strings.HasSuffix(e, "]") {
		return e + ":" + port
	}
	if !strings.Contains(e, ":") {
		return e + ":" + port
	}
	return e
}

func defaultSize(op string) Size {
	switch op {
	case "put", "get", "mixed", "versioned":
		return 10 << 20
	default:
		return 1 << 10
	}
}

// multipart says whether the benchmark uploads in parts of --part.size.
func (c *config) multipart() bool { return c.Op == "multipart" || c.Op == "multipart-put" }

// versionedListing says whether the phase's objects have versions, so
// that listings (cleanup's too) must take versions.
func (c *config) versionedListing() bool {
	return c.Op == "versioned" || c.Op == "retention" || (c.Op == "list" && c.Versions > 1)
}

// resolveSizes reads --obj.size, --obj.randsize and --obj.dist into the
// phase's size distribution, and sets ObjSize to its largest size.
func resolveSizes(c *config, p Params) error {
	spec := strconv.FormatInt(int64(defaultSize(c.Op)), 10)
	given := p.ObjSize != nil
	if given {
		spec = string(*p.ObjSize)
	}
	var err error
	switch strings.ToLower(strings.TrimSpace(c.ObjDist)) {
	case "":
		if c.ObjMean != 0 || c.ObjSD != 0 {
			return errors.New("s3: --obj.mean and --obj.sd need --obj.dist lognormal")
		}
		c.sizes, err = parseSizes(spec, c.ObjRandSize)
	case "lognormal":
		if c.ObjRandSize {
			return errors.New("s3: --obj.randsize and --obj.dist lognormal are two distributions: give one")
		}
		limit := int64(MaxPutSize)
		if given {
			d, err := parseSizes(spec, false)
			if err != nil {
				return err
			}
			if d.kind != distFixed {
				return fmt.Errorf("s3: --obj.size %q with --obj.dist lognormal: give one size, the largest to draw", spec)
			}
			limit = d.hi
		}
		c.sizes, err = lognormalSizes(int64(c.ObjMean), int64(c.ObjSD), limit)
		if err == nil && !given {
			c.sizes.desc += " up to " + sizeLabel(limit)
		}
	default:
		return fmt.Errorf("s3: --obj.dist %q: want lognormal (or leave it out for --obj.size's sizes)", c.ObjDist)
	}
	if err != nil {
		return err
	}
	c.ObjSize = Size(c.sizes.hi)
	limit, why := int64(MaxObjectSize), "S3's 5 TiB limit for one object"
	if c.DisableMultipart {
		limit, why = MaxPutSize, "S3's 5 GiB limit for one PUT (leave --disable-multipart out to upload in parts)"
	}
	if !c.multipart() && c.sizes.hi > limit {
		return fmt.Errorf("s3: --obj.size %s is over %s", units.Bytes(float64(c.sizes.hi)), why)
	}
	return nil
}

// resolveRequestOptions checks what every upload carries: encryption,
// storage class, metadata, tags, and --bind's local addresses.
func resolveRequestOptions(c *config) error {
	c.putHeaders = map[string]string{}
	sse := 0
	for _, on := range []bool{c.Encrypt, c.SSES3, c.SSEKMS != ""} {
		if on {
			sse++
		}
	}
	if sse > 1 {
		return errors.New("s3: give one of --encrypt (SSE-C), --sse-s3-encrypt and --sse-kms")
	}
	if c.SSEKMS != "" && strings.TrimSpace(c.SSEKMS) != c.SSEKMS {
		return fmt.Errorf("s3: --sse-kms %q: a key id has no blanks around it", c.SSEKMS)
	}
	for _, r := range c.StorageClass {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return fmt.Errorf("s3: --storage-class %q: want a class name such as STANDARD_IA (capitals, digits, _)", c.StorageClass)
		}
	}
	for k, v := range c.AddMetadata {
		if err := checkPair("--add-metadata", k, v, true); err != nil {
			return err
		}
	}
	if len(c.Tag) > 0 {
		for k, v := range c.Tag {
			if err := checkPair("--tag", k, v, false); err != nil {
				return err
			}
		}
		// S3's rules (10 tags, lengths, letters, digits, blanks and
		// +-=._:/@), as minio-go checks them: minio-go drops tags it finds
		// invalid without a word.
		t, err := tags.NewTags(c.Tag, true)
		if err != nil {
			return fmt.Errorf("s3: --tag: %v", err)
		}
		c.putHeaders["x-amz-tagging"] = t.String()
	}
	if c.StorageClass != "" {
		c.putHeaders["x-amz-storage-class"] = c.StorageClass
	}
	for k, v := range c.AddMetadata {
		c.putHeaders["x-amz-meta-"+strings.ToLower(k)] = v
	}
	switch {
	case c.SSES3:
		c.putHeaders["x-amz-server-side-encryption"] = "AES256"
	case c.SSEKMS != "":
		c.putHeaders["x-amz-server-side-encryption"] = "aws:kms"
		c.putHeaders["x-amz-server-side-encryption-aws-kms-key-id"] = c.SSEKMS
	}
	if c.Bind != "" {
		for _, a := range strings.Split(c.Bind, ",") {
			a = strings.TrimSpace(a)
			if net.ParseIP(a) == nil {
				return fmt.Errorf("s3: --bind %q: %q is not an IP address (give local addresses, comma-separated)", c.Bind, a)
			}
			c.bind = append(c.bind, a)
		}
	}
	return nil
}

// checkPair checks a KEY=VALUE of --add-metadata or --tag: a key that is a
// header token (metadata) or plain text (tags), and a value of printable
// ASCII.
func checkPair(flag, k, v string, header bool) error {
	if k == "" {
		return fmt.Errorf("s3: %s =%s: the key is empty (want KEY=VALUE)", flag, v)
	}
	for i := 0; i < len(k); i++ {
		if header && headerByte[k[i]]&inName == 0 || k[i] < ' ' || k[i] > '~' {
			return fmt.Errorf("s3: %s %q: the key may hold letters, digits and -_.!#$%%&'*+^`|~ only", flag, k)
		}
	}
	for i := 0; i < len(v); i++ {
		if v[i] < ' ' || v[i] > '~' {
			return fmt.Errorf("s3: %s %s: the value may hold printable ASCII only", flag, k)
		}
	}
	return nil
}

// resolveBenchOptions applies the defaults and limits of list, retention
// and ranged GETs.
func resolveBenchOptions(c *config) error {
	if c.Versions == 0 {
		c.Versions = 1
		if c.Op == "retention" {
			c.Versions = 5 // warp's
		}
	}
	if c.Versions < 1 || c.Versions > 1000 {
		return fmt.Errorf("s3: --versions %d: want 1 to 1000", c.Versions)
	}
	if c.Versions > 1 && c.Op != "list" && c.Op != "retention" {
		return fmt.Errorf("s3: --versions is for list and retention, not %s", c.Op)
	}
	if c.Op == "retention" && c.Checksum == "" {
		// S3 wants an upload with object lock settings to carry a digest.
		c.MD5 = true
	}
	if c.MaxKeys == 0 {
		c.MaxKeys = 100 // warp's
	}
	if c.MaxKeys < 1 || c.MaxKeys > MaxListKeys {
		return fmt.Errorf("s3: --max-keys %d: want 1 to %d", c.MaxKeys, MaxListKeys)
	}
	if c.Metadata && c.Op != "list" {
		return fmt.Errorf("s3: --metadata is for list, not %s", c.Op)
	}
	if c.RangeSize != 0 {
		if c.Op != "get" && c.Op != "mixed" {
			return fmt.Errorf("s3: --range-size is for get and mixed, not %s", c.Op)
		}
		if c.RangeSize < 1 {
			return fmt.Errorf("s3: --range-size %d: want at least 1 byte", c.RangeSize)
		}
		// With --list-existing the listing tells the smallest object.
		if int64(c.RangeSize) > c.sizes.lo && !c.ListExisting {
			return fmt.Errorf("s3: --range-size %s is larger than the smallest object (%s): ranges must fit in every object",
				sizeLabel(int64(c.RangeSize)), sizeLabel(c.sizes.lo))
		}
		c.Range = true
	}
	if c.Verify {
		switch c.Op {
		case "get", "mixed", "versioned":
		default:
			return fmt.Errorf("s3: --verify checks GET bodies: %s makes no GETs", c.Op)
		}
	}
	return nil
}
func defaultObjects(op string) int {
	switch op {
	case "delete":
		return 25000
	case "list":
		return 10000
	case "stat":
		return 10000
	case "retention":
		return 25000
	default:
		return 2500
	}
}
