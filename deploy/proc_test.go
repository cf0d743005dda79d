package deploy_test

// Real processes for the deployment tests: the storbench binary built once,
// agents started from the command lines a chart or unit holds, and a
// controller run against them.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/testutil"
)

// repoRoot is the module root, for paths of deploy/ and scripts/.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := s3test.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// baseEnv is the environment of a started process before the chart's or
// unit's own variables: only what finding programs needs, so a key in the
// test's own environment cannot stand in for one the deployment forgot.
func baseEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "TMPDIR=" + os.TempDir()}
}

var listeningRE = regexp.MustCompile(`listening on (\S+) `)

// startAgent runs argv (an agent command line) with env and returns the
// address it listens on; the agent is stopped at the test's end.
func startAgent(t *testing.T, argv, env []string) string {
	t.Helper()
	out := &testutil.Buffer{}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %q: %v", argv, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := listeningRE.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		}
		select {
		case <-done:
			t.Fatalf("agent %q exited: %s", argv, out)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("agent %q did not say where it listens within 30 s: %s", argv, out)
	return ""
}

// runController runs argv to its end (at most 3 minutes) and returns its
// output and exit code.
func runController(t *testing.T, argv, env []string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("controller %q did not finish within 3 minutes: %s", argv, out)
	}
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("controller %q: %v", argv, err)
		}
		code = ee.ExitCode()
	}
	return string(out), code
}

// completedRun checks that resultsRoot holds one results folder whose run
// completed, and returns its summary.json decoded.
func completedRun(t *testing.T, resultsRoot string) map[string]any {
	t.Helper()
	runs, err := filepath.Glob(filepath.Join(resultsRoot, "*", "run.json"))
	if err != nil || len(runs) != 1 {
		t.Fatalf("want one results folder in %s, found %v (%v)", resultsRoot, runs, err)
	}
	var run struct {
		Status string `json:"status"`
	}
	readJSON(t, runs[0], &run)
	if run.Status != "completed" {
		t.Fatalf("%s: status %q, want completed", runs[0], run.Status)
	}
	var sum map[string]any
	readJSON(t, filepath.Join(filepath.Dir(runs[0]), "summary.json"), &sum)
	return sum
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// phaseHosts returns, per phase name in summary.json, the hosts that ran it.
func phaseHosts(t *testing.T, sum map[string]any) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	phases, _ := sum["phases"].([]any)
	for _, p := range phases {
		pm, _ := p.(map[string]any)
		name, _ := pm["name"].(string)
		per, _ := pm["per_host"].([]any)
		hosts := []string{}
		for _, h := range per {
			hm, _ := h.(map[string]any)
			if e, _ := hm["error"].(string); e != "" {
				t.Errorf("phase %s host %v: %s", name, hm["host"], e)
			}
			hosts = append(hosts, fmt.Sprint(hm["host"]))
		}
		out[name] = hosts
	}
	if len(out) == 0 {
		t.Fatalf("summary.json names no phase: %v", sum)
	}
	return out
}

// replaceFlag returns args with the value after flag replaced; the flag
// must be there exactly once.
func replaceFlag(t *testing.T, args []string, flag, value string) []string {
	t.Helper()
	out := append([]string(nil), args...)
	at := -1
	for i, a := range out {
		if a == flag {
			if at >= 0 || i+1 >= len(out) {
				t.Fatalf("%s: want it once with a value in %q", flag, args)
			}
			at = i
		}
	}
	if at < 0 {
		t.Fatalf("%s is missing from %q", flag, args)
	}
	out[at+1] = value
	return out
}

// flagValue returns the value after flag in args, or "" without it.
func flagValue(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
	}
	return ""
}

// writeFile writes content into a new file under dir and returns its path.
func writeFile(t *testing.T, dir, name, content string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	return p
}
