package cli

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// The text form is one line per fact, in a fixed order a script can read.
func TestVersionText(t *testing.T) {
	t.Parallel()
	defer func(c string) { Commit = c }(Commit)
	Commit = "0123456789abcdef"
	st, out := testState()
	if err := Execute(context.Background(), st, []string{"version"}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"storbench " + version(),
		"commit: 0123456789abcdef",
		"go: " + runtime.Version(),
		"platform: " + runtime.GOOS + "/" + runtime.GOARCH,
		"cgo: ",
		"race detector: " + onOff(raceBuild),
		"s3 raw syscalls: " + onOff(runtime.GOOS == "linux" && (runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64")),
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q, want %q", i+1, lines[i], w)
		}
	}
}

func TestVersionJSON(t *testing.T) {
	t.Parallel()
	st, out := testState()
	if err := Execute(context.Background(), st, []string{"version", "--json"}); err != nil {
		t.Fatal(err)
	}
	var b map[string]any
	if err := json.Unmarshal([]byte(out.String()), &b); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for k, v := range map[string]any{"version": version(), "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH, "race": raceBuild} {
		if b[k] != v {
			t.Errorf("%s: %v, want %v", k, b[k], v)
		}
	}
	for _, k := range []string{"cgo", "s3_raw_syscalls"} {
		if _, ok := b[k].(bool); !ok {
			t.Errorf("%s: %v, want a boolean", k, b[k])
		}
	}
}

func TestVersionBadInput(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"version", "extra"}, {"version", "--jsn"}} {
		st, out := testState()
		err := Execute(context.Background(), st, args)
		if ExitCode(err) != ExitUsage || strings.Contains(out.String(), "storbench ") {
			t.Errorf("%v: exit %d (%v), output %q", args, ExitCode(err), err, out)
		}
	}
}
