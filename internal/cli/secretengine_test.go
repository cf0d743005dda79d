package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
)

// vaultVar is the secret variable the vault engine declares: no file
// outside this one names it.
const vaultVar = "STORBENCH_TEST_VAULT_KEY"

// vaultEngine is an engine that lives in this test file only and reads a
// secret of its own (Info.Environment): a phase names the SHA-256 of the
// key it must be given, and its one operation, unlock, succeeds only when
// the engine was handed that key (Env.Secrets), where it runs.
type vaultEngine struct{ engine.Base }

type vaultParams struct {
	SHA256 string `json:"sha256"`
}

func (vaultEngine) Info() engine.Info {
	return engine.Info{RateUnit: "unlock/s", ParamKeys: engine.JSONKeys(vaultParams{}), Environment: []engine.Var{{Name: vaultVar, Secret: true}}}
}

func (vaultEngine) Prepare(_ context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	var vp vaultParams
	if err := engine.DecodeStrict(p.Params, &vp); err != nil {
		return nil, err
	}
	key := env.Secrets.Get(vaultVar)
	if key.Empty() {
		return nil, fmt.Errorf("vault: no %s on %s", vaultVar, env.Host)
	}
	if sum := sha256.Sum256([]byte(key.Reveal())); hex.EncodeToString(sum[:]) != vp.SHA256 {
		return nil, fmt.Errorf("vault: %s on %s is not the key the phase names", vaultVar, env.Host)
	}
	return &oneOpPhase{host: env.Host, op: "unlock"}, nil
}

// oneOpPhase is a test engine's phase: one operation, op, of 1 ms, at
// the start.
type oneOpPhase struct{ host, op string }

func (p *oneOpPhase) Run(ctx context.Context, startAt time.Time, _ engine.LiveFunc) (*engine.HostResult, error) {
	if err := engine.WaitUntil(ctx, startAt); err != nil {
		return nil, engine.Interrupted(err)
	}
	rec := record.NewRecorder([]string{p.op}, false)
	start := time.Now()
	rec.Op(0).Record(int64(time.Millisecond), 0)
	st := rec.Stats(0, p.op)
	st.StartNs, st.EndNs = start.UnixNano(), time.Now().UnixNano()
	return &engine.HostResult{Host: p.host, Ops: []record.OpStats{st}}, nil
}

func (*oneOpPhase) Cleanup(context.Context) error { return nil }

