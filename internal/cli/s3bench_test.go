package cli

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/s3test"
)

// Bad size distributions, ranges that do not fit, unknown local addresses
// and malformed KEY=VALUE options: one line naming what to fix, exit 2,
// nothing written.
func TestS3BenchBadInput(t *testing.T) {
	t.Parallel()
	st, out := testState()
	base := []string{"--host", "127.0.0.1:9", "--access-key", "a", "--secret-key", "b"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"s3", "put", "--obj.size", "4KiB:half,1MiB:50"}, `s3: --obj.size "4KiB:half,1MiB:50": weight "half" of bucket 4KiB is not a number`},
		{[]string{"s3", "put", "--obj.size", "4KiB:0,1MiB:0"}, `s3: --obj.size "4KiB:0,1MiB:0": the weights add up to 0: no size could be drawn`},
		{[]string{"s3", "get", "--obj.size", "4KiB", "--range-size", "8KiB"}, "s3: --range-size 8KiB is larger than the smallest object (4KiB): ranges must fit in every object"},
		{[]string{"s3", "mixed", "--obj.size", "4KiB,1MiB", "--range-size", "64KiB"}, "s3: --range-size 64KiB is larger than the smallest object (4KiB): ranges must fit in every object"},
		{[]string{"s3", "get", "--bind", "127.0.0.1,192.0.2.77"}, "s3: --bind 192.0.2.77: not an address of this machine (cannot assign requested address)"},
		{[]string{"s3", "put", "--add-metadata", "team"}, `--add-metadata "team": want KEY=VALUE`},
		{[]string{"s3", "put", "--tag", "a=1", "--tag", "a=2"}, `--tag: key "a" given twice`},
		{[]string{"s3", "put", "--obj.dist", "lognormal", "--obj.mean", "1MiB"}, "s3: --obj.dist lognormal: --obj.sd must be at least 1 byte (for one size, leave --obj.dist out)"},
		{[]string{"s3", "list", "--max-keys", "0"}, "--max-keys 0: zero makes no sense here"},
		{[]string{"s3", "multipart-put", "--disable-multipart"}, "s3: --disable-multipart: multipart-put is multipart uploads"},
	} {
		dir := t.TempDir()
		args := append(append(append([]string{}, tc.args...), base...), "--results", dir)
		err := Execute(context.Background(), st, args)
		if ExitCode(err) != ExitUsage || err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: exit %d, %v\nwant one line containing %s\n%s", tc.args, ExitCode(err), err, tc.want, out)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%v: wrote %d entries into the results folder", tc.args, len(entries))
		}
	}
}

// get with size buckets and --verify, end to end: the output and
// summary.json give GETs per object size class, and nothing failed the
// check.
func TestS3SizeClassesAndVerifyEndToEnd(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	st, out := s3State(srv)
	dir := t.TempDir()
	err := Execute(context.Background(), st, []string{"s3", "get", "--obj.size", "4KiB:50,64KiB:50", "--verify", "--objects", "40",
		"--concurrent", "4", "--duration", "1s", "--results", dir, "--bucket", "sizes"})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	text := out.String()
	for _, s := range []string{"Throughput by object size:", " * <=4KiB: ", " * 4KiB-64KiB: ", "Object sizes: 4KiB:50,64KiB:50"} {
		if !strings.Contains(text, s) {
			t.Errorf("output lacks %q:\n%s", s, text)
		}
	}
	if strings.Contains(text, "Errors:") {
		t.Errorf("verified GETs failed:\n%s", text)
	}
	sum, err := results.ReadSummary(onlyFolder(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	get := sum.Phases[0].Ops[0]
	if sum.SchemaVersion != results.SchemaVersion || len(get.BySize) != 2 || get.BySize[0].Size == nil || get.BySize[0].Ops+get.BySize[1].Ops != get.Ops {
		t.Fatalf("summary by_size: %+v", get.BySize)
	}
}

// A benchmark whose feature the server lacks says so in one line, exits 2
// and leaves nothing behind: retention's versions on versitygw without a
// versioning directory.
func TestS3RetentionWithoutVersioningSupport(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	cl := independent(t, srv.Endpoint)
	st, out := s3State(srv)
	err := Execute(context.Background(), st, []string{"s3", "retention", "--objects", "10", "--concurrent", "2",
		"--duration", "1s", "--results", t.TempDir(), "--bucket", "noversions"})
	if ExitCode(err) != ExitUsage || err == nil || err.Error() != "s3: retention --versions 5: the server does not support bucket versioning (use --versions 1)" {
		t.Errorf("exit %d (%v)\n%s", ExitCode(err), err, out)
	}
	if bs := bucketNames(t, cl); len(bs) != 0 {
		t.Errorf("buckets left: %v", bs)
	}
	// With one version it runs: versitygw has object lock without versions.
	out.Reset()
	err = Execute(context.Background(), st, []string{"s3", "retention", "--versions", "1", "--objects", "10", "--concurrent", "2",
		"--duration", "1s", "--results", t.TempDir(), "--bucket", "oneversion"})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, s := range []string{"Operation: GETRETENTION", "Operation: RETENTION"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
}
