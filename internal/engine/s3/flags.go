package s3

import "github.com/storbench/storbench/internal/engine"

// flags are how `storbench s3 OP` shows the engine's settings
// (Info.Flags), named as warp names them: those of some benchmarks only
// name them (Benchmarks), and a default that differs by benchmark is
// given for each (DefaultFor); versions, whose help differs, is declared
// once for list and once for retention.
var flags = []engine.Flag{
	{Key: "bucket", Name: "bucket", Help: "bucket; created if missing, and removed afterwards only if storbench created it and it is empty", Default: "storbench"},
	{Key: "concurrent", Name: "concurrent", Help: "requests in flight", Default: "20", NonZero: true},
	{Key: "host", Name: "host", Help: "S3 endpoints host[:port] (port 80, or 443 with --tls, when left out); comma lists, {1...N} ranges anywhere in the name and Slurm lists (s[1-4]:9000) [$STORBENCH_HOST, $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, the AWS profile's endpoint_url]"},
	{Key: "access_key", Name: "access-key", Help: "access key [$STORBENCH_ACCESS_KEY, $AWS_ACCESS_KEY_ID, the AWS profile]"},
	{Key: "secret_key", Name: "secret-key", Help: "secret key [$STORBENCH_SECRET_KEY, $AWS_SECRET_ACCESS_KEY, the AWS profile]"},
	{Key: "tls", Name: "tls", Help: "use HTTPS [$STORBENCH_TLS, or the scheme of an AWS endpoint URL]"},
	{Key: "insecure", Name: "insecure", Help: "do not verify the server's TLS certificate"},
	{Key: "ca_cert", Name: "ca-cert", Help: "check the server's TLS certificate against the CA certificates in this PEM file (with --tls) [$AWS_CA_BUNDLE, the AWS profile's ca_bundle]"},
	{Key: "region", Name: "region", Help: "region (default us-east-1) [$STORBENCH_REGION, $AWS_REGION, $AWS_DEFAULT_REGION, the AWS profile's region]"},
	{Key: "lookup", Name: "lookup", Help: "bucket addressing: path or dns", Default: "path"},
	{Key: "obj_size", Name: "obj.size", Help: "object size (e.g. 4KiB, 10MiB; default per benchmark, as warp), MIN,MAX (uniform), or buckets SIZE:WEIGHT,... (4KiB:50,64KiB:30,1MiB:20: a bucket by weight, a size uniformly up to its bound from the one below); results per size class", NonZero: true, LeftOut: "the benchmark's default size"},
	{Key: "obj_randsize", Name: "obj.randsize", Help: "random sizes up to --obj.size (or between MIN,MAX), log2-distributed (as many objects per doubling of size)"},
	{Key: "obj_dist", Name: "obj.dist", Help: "lognormal: sizes from a lognormal distribution of --obj.mean and --obj.sd, up to --obj.size (default 5GiB)"},
	{Key: "obj_mean", Name: "obj.mean", Help: "mean object size of --obj.dist lognormal", NonZero: true},
	{Key: "obj_sd", Name: "obj.sd", Help: "standard deviation of object sizes of --obj.dist lognormal", NonZero: true},
	{Key: "bind", Name: "bind", Help: "local addresses the connections start from, spread over the workers (10.0.0.1,10.0.1.1: one per NIC)"},
	{Key: "storage_class", Name: "storage-class", Help: "storage class of every upload (STANDARD_IA, ...); a server that does not keep it is refused"},
	{Key: "sse_s3_encrypt", Name: "sse-s3-encrypt", Help: "server-side encryption with the server's keys (SSE-S3); a server that does not encrypt is refused"},
	{Key: "sse_kms", Name: "sse-kms", Help: "server-side encryption with this KMS key id (SSE-KMS); a server that does not encrypt is refused"},
	{Key: "disable_multipart", Name: "disable-multipart", Help: "send every upload as one PUT (objects over 16MiB are otherwise uploaded in parts, as warp does)"},
	{Key: "objects", Name: "objects", Help: "objects to prepare (default per benchmark)", NonZero: true, LeftOut: "the benchmark's default count"},
	{Key: "noprefix", Name: "noprefix", Help: "one prefix for all workers instead of one each"},
	{Key: "noclear", Name: "noclear", Help: "leave this run's objects in place afterwards (nothing else is ever deleted)"},
	{Key: "host_select", Name: "host-select", Help: "endpoint choice: weighed (fewest in flight, longest idle), roundrobin, or cross (host i writes through endpoint i and reads through endpoint i+1: with one gateway per host over one namespace and --verify, every object is read back through another gateway than wrote it)", Default: "weighed"},
	{Key: "host_limit", Name: "host-limit", Help: "most endpoints a --host range may expand to (default 1024)", NonZero: true, LeftOut: "the default (1024)"},
	{Key: "benchdata", Name: "benchdata", Help: "write every request to this zstd TSV file as the run goes"},
	{Key: "duration", Name: "duration", Help: "how long to measure", Default: "5m", NonZero: true},
	{Key: "request_timeout", Name: "request-timeout", Help: "cut a request still open this long after it started, counted as \"timeout: request\" (default 1m plus 1s per 16 MiB of object)", NonZero: true, LeftOut: "the default (1m plus 1s per 16 MiB of object)"},
	{Key: "grace", Name: "grace", Help: "after the measured stage, cut requests still open this much later, counted as \"timeout: phase grace\" (default 10s plus 1s per 16 MiB of object)", NonZero: true, LeftOut: "the default (10s plus 1s per 16 MiB of object)"},
	{Key: "autoterm", Name: "autoterm", Help: "stop early once throughput is stable (last 7 of 25 samples within --autoterm.pct for --autoterm.dur)"},
	{Key: "autoterm_pct", Name: "autoterm.pct", Help: "stability threshold in percent", Default: "7.5", NonZero: true},
	{Key: "autoterm_dur", Name: "autoterm.dur", Help: "how long throughput must be stable", Default: "10s", NonZero: true},
	{Key: "rate", Name: "rate", Help: "open loop: start this many requests per second on a fixed schedule; latency counts from the scheduled start", NonZero: true, LeftOut: "a closed loop (no rate)"},
	{Key: "sdk", Name: "sdk", Help: "send GET, PUT, HEAD and DELETE through minio-go instead of the lean HTTP/1.1 path [$STORBENCH_S3_SDK]"},
	// On every benchmark, so that a write benchmark refuses them in words.
	{Key: "list_existing", Name: "list-existing", Help: "read the objects already in the bucket under --prefix (get, stat, list, mixed without writes): nothing is uploaded, written or deleted"},
	{Key: "prefix", Name: "prefix", Help: "with --list-existing: the key prefix of the objects to read (default: the whole bucket)"},
	{Key: "md5", Name: "md5", Help: "send Content-MD5 with uploads"},
	{Key: "checksum", Name: "checksum", Help: "S3 checksum on uploads: CRC32, CRC32C, CRC64NVME, SHA1, SHA256"},
	{Key: "encrypt", Name: "encrypt", Help: "SSE-C with a random key (needs --tls)"},
	{Key: "sign_payload", Name: "sign-payload", Help: "sign request bodies on plain HTTP (streaming SigV4) instead of UNSIGNED-PAYLOAD"},
	{Key: "range", Name: "range", Help: "GET a random byte range of each object", Benchmarks: []string{"get", "mixed", "versioned"}},
	{Key: "verify", Name: "verify", Help: "check every GET body against what storbench wrote, as it streams; a mismatch is an error of kind \"content mismatch\"", Benchmarks: []string{"get", "mixed", "versioned"}},
	{Key: "range_size", Name: "range-size", Help: "GET ranges of this size at random offsets (implies --range; at most the smallest object)", NonZero: true, LeftOut: "whole objects (or --range)", Benchmarks: []string{"get", "mixed"}},
	{Key: "versions", Name: "versions", Help: "versions of each object; over 1 lists versions (needs bucket versioning)", Default: "1", NonZero: true, Benchmarks: []string{"list"}},
	{Key: "versions", Name: "versions", Help: "versions of each object, each uploaded with a retention (over 1 needs bucket versioning)", Default: "5", NonZero: true, Benchmarks: []string{"retention"}},
	{Key: "metadata", Name: "metadata", Help: "list with user metadata (MinIO's extension of ListObjectsV2)", Benchmarks: []string{"list"}},
	{Key: "max_keys", Name: "max-keys", Help: "keys asked for per LIST request", Default: "100", NonZero: true, Benchmarks: []string{"list"}},
	{Key: "get_distrib", Name: "get-distrib", Help: "relative weight of GET", Default: "45", ZeroMeans: noneOfIt, Benchmarks: weighed},
	{Key: "stat_distrib", Name: "stat-distrib", Help: "relative weight of STAT", Default: "30", ZeroMeans: noneOfIt, Benchmarks: weighed},
	{Key: "put_distrib", Name: "put-distrib", Help: "relative weight of PUT", Default: "15", ZeroMeans: noneOfIt, Benchmarks: weighed},
	{Key: "delete_distrib", Name: "delete-distrib", Help: "relative weight of DELETE (at most --put-distrib)", Default: "10", ZeroMeans: noneOfIt, Benchmarks: weighed},
	// warp's multipart-put uploads more parts, more at a time.
	{Key: "parts", Name: "parts", Help: "parts per upload", Default: "20", DefaultFor: map[string]string{"multipart-put": "100"}, NonZero: true, Benchmarks: multipart},
	{Key: "part_size", Name: "part.size", Help: "part size", Default: "5MiB", NonZero: true, Benchmarks: multipart},
	{Key: "part_concurrency", Name: "part.concurrent", Help: "parts in flight per upload", Default: "4", DefaultFor: map[string]string{"multipart-put": "20"}, NonZero: true, Benchmarks: multipart},
	{Key: "batch", Name: "batch", Help: "objects per DELETE request", Default: "100", NonZero: true, Benchmarks: []string{"delete"}},
}

// The benchmarks that weigh their operations, and the multipart ones.
var (
	weighed   = []string{"mixed", "versioned"}
	multipart = []string{"multipart", "multipart-put"}
)

// noneOfIt is what a weight of 0 means.
const noneOfIt = "none of that operation"