// A secret an engine declares (not the command line) reaches the engine
// wherever its phase runs, and nowhere else: in-process from the
// controller's environment, on two agents the ssh launcher started (on
// their stdin, the process's own environment holding no key), and on two
// mpiexec ranks (stdin again: mpiexec's environment, which it passes to
// every rank, has the variable taken out). The key is in no results file,
// no output, no ssh command line and not in mpiexec's environment. No
// code outside this file names the variable.
func TestEngineDeclaredSecretCarried(t *testing.T) {
	t.Setenv(envProbeAgent, "1") // for the agents started below
	const key = "VKsbVault7Secret-Zq9"
	sum := sha256.Sum256([]byte(key))
	suiteFile := filepath.Join(t.TempDir(), "suite.yaml")
	yaml := "name: vault\nphases:\n  - name: open\n    vault: {sha256: " + hex.EncodeToString(sum[:]) + "}\n"
	if err := os.WriteFile(suiteFile, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	// runVault runs the suite in-process with getenv as the controller's
	// environment and returns its output, failing unless every host
	// unlocked.
	runVault := func(t *testing.T, getenv func(string) string, hosts int, args ...string) (string, string) {
		t.Helper()
		st, buf := testState()
		st.Engines = probeEngines()
		st.Getenv = getenv
		res := t.TempDir()
		err := Execute(t.Context(), st, append([]string{"run", suiteFile, "--results", res, "-vvv"}, args...))
		if err != nil {
			t.Fatalf("run: %v\n%s", err, buf)
		}
		ents, _ := os.ReadDir(res)
		if len(ents) != 1 {
			t.Fatalf("want one results folder: %v", ents)
		}
		b, err := os.ReadFile(filepath.Join(res, ents[0].Name(), "summary.json"))
		// Each host's result: its name, then its unlock.
		unlocked := regexp.MustCompile(`"host": "[^"]+",\s*"start_ns": \d+,\s*"end_ns": \d+,\s*"ops": \[\s*\{\s*"op": "unlock"`).FindAllString(string(b), -1)
		if err != nil || len(unlocked) != hosts {
			t.Fatalf("summary.json does not show unlock on %d hosts: %v\n%s", hosts, err, b)
		}
		return buf.String(), res
	}
	check := func(t *testing.T, dir string, texts map[string]string) {
		t.Helper()
		for _, l := range leaks(dir, texts, []string{key}) {
			t.Error(l)
		}
	}
	envWith := func(kv map[string]string) func(string) string {
		return func(k string) string {
			if v, ok := kv[k]; ok {
				return v
			}
			return os.Getenv(k)
		}
	}

	t.Run("in-process", func(t *testing.T) {
		out, res := runVault(t, envWith(map[string]string{vaultVar: key}), 1)
		check(t, res, map[string]string{"output": out})
	})
	t.Run("--ssh: on the agents' stdin", func(t *testing.T) {
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("the ssh stand-in needs python3")
		}
		fake, err := filepath.Abs("../cluster/testdata/fake-ssh")
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		pathDir, capture, sshLog := filepath.Join(dir, "bin"), filepath.Join(dir, "stdin"), filepath.Join(dir, "ssh.log")
		_ = os.MkdirAll(pathDir, 0o755)
		wrapper := "#!/bin/sh\ncase \"$*\" in\n*' agent --listen '*) tee -a " + capture + " | python3 " + fake + " \"$@\";;\n*) exec python3 " + fake + " \"$@\";;\nesac\n"
		if err := os.WriteFile(filepath.Join(pathDir, "ssh"), []byte(wrapper), 0o755); err != nil {
			t.Fatal(err)
		}
		// The key is in the controller's environment alone: the agents'
		// processes (the stand-in's children) have none of their own.
		t.Setenv("PATH", pathDir+":"+os.Getenv("PATH"))
		t.Setenv("FAKESSH_LOG", sshLog)
		t.Setenv("FAKESSH_HOMES", filepath.Join(dir, "homes"))
		out, res := runVault(t, envWith(map[string]string{vaultVar: key}), 2, "--ssh", "--agents", "nodeA:"+freeLoopbackPort(t)+",nodeB:"+freeLoopbackPort(t))
		sent, _ := os.ReadFile(capture)
		if strings.Count(string(sent), vaultVar+"="+key+"\n") != 2 {
			t.Errorf("the key did not reach both agents on ssh's stdin:\n%s", sent)
		}
		calls, _ := os.ReadFile(sshLog)
		check(t, res, map[string]string{"output": out, "ssh command lines": string(calls)})
	})
	t.Run("--launcher mpiexec: out of its environment, on stdin", func(t *testing.T) {
		envDump := filepath.Join(t.TempDir(), "mpiexec.env")
		wrapper, capture, hostfile := mpiexecWrapper(t, "env >> "+envDump)
		// Here the key is in the controller's process environment, which
		// mpiexec would pass to every rank.
		t.Setenv(vaultVar, key)
		out, res := runVault(t, envWith(map[string]string{"STORBENCH_MPIEXEC": wrapper}), 2, "--launcher", "mpiexec", "--hostfile", hostfile)
		sent, _ := os.ReadFile(capture)
		if !strings.Contains(string(sent), vaultVar+"="+key+"\n") {
			t.Errorf("the key did not reach the ranks on mpiexec's stdin:\n%s", sent)
		}
		env, _ := os.ReadFile(envDump)
		if !strings.Contains(string(env), envProbeAgent+"=1") {
			t.Fatalf("the wrapper did not record mpiexec's environment:\n%s", env)
		}
		check(t, res, map[string]string{"output": out, "mpiexec's environment": string(env)})
	})
}
