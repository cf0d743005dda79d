package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// values writes a YAML list of n numbers.
func values(n int) string {
	v := make([]string, n)
	for i := range v {
		v[i] = fmt.Sprint(i + 1)
	}
	return "[" + strings.Join(v, ", ") + "]"
}

// A suite that expands past the phase limit is refused, counted before
// anything is built: before, iterations: 222222222 or a two-million-point
// matrix grew memory until the machine ran out.
func TestSuiteExpansionIsBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ name, suite, want string }{
		{"just over the limit", "phases:\n  - md: {items: 10}\n    iterations: 10001\n", "10,001 phases"},
		{"over the limit in total", "phases:\n  - md: {items: 10}\n    iterations: 6000\n  - md: {items: 20}\n    iterations: 6000\n", "12,000 phases"},
		{"fio job files count", "phases:\n  - fio: {workload: default}\n    iterations: 2000\n", "12,000 phases"},
		{"huge iterations", "phases:\n  - md: {items: 10}\n    iterations: 222222222\n", "222,222,222 phases"},
		{"two-million-point matrix", "phases:\n  - md: {items: 10}\n    matrix: {items: " + values(2000) + ", branch: " + values(1000) + "}\n", "2,000,000 phases"},
		{"overflowing matrix", "phases:\n  - md: {items: 10}\n    iterations: 9000000000000000000\n    matrix: {items: " + values(1000) + ", branch: " + values(1000) + ", depth: " + values(1000) + "}\n", "more than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, out := testState()
			_, err := runSuite(context.Background(), st, RunOptions{Dir: dir, DryRun: true, CoVWarn: 5}, writeSuite(t, c.suite))
			if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "at most 10,000 phases") {
				t.Fatalf("want a usage error saying %q and the limit, got exit %d: %v\n%.500s", c.want, ExitCode(err), err, out)
			}
		})
	}
	// At the limit, the suite expands.
	st, out := testState()
	if _, err := runSuite(context.Background(), st, RunOptions{Dir: dir, DryRun: true, CoVWarn: 5},
		writeSuite(t, "phases:\n  - md: {items: 10}\n    iterations: 100\n    matrix: {items: "+values(100)+"}\n")); err != nil {
		t.Fatalf("10,000 phases refused: %v", err)
	}
	if !strings.Contains(out.String(), "10000 phases") {
		t.Errorf("dry run:\n%.300s", out)
	}
}

// md phases run until their items are done: the dry run gives them an
// estimate from a stated model instead of 0 s, and --max-duration refuses
// an md suite estimated longer.
func TestMdPhasesAreEstimated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, out := testState()
	s := writeSuite(t, "dir: "+dir+"\nphases:\n  - md: {items: 100000, iterations: 3}\n  - md: {items: 10000, files_only: true, rename: true, stonewall: 2s}\n")
	if _, err := runSuite(context.Background(), st, RunOptions{DryRun: true, CoVWarn: 5}, s); err != nil {
		t.Fatal(err)
	}
	// 100,000 items x 8 operations (mdtest's, directory rename included) x
	// 3 iterations at 1,000 op/s per worker; then 10,000 files x 5
	// operations, the create cut to 2 s by the stonewall.
	text := out.String()
	for _, want := range []string{"~40m0s (estimated)", "~42s (estimated)", "estimated duration: 40m42s", "1,000 operations per second per worker"} {
		if !strings.Contains(text, want) {
			t.Errorf("dry run lacks %q:\n%s", want, text)
		}
	}
	st, out = testState()
	results := t.TempDir()
	_, err := runSuite(context.Background(), st, RunOptions{MaxDuration: "1m", Results: results, CoVWarn: 5},
		writeSuite(t, "dir: "+filepath.Join(dir, "missing")+"\nphases:\n  - md: {items: 1000000}\n"))
	if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "over --max-duration 1m0s") {
		t.Fatalf("want the md suite refused by --max-duration, got %v\n%s", err, out)
	}
}

// A signal ends every step before the run: expansion, validation. The
// command line's signals cancel this context (cmd/storbench).
func TestSignalEndsExpansionAndValidation(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	s := writeSuite(t, "phases:\n  - md: {items: 10}\n    iterations: 1000\n")
	for _, dry := range []bool{true, false} {
		st, out := testState()
		results := t.TempDir()
		_, err := runSuite(ctx, st, RunOptions{Dir: dir, DryRun: dry, Results: results, CoVWarn: 5}, s)
		if ExitCode(err) != ExitInterrupted || !strings.Contains(err.Error(), "interrupted") {
			t.Errorf("dry run %v: want exit %d, got %d: %v\n%.300s", dry, ExitInterrupted, ExitCode(err), err, out)
		}
		if ents, _ := os.ReadDir(results); len(ents) != 0 {
			t.Error("a results folder was made")
		}
	}
	// Validation, for commands that build their phases without a suite.
	st, _ := testState()
	results := t.TempDir()
	_, err := runMd(ctx, st, MdOptions{Dir: dir, Items: 10, Iterations: 1, Branch: 1, WriteBytes: "0", ReadBytes: "0", Results: results}, nil)
	if ExitCode(err) != ExitInterrupted {
		t.Errorf("md: want exit %d, got %d: %v", ExitInterrupted, ExitCode(err), err)
	}
	if ents, _ := os.ReadDir(results); len(ents) != 0 {
		t.Error("a results folder was made")
	}
}

// A dry run contacts nothing, so it plans s3 phases without an endpoint or
// keys and lists what is still missing.
func TestDryRunPlansS3WithoutEndpoint(t *testing.T) {
	t.Parallel()
	st, out := testState()
	s := writeSuite(t, "phases:\n  - s3: {op: get, duration: 30s}\n  - s3: {op: put, duration: 10s}\n")
	if _, err := runSuite(context.Background(), st, RunOptions{DryRun: true, CoVWarn: 5}, s); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	text := out.String()
	for _, want := range []string{"2 phases", "s3-get", "s3-put", "estimated duration: 40s",
		"note: s3 phases have no S3 endpoint yet: set STORBENCH_HOST or host: in the suite's s3 block",
		"note: s3 phases have no keys yet: set STORBENCH_ACCESS_KEY and STORBENCH_SECRET_KEY"} {
		if !strings.Contains(text, want) {
			t.Errorf("dry run lacks %q:\n%s", want, text)
		}
	}
	// A real run still refuses the missing endpoint.
	st, _ = testState()
	if _, err := runSuite(context.Background(), st, RunOptions{Results: t.TempDir(), CoVWarn: 5}, s); ExitCode(err) != ExitUsage {
		t.Errorf("a run without endpoint: %v", err)
	}
}
