package s3

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/secret"
)

// noKeys is an agent that was given no keys.
var noKeys engine.Credentials

func TestBadParamsAreOneClearLine(t *testing.T) {
	base := func() Params {
		return Params{Op: "get", Hosts: []string{"127.0.0.1:9000"}, AccessKey: "a", SecretKey: "b"}
	}
	cases := []struct {
		name string
		mod  func(*Params)
		want string
	}{
		{"range expands to nothing", func(p *Params) { p.Hosts = []string{"10.0.0.{9...1}:9000"} }, "is empty"},
		{"range of thousands by mistake", func(p *Params) { p.Hosts = []string{"s3-{1...5000}:9000"} }, "over the limit"},
		{"scheme in host", func(p *Params) { p.Hosts = []string{"http://s3:9000"} }, "without a scheme"},
		{"object size 0", func(p *Params) { z := SizeSpec("0"); p.ObjSize = &z }, "at least 1 byte"},
		{"object bigger than one PUT", func(p *Params) { z := SizeSpec("6GiB"); p.ObjSize = &z; p.DisableMultipart = true }, "5 GiB limit"},
		{"object bigger than S3 allows", func(p *Params) { z := SizeSpec("6TiB"); p.ObjSize = &z }, "5 TiB limit"},
		{"unknown op", func(p *Params) { p.Op = "copy" }, "unknown op"},
		{"no keys", func(p *Params) { p.AccessKey, p.SecretKey = "", "" }, "no credentials"},
		{"encrypt without tls", func(p *Params) { p.Encrypt = true }, "needs --tls"},
		{"bad checksum", func(p *Params) { p.Checksum = "md4" }, "--checksum"},
		{"put below delete", func(p *Params) { p.Op = "mixed"; p.PutDistrib = ptr(1); p.DeleteDistrib = ptr(5) }, "put-distrib"},
		{"part size over limit", func(p *Params) { p.Op = "multipart"; p.PartSize = 6 << 30 }, "part.size"},
		{"tag S3 refuses", func(p *Params) { p.Tag = map[string]string{"k": "a&b"} }, "--tag"},
		{"too many tags", func(p *Params) {
			p.Tag = map[string]string{}
			for i := range 11 {
				p.Tag[strconv.Itoa(i)] = "v"
			}
		}, "--tag"},
		{"metadata key with a blank", func(p *Params) { p.AddMetadata = map[string]string{"a b": "c"} }, "--add-metadata"},
		{"metadata value with a newline", func(p *Params) { p.AddMetadata = map[string]string{"a": "b\nc"} }, "printable ASCII"},
		{"two kinds of encryption", func(p *Params) { p.SSES3, p.SSEKMS = true, "k" }, "give one of"},
		{"storage class in lower case", func(p *Params) { p.StorageClass = "standard_ia" }, "--storage-class"},
		{"versions for get", func(p *Params) { p.Versions = 3 }, "--versions is for list and retention"},
		{"too many keys per list", func(p *Params) { p.Op = "list"; p.MaxKeys = 6000 }, "--max-keys 6000"},
		{"metadata listing for get", func(p *Params) { p.Metadata = true }, "--metadata is for list"},
		{"verify without GETs", func(p *Params) { p.Op = "put"; p.Verify = true }, "--verify checks GET bodies"},
		{"range size for put", func(p *Params) { p.Op = "put"; p.RangeSize = 10 }, "--range-size is for get and mixed"},
		{"multipart-put without multipart", func(p *Params) { p.Op = "multipart-put"; p.DisableMultipart = true }, "--disable-multipart"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := base()
			tc.mod(&p)
			_, err := resolve(p, noKeys)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line containing %q", err, tc.want)
			}
		})
	}
	// The limit has an override.
	p := base()
	p.Hosts, p.HostLimit = []string{"s3-{1...5000}:9000"}, 6000
	if c, err := resolve(p, noKeys); err != nil || len(c.endpoints) != 5000 {
		t.Fatalf("host_limit 6000: %v", err)
	}
	// An object size of 0 given in JSON is refused, not taken as unset.
	p2, err := DecodeParams([]byte(`{"op":"get","hosts":["h:1"],"access_key":"a","secret_key":"b","obj_size":"0"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := resolve(p2, noKeys); err == nil || !strings.Contains(err.Error(), "at least 1 byte") {
		t.Fatalf("obj_size 0: %v", err)
	}
}

func TestUnknownParamKeyIsRefused(t *testing.T) {
	_, err := DecodeParams([]byte(`{"op":"get","obj_sise":"4KiB"}`))
	if err == nil || !strings.Contains(err.Error(), "obj_sise") {
		t.Fatalf("typo not caught: %v", err)
	}
}

// A phase without keys signs with its agent's; a phase that carries keys
// (a suite's s3 block) signs with its own, key by key. The engine reads no
// environment: a STORBENCH_ variable set here changes nothing.
func TestKeysFromTheAgent(t *testing.T) {
	t.Setenv("STORBENCH_ACCESS_KEY", "envak")
	t.Setenv("STORBENCH_SECRET_KEY", "envsk")
	t.Setenv("STORBENCH_HOST", "envhost:9000")
	t.Setenv("STORBENCH_REGION", "env-region-1")
	agent := engine.Credentials{AccessKey: secret.New("agentak"), SecretKey: secret.New("agentsk"), SessionToken: secret.New("agenttok")}
	base := Params{Op: "stat", Host: "s3-{1...3}:9000"}
	for _, c := range []struct {
		name        string
		ak, sk      string
		keys        engine.Credentials
		wantAK      string
		wantSK      string
		wantTok     string
		wantNoCreds bool
	}{
		{name: "agent's keys", keys: agent, wantAK: "agentak", wantSK: "agentsk", wantTok: "agenttok"},
		// The agent's session token belongs to the agent's access key.
		{name: "phase's keys", ak: "phaseak", sk: "phasesk", keys: agent, wantAK: "phaseak", wantSK: "phasesk"},
		{name: "phase's access key", ak: "phaseak", keys: agent, wantAK: "phaseak", wantSK: "agentsk"},
		{name: "none", wantNoCreds: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := base
			p.AccessKey, p.SecretKey = c.ak, c.sk
			cfg, err := resolve(p, c.keys)
			if c.wantNoCreds {
				if err == nil || !strings.Contains(err.Error(), "no credentials") {
					t.Fatalf("want no credentials, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.AccessKey != c.wantAK || cfg.SecretKey != c.wantSK || cfg.SessionToken != c.wantTok || len(cfg.endpoints) != 3 || cfg.Region != "us-east-1" {
				t.Errorf("keys %s/%s token %q, %d endpoints, region %s", cfg.AccessKey, cfg.SecretKey, cfg.SessionToken, len(cfg.endpoints), cfg.Region)
			}
		})
	}
	if _, err := resolve(Params{Op: "stat"}, agent); err == nil || !strings.Contains(err.Error(), "no host") {
		t.Errorf("a phase without a host took one from the environment: %v", err)
	}
}

func TestRedactRemovesKeys(t *testing.T) {
	ph := (engine.Registry{"s3": Engine{}}).Redacted(engine.Phase{Engine: "s3", Params: []byte(`{"op":"get","access_key":"AKIAXX","secret_key":"s3cr3t","session_token":"T0k3n"}`)})
	if s := string(ph.Params); strings.Contains(s, "AKIAXX") || strings.Contains(s, "s3cr3t") || strings.Contains(s, "T0k3n") || !strings.Contains(s, `"op":"get"`) {
		t.Fatalf("redacted params: %s", s)
	}
}

func prepareErr(t *testing.T, p map[string]any) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pr, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "bad"}, phaseOf(t, "bad", p))
	if err == nil {
		pr.Cleanup(ctx)
	}
	return err
}

func TestNetworkBadInput(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{IAM: true})
	if err := srv.CreateUser("plainuser", "plainusersecret", "user"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		mod  func(map[string]any)
		want string
		// badInput: refused as bad input (exit 2, no results folder),
		// not as a failed run.
		badInput bool
	}{
		{"unreachable host", func(p map[string]any) { p["hosts"] = []string{"127.0.0.1:1"} }, "cannot reach 127.0.0.1:1", false},
		{"wrong keys", func(p map[string]any) { p["secret_key"] = "wrong" }, "refused the credentials", false},
		{"TLS to a plain endpoint", func(p map[string]any) { p["tls"] = true }, "does not speak TLS: drop --tls", true},
		// versitygw has no STS: any session token is one it refuses, as S3
		// refuses an expired one; the line names the server's code.
		{"session token the server refuses", func(p map[string]any) { p["session_token"] = "FQoGZXIvYXdzEXPIRED" }, "refused the keys with a session token (InvalidToken: ", true},
		{"missing bucket, no right to create it", func(p map[string]any) {
			p["access_key"], p["secret_key"], p["bucket"] = "plainuser", "plainusersecret", "nobucket"
		}, "may not create it", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := baseParams(srv, "get")
			tc.mod(p)
			err := prepareErr(t, p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if errors.Is(err, engine.ErrUnsupported) != tc.badInput {
				t.Errorf("bad input (exit 2): %v, want %v", !tc.badInput, tc.badInput)
			}
			if strings.Contains(err.Error(), s3test.SecretKey) || strings.Contains(err.Error(), "plainusersecret") || strings.Contains(err.Error(), "FQoGZXIvYXdzEXPIRED") {
				t.Fatal("the error shows a secret")
			}
		})
	}
}

// TestServerDiesMidRun: every failed request is counted by kind, the run
// ends at its duration, and what was measured before is kept.
func TestServerDiesMidRun(t *testing.T) {
	for _, sdk := range []bool{false, true} {
		t.Run(map[bool]string{false: "lean", true: "minio-go"}[sdk], func(t *testing.T) { serverDiesMidRun(t, sdk) })
	}
}

func serverDiesMidRun(t *testing.T, sdk bool) {
	srv := s3test.StartT(t, s3test.Options{})
	p := baseParams(srv, "get")
	p["duration"] = "1500ms"
	p["sdk"] = sdk
	pr, err := Engine{}.Prepare(context.Background(), engine.Env{Host: "h", RunID: "die"}, phaseOf(t, "g", p))
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(500*time.Millisecond, srv.Stop)
	t0 := time.Now()
	res, err := pr.Run(context.Background(), time.Now(), nil)
	if err != nil {
		t.Fatalf("run failed instead of counting errors: %v", err)
	}
	if el := time.Since(t0); el > 5*time.Second {
		t.Errorf("run took %v after the server died", el)
	}
	g := res.Ops[0]
	if g.Ops == 0 {
		t.Error("GETs before the server died were lost")
	}
	if g.Errors == 0 || g.ErrorKinds["connection refused"] == 0 {
		t.Errorf("errors not counted by kind: %d %v", g.Errors, g.ErrorKinds)
	}
	if err := pr.Cleanup(context.Background()); err == nil {
		t.Error("cleanup against a dead server reported success")
	}
}

// An endpoint without a port is HTTP's port 80, or 443 with TLS, as a URL
// without one; the Host header then carries no port, as minio-go sends it.
// An empty or bad port is still refused.
func TestEndpointDefaultPort(t *testing.T) {
	for _, tc := range []struct {
		host     string
		tls      bool
		dial     string
		hostHead string
	}{
		{"s3.example.com", false, "s3.example.com:80", "s3.example.com"},
		{"s3.example.com", true, "s3.example.com:443", "s3.example.com"},
		{"10.0.0.1:9000", true, "10.0.0.1:9000", "10.0.0.1:9000"},
		{"[::1]", true, "[::1]:443", "[::1]"},
		{"[::1]:9000", false, "[::1]:9000", "[::1]:9000"},
		{"s3.example.com:80", true, "s3.example.com:80", "s3.example.com:80"},
	} {
		tls := tc.tls
		c, err := resolve(Params{Op: "get", Host: tc.host, TLS: &tls, AccessKey: "a", SecretKey: "b"}, noKeys)
		if err != nil {
			t.Errorf("%s: %v", tc.host, err)
			continue
		}
		lc := newLeanClient(c)
		if c.endpoints[0] != tc.dial || lc.conns[0].addr != tc.dial || lc.conns[0].host != tc.hostHead {
			t.Errorf("%s (tls %v): endpoint %s, dials %s with Host %s; want %s with Host %s", tc.host, tc.tls,
				c.endpoints[0], lc.conns[0].addr, lc.conns[0].host, tc.dial, tc.hostHead)
		}
	}
	for _, bad := range []string{"s3.example.com:", "s3.example.com:0", "a:b:c"} {
		if _, err := resolve(Params{Op: "get", Host: bad, AccessKey: "a", SecretKey: "b"}, noKeys); err == nil || !strings.Contains(err.Error(), "port") {
			t.Errorf("%s: %v, want the port refused", bad, err)
		}
	}
}

// Over HTTPS the server's certificate is checked against the system's CAs
// or --ca-cert's; --insecure skips the check. A certificate not trusted,
// a CA file that is not there or holds no certificate, and --ca-cert
// without --tls are one clear line each.
func TestTLSCertificateChoices(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{TLS: true})
	otherCA, _, err := s3test.SelfSigned(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	notPEM := filepath.Join(t.TempDir(), "notpem")
	_ = os.WriteFile(notPEM, []byte("hello"), 0o600)
	for _, tc := range []struct {
		name string
		mod  func(map[string]any)
		want string // "" runs
	}{
		{"--ca-cert", func(p map[string]any) {}, ""},
		{"--insecure", func(p map[string]any) { delete(p, "ca_cert"); p["insecure"] = true }, ""},
		{"--insecure on minio-go", func(p map[string]any) { delete(p, "ca_cert"); p["insecure"], p["sdk"] = true, true }, ""},
		{"neither", func(p map[string]any) { delete(p, "ca_cert") }, "TLS certificate not trusted"},
		{"another CA", func(p map[string]any) { p["ca_cert"] = otherCA }, "TLS certificate not trusted"},
		{"CA file missing", func(p map[string]any) { p["ca_cert"] = "/nonexistent/ca.pem" }, "--ca-cert: open /nonexistent/ca.pem"},
		{"CA file not PEM", func(p map[string]any) { p["ca_cert"] = notPEM }, "no PEM certificate"},
		{"--ca-cert without --tls", func(p map[string]any) { p["tls"] = false }, "--ca-cert needs --tls"},
		{"--ca-cert and --insecure", func(p map[string]any) { p["insecure"] = true }, "give one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := baseParams(srv, "get")
			p["duration"], p["objects"] = "200ms", 8
			tc.mod(p)
			ph := phaseOf(t, "tls", p)
			err := validate(ph)
			if err == nil {
				err = prepareErr(t, p)
			}
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("want it to run: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n")):
				t.Fatalf("got %v, want one line with %q", err, tc.want)
			}
		})
	}
}

// A token that expires during a run: the lean path sends the session token
// with every request and counts S3's refusal under the server's code. The
// server is a FAKE (versitygw has no STS, so no token of its expires) that
// answers as S3 does, echoing the token in the error body.
func TestLeanCountsExpiredToken(t *testing.T) {
	const token = "IQoJb3JpZ2luX2VjELeanExpired"
	var seen atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.Header.Get("X-Amz-Security-Token") == token && strings.Contains(r.Header.Get("Authorization"), ";x-amz-security-token") {
			seen.Add(1)
		}
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusBadRequest)
		if r.Method != http.MethodHead {
			_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>ExpiredToken</Code><Message>The provided token has expired.</Message><Token-0>`+token+`</Token-0><RequestId>1</RequestId></Error>`)
		}
	}))
	defer srv.Close()
	p := Params{Op: "get", Hosts: []string{strings.TrimPrefix(srv.URL, "http://")}, AccessKey: "ASIAX", SecretKey: "sk", SessionToken: token, Bucket: "lean",
		StorageClass: "STANDARD"}
	c, err := resolve(p, noKeys)
	if err != nil {
		t.Fatal(err)
	}
	lc := newLeanClient(c)
	defer lc.bind(context.Background())()
	buf := make([]byte, readBufSize)
	d := newDataBlock(4096, 1)
	_, _, gerr := lc.get(0, []byte("k"), 0, 0, buf)
	perr := lc.put(0, []byte("k"), 4096, d.bodyChunks(nil, 0, 4096), buf)
	for what, err := range map[string]error{"GET": gerr, "PUT": perr} {
		if errorKind(err) != "ExpiredToken" || strings.Contains(err.Error(), token) {
			t.Errorf("%s: %v (kind %q), want ExpiredToken without the token", what, err, errorKind(err))
		}
	}
	if seen.Load() != 2 {
		t.Errorf("%d of 2 requests carried the token, signed", seen.Load())
	}
}
