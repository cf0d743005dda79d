package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/all"
	"github.com/storbench/storbench/internal/model"
)

// keys are the three keys an engine's secrets hold under the s3 engine's
// names.
type keys struct{ ak, sk, tok string }

// s3Keys are the keys the s3 engine settled on.
func s3Keys(a engine.Applied) keys {
	return keys{a.Secrets.Get("STORBENCH_ACCESS_KEY").Reveal(), a.Secrets.Get("STORBENCH_SECRET_KEY").Reveal(), a.Secrets.Get("STORBENCH_SESSION_TOKEN").Reveal()}
}

// The environment is read once per process, by the names the engines
// declare, and applied with one precedence: a flag or a suite's setting, then the environment, then the
// default. Keys never go into a phase's settings.
func TestEnvironmentOncePrecedence(t *testing.T) {
	t.Parallel()
	env := map[string]string{"STORBENCH_HOST": "envhost:9000", "STORBENCH_REGION": "env-1", "STORBENCH_TLS": "true",
		"STORBENCH_S3_SDK": "1", "STORBENCH_ACCESS_KEY": "envak", "STORBENCH_SECRET_KEY": "envsk"}
	reads := map[string]int{}
	st, _ := testState()
	st.Getenv = func(k string) string { reads[k]++; return env[k] }
	for range 3 {
		if _, err := st.environment(); err != nil {
			t.Fatal(err)
		}
	}
	for k := range env {
		if reads[k] != 1 {
			t.Errorf("%s read %d times", k, reads[k])
		}
	}
	// Only what the engines declare is read (and HOME, where the AWS
	// shared files are), each once.
	declared := map[string]bool{"HOME": true}
	for _, v := range st.Engines.Environment() {
		declared[v.Name] = true
	}
	for k, n := range reads {
		if !declared[k] || n != 1 {
			t.Errorf("%s read %d times; declared by an engine: %v", k, n, declared[k])
		}
	}
	e, _ := st.environment()
	given := map[string]any{"host": "suitehost:9000", "tls": false}
	if _, err := e.apply(model.EngineS3, given); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"host": "suitehost:9000", "tls": false, "region": "env-1", "sdk": true}
	if fmt.Sprint(given) != fmt.Sprint(want) {
		t.Errorf("settings %v, want %v", given, want)
	}
	a, err := e.apply(model.EngineS3, map[string]any{"access_key": "flagak"})
	k := s3Keys(a)
	if err != nil || a.SecretsErr != nil || k.ak != "flagak" || k.sk != "envsk" {
		t.Errorf("keys %s/%s (%v, %v), want the flag's access key and the environment's secret key", k.ak, k.sk, err, a.SecretsErr)
	}
	bad, _ := testState()
	bad.Getenv = func(k string) string { return map[string]string{"STORBENCH_S3_SDK": "sometimes"}[k] }
	if _, err := bad.environment(); ExitCode(err) != ExitUsage {
		t.Errorf("STORBENCH_S3_SDK=sometimes: %v, want bad input", err)
	}
}

// A declared secret holding a line break is refused in one line naming
// the variable, never its value: launchers send each secret to agents as
// one NAME=VALUE line, where the break would cut the key or start another
// variable (before, "k\nSTORBENCH_SESSION_TOKEN=x" reached the agent as
// two secrets).
func TestSecretWithALineBreakRefused(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"abc\nSTORBENCH_SESSION_TOKEN=injected", "abc\r", "\n"} {
		const name = "STORBENCH_SECRET_KEY"
		_, err := readEnvironment(func(k string) string {
			if k == name {
				return v
			}
			return ""
		}, all.Engines())
		if ExitCode(err) != ExitUsage || err == nil || !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), "abc") || strings.Contains(err.Error(), "\n") {
			t.Errorf("secret %q: %v (exit %d), want one line naming %s without its value", v, err, ExitCode(err), name)
		}
	}
}
