package deploy_test

// The systemd unit: systemd-analyze accepts it, its ExecStart (expanded as
// systemd expands it, with the credential in place) starts an agent a
// controller runs a phase on, and its hardening leaves --drop-caches
// working.

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/testutil"
)

func unitPath(t *testing.T) string {
	return filepath.Join(repoRoot(t), "deploy", "systemd", "storbench-agent.service")
}

// unit is a unit file: section -> key -> values in order.
type unit map[string]map[string][]string

func readUnit(t *testing.T, p string) unit {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u := unit{}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		switch {
		case l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, ";"):
		case strings.HasPrefix(l, "["):
			section = strings.Trim(l, "[]")
			u[section] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(l, "=")
			if !ok || section == "" {
				t.Fatalf("%s: line %q is not KEY=VALUE in a section", p, l)
			}
			u[section][k] = append(u[section][k], v)
		}
	}
	return u
}

func (u unit) last(section, key string) string {
	v := u[section][key]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

var braceVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// execArgs expands a command line as systemd does: ${VAR} inside a word,
// $VAR alone as a word split at white space (nothing when empty).
func execArgs(line string, env map[string]string) []string {
	var out []string
	for _, w := range strings.Fields(line) {
		if strings.HasPrefix(w, "$") && !strings.HasPrefix(w, "${") {
			out = append(out, strings.Fields(env[w[1:]])...)
			continue
		}
		out = append(out, braceVar.ReplaceAllStringFunc(w, func(m string) string { return env[m[2:len(m)-1]] }))
	}
	return out
}

func TestSystemdUnitVerifies(t *testing.T) {
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is missing (Debian's systemd package): `make test` installs it")
	}
	// verify wants ExecStart's program to exist: point it at a fresh build.
	b, err := os.ReadFile(unitPath(t))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "ExecStart=/usr/bin/storbench ") {
		t.Fatalf("ExecStart does not run /usr/bin/storbench, where the packages install it")
	}
	copyPath := filepath.Join(t.TempDir(), "storbench-agent.service")
	writeFile(t, filepath.Dir(copyPath), filepath.Base(copyPath), strings.Replace(string(b), "/usr/bin/storbench", testutil.StorbenchBin(t), 1), 0o644)
	out, err := exec.Command(sa, "verify", copyPath).CombinedOutput()
	// Unknown keys and bad values are warnings with exit 0: any word about
	// the unit is a failure.
	if err != nil || strings.Contains(string(out), "storbench-agent") {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// The hardening must leave what --drop-caches needs: root, CAP_SYS_ADMIN
// and a writable /proc/sys/vm.
func TestSystemdUnitAllowsDropCaches(t *testing.T) {
	u := readUnit(t, unitPath(t))
	s := u["Service"]
	yes := func(key string) bool {
		switch strings.ToLower(u.last("Service", key)) {
		case "yes", "true", "on", "1", "strict":
			return true
		}
		return false
	}
	for _, key := range []string{"ProtectKernelTunables", "DynamicUser", "PrivateUsers"} {
		if yes(key) {
			t.Errorf("%s=%s: --drop-caches could not write /proc/sys/vm/drop_caches", key, u.last("Service", key))
		}
	}
	if user := u.last("Service", "User"); user != "" && user != "root" && user != "0" {
		t.Errorf("User=%s: dropping caches needs root", user)
	}
	if c := s["CapabilityBoundingSet"]; len(c) > 0 && !strings.Contains(strings.Join(c, " "), "CAP_SYS_ADMIN") {
		t.Errorf("CapabilityBoundingSet=%v lacks CAP_SYS_ADMIN, which writing drop_caches needs", c)
	}
	for _, key := range []string{"ReadOnlyPaths", "InaccessiblePaths"} {
		for _, v := range s[key] {
			for _, p := range strings.Fields(v) {
				p = strings.TrimLeft(p, "-+")
				if p == "/proc" || p == "/proc/sys" || strings.HasPrefix("/proc/sys/vm/drop_caches", p+"/") || p == "/proc/sys/vm/drop_caches" {
					t.Errorf("%s=%s hides /proc/sys/vm/drop_caches", key, v)
				}
			}
		}
	}
	if f := strings.Join(s["SystemCallFilter"], " "); f != "" && !strings.Contains(f, "@system-service") && !strings.Contains(f, "@sync") {
		t.Errorf("SystemCallFilter=%s may forbid sync", f)
	}
	if r := u.last("Service", "Restart"); r != "on-failure" {
		t.Errorf("Restart=%q, want on-failure", r)
	}
	if !slices.ContainsFunc(s["LoadCredential"], func(v string) bool { return strings.HasPrefix(v, "token:") }) {
		t.Errorf("no LoadCredential=token:...: the token must come as a credential")
	}
	if !strings.Contains(u.last("Service", "ExecStart"), "--token-file ${CREDENTIALS_DIRECTORY}/token") {
		t.Errorf("ExecStart does not read the token credential: %s", u.last("Service", "ExecStart"))
	}
}

// ExecStart, expanded with the unit's Environment= and the credentials
// directory, starts an agent; by default it listens for other machines.
// A controller runs a metadata phase on it (dropping caches first, as
// root).
func TestSystemdUnitRunsAgent(t *testing.T) {
	t.Parallel()
	u := readUnit(t, unitPath(t))
	env := map[string]string{}
	for _, e := range u["Service"]["Environment"] {
		for _, kv := range strings.Fields(e) {
			k, v, _ := strings.Cut(strings.Trim(kv, `"`), "=")
			env[k] = v
		}
	}
	argv := execArgs(u.last("Service", "ExecStart"), env)
	if listen := flagValue(argv, "--listen"); listen != ":7761" {
		t.Errorf("by default the agent listens on %q, want :7761 (every address)", listen)
	}
	// As /etc/storbench/agent.env would: a loopback port for the test.
	env["STORBENCH_LISTEN"] = "127.0.0.1:0"
	creds := t.TempDir()
	tokenName, _, _ := strings.Cut(u["Service"]["LoadCredential"][0], ":")
	writeFile(t, creds, tokenName, "unit-test-token-0123456789abcdef\n", 0o400)
	env["CREDENTIALS_DIRECTORY"] = creds
	argv = execArgs(u.last("Service", "ExecStart"), env)
	argv[0] = testutil.StorbenchBin(t)
	addr := startAgent(t, argv, baseEnv())

	tmp := t.TempDir()
	ctrl := []string{testutil.StorbenchBin(t), "run", writeFile(t, tmp, "suite.yaml", tinyMD, 0o644), "--agents", addr,
		"--token-file", filepath.Join(creds, tokenName), "--results", filepath.Join(tmp, "results"), "--directory", tmp}
	if os.Geteuid() == 0 {
		ctrl = append(ctrl, "--drop-caches")
	}
	out, code := runController(t, ctrl, baseEnv())
	if code != 0 {
		t.Fatalf("controller: exit %d\n%s", code, out)
	}
	completedRun(t, filepath.Join(tmp, "results"))
}
