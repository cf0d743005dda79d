package s3

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/hosts"
)

// resolve applies defaults, takes the agent's keys when the phase carries
// none, and checks every setting, so a bad phase fails with one clear line
// before anything connects: of two bad settings, the one of the earlier
// step below is named.
func resolve(p Params, keys engine.Credentials) (*config, error) {
	c := &config{Params: p}
	if err := resolveOp(c, p.Op); err != nil {
		return nil, err
	}
	if err := resolveEndpoints(c); err != nil {
		return nil, err
	}
	if err := resolveCredentials(c, keys); err != nil {
		return nil, err
	}
	if err := resolveAddressing(c); err != nil {
		return nil, err
	}
	if c.Concurrent == 0 {
		c.Concurrent = 20
	}
	if c.Concurrent < 1 || c.Concurrent > MaxConcurrent {
		return nil, fmt.Errorf("s3: --concurrent %d: want 1 to %d", c.Concurrent, MaxConcurrent)
	}
	if err := checkListExisting(c, p); err != nil {
		return nil, err
	}
	if err := resolveSizes(c, p); err != nil {
		return nil, err
	}
	if c.Objects == 0 && !c.ListExisting {
		c.Objects = defaultObjects(c.Op)
	}
	if c.Objects < 0 || (c.Objects == 0 && !c.ListExisting) {
		return nil, fmt.Errorf("s3: --objects %d: want at least 1", c.Objects)
	}
	for _, step := range []func(*config) error{
		resolveStop, resolveSecurity, resolveChecksum, resolveBatch,
		resolveMultipart, resolveRequestOptions, resolveBenchOptions,
		checkCounts, resolveBounds, resolveDistribution,
	} {
		if err := step(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// resolveOp checks the benchmark's name (given as op), case and blanks
// aside.
func resolveOp(c *config, op string) error {
	c.Op = strings.ToLower(strings.TrimSpace(c.Op))
	for _, o := range Ops {
		if o == c.Op {
			return nil
		}
	}
	return fmt.Errorf("s3: unknown op %q (want one of %s)", op, strings.Join(Ops, ", "))
}

// resolveEndpoints expands --host's ranges into the endpoints, each
// host:port with the scheme's default port when none is given.
func resolveEndpoints(c *config) error {
	if c.Host != "" {
		c.Hosts = append(c.Hosts, c.Host)
	}
	if len(c.Hosts) == 0 {
		return fmt.Errorf("s3: no host given (use --host or STORBENCH_HOST)")
	}
	eps, err := hosts.Expand(c.Hosts, c.HostLimit)
	if err != nil {
		return fmt.Errorf("s3: --host: %v", err)
	}
	if c.TLS != nil {
		c.tls = *c.TLS
	}
	for i, e := range eps {
		if strings.Contains(e, "://") || strings.Contains(e, "/") {
			return fmt.Errorf("s3: host %q: give host[:port] without a scheme or path (use --tls for https)", e)
		}
		eps[i] = withDefaultPort(e, c.tls)
		if _, _, err := hosts.SplitHostPort(eps[i]); err != nil {
			return fmt.Errorf("s3: --host %v", err)
		}
	}
	c.endpoints = eps
	return nil
}

// resolveCredentials takes the keys: a phase's own keys (a suite's s3
// block) come first, then the agent's. A session token belongs to its
// access key: the agent's token goes only with the agent's access key.
func resolveCredentials(c *config, keys engine.Credentials) error {
	if c.AccessKey == "" {
		c.AccessKey = keys.AccessKey.Reveal()
		if c.SessionToken == "" {
			c.SessionToken = keys.SessionToken.Reveal()
		}
	}
	if c.SecretKey == "" {
		c.SecretKey = keys.SecretKey.Reveal()
	}
	if c.AccessKey == "" || c.SecretKey == "" {
		return fmt.Errorf("s3: no credentials (use --access-key/--secret-key, STORBENCH_ACCESS_KEY/STORBENCH_SECRET_KEY, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or an AWS profile)")
	}
	return nil
}

// resolveAddressing sets where requests go: region, bucket, path or DNS
// style, and how a request picks its endpoint.
func resolveAddressing(c *config) error {
	if c.Region == "" {
		c.Region = "us-east-1"
	}
	if c.Bucket == "" {
		c.Bucket = "storbench"
	}
	switch c.Lookup {
	case "":
		c.Lookup = "path"
	case "path", "dns":
	default:
		return fmt.Errorf("s3: --lookup %q: want path or dns", c.Lookup)
	}
	switch c.HostSelect {
	case "":
		c.HostSelect = "weighed"
	case "weighed", "roundrobin":
	case "cross":
		if len(c.endpoints) < 2 {
			return errors.New("s3: --host-select cross writes through one endpoint and reads through another: give at least 2 with --host")
		}
	default:
		return fmt.Errorf("s3: --host-select %q: want weighed, roundrobin or cross", c.HostSelect)
	}
	return nil
}

// resolveStop sets when the measured stage ends (--duration, autoterm)
// and how fast it goes (--rate).
func resolveStop(c *config) error {
	if c.Duration == 0 {
		c.Duration = Duration(5 * time.Minute)
	}
	c.duration = time.Duration(c.Duration)
	if c.AutoTermPct == 0 {
		c.AutoTermPct = 7.5
	}
	if c.AutoTermDur == 0 {
		c.AutoTermDur = Duration(10 * time.Second)
	}
	if c.AutoTermPct < 0 || c.AutoTermPct > 100 {
		return fmt.Errorf("s3: --autoterm.pct %g: want 0 to 100", c.AutoTermPct)
	}
	if c.Rate < 0 {
		return fmt.Errorf("s3: --rate %g: want a positive rate", c.Rate)
	}
	return nil
}

// resolveSecurity checks the settings of TLS and of SSE-C, which needs it.
func resolveSecurity(c *config) error {
	if c.CACert != "" && !c.tls {
		return errors.New("s3: --ca-cert needs --tls")
	}
	if c.CACert != "" && c.Insecure {
		return errors.New("s3: --ca-cert checks the server's certificate and --insecure does not: give one")
	}
	if c.Encrypt && !c.tls {
		return errors.New("s3: --encrypt (SSE-C) needs --tls: S3 refuses customer keys over plain HTTP")
	}
	return nil
}

// resolveChecksum checks the integrity check an upload carries: --md5 or
// --checksum's algorithm, upper-cased, not both.
func resolveChecksum(c *config) error {
	if c.Checksum != "" {
		if _, ok := checksumTypes[strings.ToUpper(c.Checksum)]; !ok {
			return fmt.Errorf("s3: --checksum %q: want %s", c.Checksum, checksumNames)
		}
		c.Checksum = strings.ToUpper(c.Checksum)
	}
	if c.MD5 && c.Checksum != "" {
		return errors.New("s3: use either --md5 or --checksum, not both")
	}
	return nil
}

// resolveBatch sets how many objects one DELETE removes (--batch).
func resolveBatch(c *config) error {
	if c.Batch == 0 {
		c.Batch = 100
	}
	if c.Batch < 1 || c.Batch > 1000 {
		return fmt.Errorf("s3: --batch %d: want 1 to 1000 (S3's limit per DELETE)", c.Batch)
	}
	return nil
}

// resolveBounds sets how long a request may take and how long the grace
// after the measured stage is.
func resolveBounds(c *config) error {
	// The largest body one request carries sets how long a sound request
	// may take.
	body := c.ObjSize
	if c.Op == "multipart" {
		body = c.PartSize
	}
	c.boundRequests(int64(body))
	if c.requestTimeout < 0 {
		return fmt.Errorf("s3: --request-timeout %v: want a positive time", c.requestTimeout)
	}
	if c.grace < 0 {
		return fmt.Errorf("s3: --grace %v: want a positive time", c.grace)
	}
	return nil
}

// resolveDistribution sets the shares of GET, STAT, PUT and DELETE of the
// mixed benchmarks (none that write with --list-existing).
func resolveDistribution(c *config) error {
	def := [4]float64{45, 30, 15, 10}
	if c.ListExisting {
		def[dPut], def[dDelete] = 0, 0
	}
	for i, v := range []*float64{c.GetDistrib, c.StatDistrib, c.PutDistrib, c.DeleteDistrib} {
		c.dist[i] = def[i]
		if v != nil {
			c.dist[i] = *v
		}
		if c.dist[i] < 0 {
			return errors.New("s3: distributions must not be negative")
		}
	}
	if c.Op == "mixed" || c.Op == "versioned" {
		sum := c.dist[0] + c.dist[1] + c.dist[2] + c.dist[3]
		if sum <= 0 {
			return errors.New("s3: every distribution is 0: nothing to do")
		}
		if c.dist[dPut] < c.dist[dDelete] {
			return errors.New("s3: --put-distrib must be at least --delete-distrib, or the object pool runs dry")
		}
	}
	return nil
}
