package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/s3test"
)

// What run.json keeps of `storbench s3 BENCHMARK`'s options (its
// settings) and the phase's settings in its plan, for get, put and mixed,
// with and without optional flags, and with the endpoint and keys given by
// flag, by the environment and by an AWS credentials file: the
// environment fills what the flags leave out. The keys are in neither.
// Both are the settings given, by flag or by the environment (tls false
// where the AWS endpoint URL's scheme said http): before, op, bucket,
// concurrent, host_select, duration, lookup and tls were there given or
// not, at their defaults.
func TestS3RecordsItsSettings(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	creds := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(creds, []byte("[default]\naws_access_key_id = "+s3test.AccessKey+"\naws_secret_access_key = "+s3test.SecretKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	byFlag := []string{"--host", srv.Endpoint, "--access-key", s3test.AccessKey, "--secret-key", s3test.SecretKey}
	byEnv := map[string]string{"STORBENCH_HOST": srv.Endpoint, "STORBENCH_ACCESS_KEY": s3test.AccessKey, "STORBENCH_SECRET_KEY": s3test.SecretKey}
	byFile := map[string]string{"AWS_ENDPOINT_URL_S3": "http://" + srv.Endpoint, "AWS_SHARED_CREDENTIALS_FILE": creds, "AWS_CONFIG_FILE": filepath.Join(t.TempDir(), "none")}
	host := `"host": ` + jsonText(t, srv.Endpoint)
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string // settings and the phase's params alike
	}{
		{"get by flag", nil, append([]string{"get", "--objects", "5", "--duration", "300ms"}, byFlag...),
			`"duration": "300ms", "objects": 5, "op": "get"`},
		{"get by env, optional flags", byEnv, []string{"get", "--objects", "5", "--duration", "300ms", "--obj.size", "4KiB", "--concurrent", "2", "--range", "--region", "us-east-1", "--add-metadata", "k=v"},
			`"add_metadata": {"k": "v"}, "concurrent": 2, "duration": "300ms", "obj_size": "4KiB", "objects": 5, "op": "get", "range": true, "region": "us-east-1"`},
		{"put by file", byFile, []string{"put", "--duration", "300ms", "--obj.size", "1KiB"},
			`"duration": "300ms", "obj_size": "1KiB", "op": "put", "tls": false`},
		{"put by env, host by flag", byEnv, []string{"put", "--duration", "300ms", "--host", srv.Endpoint, "--tls=false", "--host-select", "roundrobin", "--bucket", "rec"},
			`"bucket": "rec", "duration": "300ms", "host_select": "roundrobin", "op": "put", "tls": false`},
		{"mixed by env", byEnv, []string{"mixed", "--objects", "5", "--duration", "300ms", "--max-error-share", "100"},
			`"duration": "300ms", "objects": 5, "op": "mixed"`},
		{"mixed by file, keys by flag", byFile, []string{"mixed", "--objects", "5", "--duration", "300ms", "--get-distrib", "60", "--put-distrib", "20", "--access-key", s3test.AccessKey, "--secret-key", s3test.SecretKey, "--autoterm", "--autoterm.dur", "100ms", "--max-error-share", "100"},
			`"autoterm": true, "autoterm_dur": "100ms", "duration": "300ms", "get_distrib": 60, "objects": 5, "op": "mixed", "put_distrib": 20, "tls": false`},
	} {
		// One at a time: the runs share the server and the default bucket.
		// mixed's few objects see GETs of objects its DELETEs took: a
		// failed request is no concern here (--max-error-share, no setting).
		t.Run(tc.name, func(t *testing.T) {
			res := t.TempDir()
			st, out := testState()
			st.Getenv = func(k string) string { return tc.env[k] }
			if err := Execute(context.Background(), st, append([]string{"s3"}, append(tc.args, "--results", res)...)); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			settings, params := recordedRun(t, res)
			if len(params) != 1 {
				t.Fatalf("run.json: %d phases", len(params))
			}
			for what, pair := range map[string]struct {
				got  map[string]any
				want string
			}{"settings": {settings, tc.want}, "the phase's params": {params[0], tc.want}} {
				gb, _ := json.Marshal(pair.got)
				if strings.Contains(string(gb), s3test.SecretKey) || strings.Contains(string(gb), s3test.AccessKey) {
					t.Errorf("run.json's %s hold a key: %s", what, gb)
				}
				var want map[string]any
				if err := json.Unmarshal([]byte(`{`+host+`, `+pair.want+`}`), &want); err != nil {
					t.Fatalf("%s: %v\ngot %s", what, err, gb)
				}
				if !reflect.DeepEqual(pair.got, want) {
					t.Errorf("run.json's %s:\n%s\nwant\n%v", what, gb, want)
				}
			}
		})
	}
}
