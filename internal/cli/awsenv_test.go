package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/storbench/storbench/internal/engine/all"
	"github.com/storbench/storbench/internal/model"
)

// awsHome writes ~/.aws/credentials and ~/.aws/config under a new home
// directory (a file is left out when its text is empty) and returns it.
func awsHome(t *testing.T, credentials, config string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".aws"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"credentials": credentials, "config": config} {
		if text != "" {
			if err := os.WriteFile(filepath.Join(home, ".aws", name), []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	return home
}

const (
	testCredentials = `# a comment
[default]
aws_access_key_id = AKdefault
aws_secret_access_key = SKdefault

[bench]
aws_access_key_id=AKbench
aws_secret_access_key=SKbench
aws_session_token = TOKbench
`
	testConfig = `[default]
region = eu-default-1

[profile bench]
region = eu-bench-1
endpoint_url = https://s3.bench.example
s3 =
  addressing_style = path

[profile confkeys]
aws_access_key_id = AKconf
aws_secret_access_key = SKconf
region = eu-conf-1

[profile svc]
region = eu-svc-1
endpoint_url = https://profile.example
services = local-s3

[services local-s3]
s3 =
  endpoint_url = http://10.1.2.3:9000
sts =
  endpoint_url = https://sts.example

[profile nested]
endpoint_url = https://profile.example
s3 =
  addressing_style = path
  endpoint_url = https://nested.example:8443

[profile viarole]
role_arn = arn:aws:iam::123456789012:role/bench
source_profile = default
`
)

// Keys, endpoint and region are found as the AWS tools find them, after
// the flags and STORBENCH_*: each row says what a user sets and what the
// run then uses.
func TestAWSCredentialChain(t *testing.T) {
	t.Parallel()
	home := awsHome(t, testCredentials, testConfig)
	other := awsHome(t, "[bench]\naws_access_key_id = AKother\naws_secret_access_key = SKother\n", "[profile bench]\nregion = other-1\n")
	type want struct{ ak, sk, tok, host, region, tls string }
	for _, tc := range []struct {
		name  string
		env   map[string]string
		flags [2]string
		want  want
	}{
		{"default profile", map[string]string{"HOME": home},
			[2]string{}, want{ak: "AKdefault", sk: "SKdefault", region: "eu-default-1"}},
		{"AWS_PROFILE: credentials file's keys and token, config's region and endpoint", map[string]string{"HOME": home, "AWS_PROFILE": "bench"},
			[2]string{}, want{ak: "AKbench", sk: "SKbench", tok: "TOKbench", host: "s3.bench.example", region: "eu-bench-1", tls: "true"}},
		{"keys in the config file only", map[string]string{"HOME": home, "AWS_PROFILE": "confkeys"},
			[2]string{}, want{ak: "AKconf", sk: "SKconf", region: "eu-conf-1"}},
		{"AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE over HOME", map[string]string{"HOME": home, "AWS_PROFILE": "bench",
			"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(other, ".aws", "credentials"), "AWS_CONFIG_FILE": filepath.Join(other, ".aws", "config")},
			[2]string{}, want{ak: "AKother", sk: "SKother", region: "other-1"}},
		{"AWS_* variables over the profile", map[string]string{"HOME": home, "AWS_PROFILE": "bench",
			"AWS_ACCESS_KEY_ID": "AKenv", "AWS_SECRET_ACCESS_KEY": "SKenv", "AWS_SESSION_TOKEN": "TOKenv", "AWS_REGION": "env-1", "AWS_DEFAULT_REGION": "envdef-1"},
			[2]string{}, want{ak: "AKenv", sk: "SKenv", tok: "TOKenv", host: "s3.bench.example", region: "env-1", tls: "true"}},
		{"AWS_DEFAULT_REGION when AWS_REGION is unset", map[string]string{"AWS_DEFAULT_REGION": "envdef-1", "AWS_ACCESS_KEY_ID": "AKenv", "AWS_SECRET_ACCESS_KEY": "SKenv"},
			[2]string{}, want{ak: "AKenv", sk: "SKenv", region: "envdef-1"}},
		{"STORBENCH_* over AWS_*, and the AWS token stays with the AWS keys", map[string]string{"HOME": home, "AWS_ACCESS_KEY_ID": "AKenv", "AWS_SECRET_ACCESS_KEY": "SKenv", "AWS_SESSION_TOKEN": "TOKenv",
			"STORBENCH_ACCESS_KEY": "AKsb", "STORBENCH_SECRET_KEY": "SKsb", "STORBENCH_REGION": "sb-1"},
			[2]string{}, want{ak: "AKsb", sk: "SKsb", region: "sb-1"}},
		{"STORBENCH_SESSION_TOKEN with STORBENCH_* keys", map[string]string{"STORBENCH_ACCESS_KEY": "AKsb", "STORBENCH_SECRET_KEY": "SKsb", "STORBENCH_SESSION_TOKEN": "TOKsb"},
			[2]string{}, want{ak: "AKsb", sk: "SKsb", tok: "TOKsb"}},
		{"flags over everything", map[string]string{"HOME": home, "AWS_PROFILE": "bench", "AWS_ACCESS_KEY_ID": "AKenv", "AWS_SECRET_ACCESS_KEY": "SKenv"},
			[2]string{"AKflag", "SKflag"}, want{ak: "AKflag", sk: "SKflag", host: "s3.bench.example", region: "eu-bench-1", tls: "true"}},
		{"AWS_ENDPOINT_URL_S3 over AWS_ENDPOINT_URL over the profile's", map[string]string{"HOME": home, "AWS_PROFILE": "bench",
			"AWS_ENDPOINT_URL_S3": "http://10.0.0.7:7070", "AWS_ENDPOINT_URL": "https://general.example:8443"},
			[2]string{}, want{ak: "AKbench", sk: "SKbench", tok: "TOKbench", host: "10.0.0.7:7070", region: "eu-bench-1", tls: "false"}},
		{"AWS_ENDPOINT_URL", map[string]string{"AWS_ENDPOINT_URL": "https://general.example:8443/", "AWS_ACCESS_KEY_ID": "AKenv", "AWS_SECRET_ACCESS_KEY": "SKenv"},
			[2]string{}, want{ak: "AKenv", sk: "SKenv", host: "general.example:8443", tls: "true"}},
		{"STORBENCH_HOST over AWS endpoints, with its own TLS setting", map[string]string{"STORBENCH_HOST": "sbhost:9000", "AWS_ENDPOINT_URL": "https://general.example"},
			[2]string{}, want{host: "sbhost:9000"}},
		{"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", map[string]string{"HOME": home, "AWS_PROFILE": "bench", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true", "AWS_ENDPOINT_URL": "https://general.example"},
			[2]string{}, want{ak: "AKbench", sk: "SKbench", tok: "TOKbench", region: "eu-bench-1"}},
		{"a [services] section's s3 endpoint_url over the profile's", map[string]string{"HOME": home, "AWS_PROFILE": "svc", "AWS_ACCESS_KEY_ID": "AKenv", "AWS_SECRET_ACCESS_KEY": "SKenv"},
			[2]string{}, want{ak: "AKenv", sk: "SKenv", host: "10.1.2.3:9000", region: "eu-svc-1", tls: "false"}},
		{"AWS_ENDPOINT_URL over a [services] section", map[string]string{"HOME": home, "AWS_PROFILE": "svc", "AWS_ENDPOINT_URL": "https://general.example", "AWS_ACCESS_KEY_ID": "AKenv", "AWS_SECRET_ACCESS_KEY": "SKenv"},
			[2]string{}, want{ak: "AKenv", sk: "SKenv", host: "general.example", region: "eu-svc-1", tls: "true"}},
		{"an s3 endpoint_url nested in the profile over its own", map[string]string{"HOME": home, "AWS_PROFILE": "nested", "AWS_ACCESS_KEY_ID": "AKenv", "AWS_SECRET_ACCESS_KEY": "SKenv"},
			[2]string{}, want{ak: "AKenv", sk: "SKenv", host: "nested.example:8443", tls: "true"}},
		{"no HOME, no variables: nothing", map[string]string{}, [2]string{}, want{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := readEnvironment(func(k string) string { return tc.env[k] }, all.Engines())
			if err != nil {
				t.Fatal(err)
			}
			settings := map[string]any{}
			for i, k := range []string{"access_key", "secret_key"} {
				if tc.flags[i] != "" {
					settings[k] = tc.flags[i]
				}
			}
			a, err := e.apply(model.EngineS3, settings)
			if err == nil {
				err = a.SecretsErr
			}
			if err != nil {
				t.Fatal(err)
			}
			k := s3Keys(a)
			got := want{ak: k.ak, sk: k.sk, tok: k.tok,
				host: fmt.Sprint(orEmpty(settings["host"])), region: fmt.Sprint(orEmpty(settings["region"])), tls: fmt.Sprint(orEmpty(settings["tls"]))}
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

// What the chain cannot use is one line, exit 2, naming what to fix: a
// profile that does not exist (even when flags give the keys), one key
// without the other, an endpoint URL that is not one, and a profile whose
// keys only the AWS tools can get.
func TestAWSCredentialChainBadInput(t *testing.T) {
	t.Parallel()
	home := awsHome(t, testCredentials, testConfig)
	for _, tc := range []struct {
		name  string
		env   map[string]string
		flags []string
		want  string
	}{
		{"a profile that does not exist", map[string]string{"HOME": home, "AWS_PROFILE": "typo"}, nil,
			`AWS_PROFILE=typo: no profile "typo" in ` + filepath.Join(home, ".aws", "credentials") + " or " + filepath.Join(home, ".aws", "config")},
		{"a profile that does not exist, keys by flags", map[string]string{"HOME": home, "AWS_PROFILE": "typo"},
			[]string{"--access-key", "AKflag", "--secret-key", "SKflag"}, `no profile "typo"`},
		{"AWS_PROFILE without any AWS file", map[string]string{"HOME": t.TempDir(), "AWS_PROFILE": "bench"}, nil, `no profile "bench"`},
		{"AWS access key without its secret", map[string]string{"AWS_ACCESS_KEY_ID": "AKenv"}, nil,
			"AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not"},
		{"a profile with half a key", map[string]string{"HOME": awsHome(t, "[default]\naws_secret_access_key = SKhalf\n", "")}, nil,
			`has aws_secret_access_key but no aws_access_key_id`},
		{"access key flag without a secret", nil, []string{"--access-key", "AKflag"}, "give both --access-key and --secret-key"},
		{"endpoint URL without a scheme", map[string]string{"AWS_ENDPOINT_URL": "s3.example.com:9000"}, nil, `AWS_ENDPOINT_URL="s3.example.com:9000": want http://host[:port]`},
		{"endpoint URL with a path", map[string]string{"AWS_ENDPOINT_URL_S3": "https://s3.example.com/bucket"}, nil, "without a path"},
		{"AWS_CA_BUNDLE that is not there, for --tls", map[string]string{"AWS_CA_BUNDLE": "/nonexistent/ca.pem", "AWS_ACCESS_KEY_ID": "AKenv", "AWS_SECRET_ACCESS_KEY": "SKenv"},
			[]string{"--tls"}, "AWS_CA_BUNDLE=/nonexistent/ca.pem: no such file or directory (unset it, or give --ca-cert or --insecure)"},
		{"a profile's ca_bundle that is not there", map[string]string{"HOME": awsHome(t, "", "[default]\nca_bundle = /nonexistent/p.pem\n"), "AWS_ACCESS_KEY_ID": "AKenv", "AWS_SECRET_ACCESS_KEY": "SKenv"},
			[]string{"--tls"}, `ca_bundle of AWS profile "default"`},
		{"a profile that assumes a role", map[string]string{"HOME": home, "AWS_PROFILE": "viarole"}, nil,
			"gets its keys through role_arn, which storbench does not run: export them first (aws configure export-credentials --profile viarole --format env)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, out := testState()
			st.Getenv = func(k string) string { return tc.env[k] }
			res := t.TempDir()
			args := append([]string{"s3", "get", "--host", "127.0.0.1:1", "--duration", "1s", "--results", res}, tc.flags...)
			err := Execute(context.Background(), st, args)
			if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("exit %d, %v\nwant one line with %q", ExitCode(err), err, tc.want)
			}
			for _, secret := range []string{"SKhalf", "SKflag", "SKbench", "SKdefault"} {
				if strings.Contains(err.Error()+out.String(), secret) {
					t.Errorf("the error shows a secret: %v", err)
				}
			}
			if entries, _ := os.ReadDir(res); len(entries) != 0 {
				t.Errorf("bad input left %d entries in the results folder", len(entries))
			}
		})
	}
}

// expiredTokenXML is how AWS S3 answers a request signed with temporary
// keys whose session token has expired: 400, code ExpiredToken, and the
// token itself echoed back (Token-0), which must not reach the user.
const expiredTokenXML = `<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>ExpiredToken</Code><Message>The provided token has expired.</Message><Token-0>%s</Token-0><RequestId>Q1W2E3R4T5Y6U7I8</RequestId><HostId>aGVsbG8=</HostId></Error>`

// expiredS3 is a FAKE S3 endpoint: versitygw has no STS, so no token of
// its can expire. It answers every request as S3 answers one whose session
// token has expired (HEAD without a body, as S3 does) and keeps the
// X-Amz-Security-Token of each.
func expiredS3(t *testing.T) (addr string, tokens func() []string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := r.Header.Get("X-Amz-Security-Token")
		mu.Lock()
		got = append(got, tok)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusBadRequest)
		if r.Method != http.MethodHead {
			fmt.Fprintf(w, expiredTokenXML, tok)
		}
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// Expired temporary keys are one line naming the server's error, exit 2,
// whichever source gave the token, on both request paths; the token is
// sent (so the server's refusal is about it) and never shown.
func TestExpiredSessionToken(t *testing.T) {
	t.Parallel()
	const token = "IQoJb3JpZ2luX2VjEExpiredTOKsb77"
	addr, tokens := expiredS3(t)
	home := awsHome(t, "[tmp]\naws_access_key_id = ASIAprofile\naws_secret_access_key = SKprofileTmp\naws_session_token = "+token+"\n", "")
	for _, tc := range []struct {
		name  string
		env   map[string]string
		flags []string
	}{
		{"AWS_SESSION_TOKEN", map[string]string{"AWS_ACCESS_KEY_ID": "ASIAenv", "AWS_SECRET_ACCESS_KEY": "SKenvTmp", "AWS_SESSION_TOKEN": token}, nil},
		{"STORBENCH_SESSION_TOKEN", map[string]string{"STORBENCH_ACCESS_KEY": "ASIAsb", "STORBENCH_SECRET_KEY": "SKsbTmp", "STORBENCH_SESSION_TOKEN": token}, nil},
		{"a profile's aws_session_token", map[string]string{"HOME": home, "AWS_PROFILE": "tmp"}, nil},
		{"AWS_SESSION_TOKEN, --sdk", map[string]string{"AWS_ACCESS_KEY_ID": "ASIAenv", "AWS_SECRET_ACCESS_KEY": "SKenvTmp", "AWS_SESSION_TOKEN": token}, []string{"--sdk"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, out := testState()
			st.Getenv = func(k string) string { return tc.env[k] }
			res := t.TempDir()
			args := append([]string{"s3", "get", "--host", addr, "--duration", "1s", "--results", res, "-vvv"}, tc.flags...)
			err := Execute(context.Background(), st, args)
			want := "refused the keys with a session token (ExpiredToken: The provided token has expired.)"
			if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("exit %d, %v\nwant one line with %q", ExitCode(err), err, want)
			}
			if got := tokens(); len(got) == 0 || got[len(got)-1] != token {
				t.Errorf("the server saw tokens %q, want %q", got, token)
			}
			for _, l := range leaks(res, map[string]string{"error": err.Error(), "output": out.String()}, []string{token, "SKenvTmp", "SKsbTmp", "SKprofileTmp"}) {
				t.Error(l)
			}
		})
	}
}

// An explicit --insecure wins over a CA bundle the environment gives
// (AWS_CA_BUNDLE is set on many machines): the phase runs unchecked, and
// without --insecure the bundle is used.
func TestInsecureOverAWSCABundle(t *testing.T) {
	t.Parallel()
	e, err := readEnvironment(func(k string) string {
		return map[string]string{"AWS_CA_BUNDLE": "/etc/ssl/bundle.pem"}[k]
	}, all.Engines())
	if err != nil {
		t.Fatal(err)
	}
	insecure := map[string]any{"tls": true, "insecure": true}
	if _, err := e.apply(model.EngineS3, insecure); err != nil {
		t.Fatal(err)
	}
	if _, set := insecure["ca_cert"]; set {
		t.Errorf("--insecure with AWS_CA_BUNDLE set: the bundle was applied too (%v), which the s3 engine refuses", insecure["ca_cert"])
	}
	checked := map[string]any{"tls": true}
	// The bundle is not there: the engine says so, having applied it.
	_, _ = e.apply(model.EngineS3, checked)
	if checked["ca_cert"] != "/etc/ssl/bundle.pem" {
		t.Errorf("--tls with AWS_CA_BUNDLE set: ca_cert %v, want the bundle", checked["ca_cert"])
	}
}
