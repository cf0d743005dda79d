package s3_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/testutil"
	"github.com/storbench/storbench/internal/testutil/ceph"
)

// commandRun is one storbench process's output and exit code.
type commandRun struct {
	args           []string
	stdout, stderr string
	code           int
}

// rgwCommands runs the storbench binary against a RADOS Gateway, with the
// endpoint and keys in the environment, and keeps every run's output.
type rgwCommands struct {
	t    *testing.T
	bin  string
	env  []string
	runs []commandRun
}

func (rc *rgwCommands) run(args ...string) commandRun {
	rc.t.Helper()
	cmd := exec.Command(rc.bin, args...)
	cmd.Env = rc.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		rc.t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(3 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		rc.t.Fatalf("storbench %s did not end within 3 minutes:\n%s%s", strings.Join(args, " "), out.String(), errb.String())
	}
	r := commandRun{args: args, stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		rc.t.Fatal(err)
	}
	rc.runs = append(rc.runs, r)
	return r
}

// goLogLine is a line the standard library's log package writes with its
// default flags ("2026/11/28 23:04:31 Unsolicited response received on
// idle HTTP channel ..."): never a line of storbench's.
var goLogLine = regexp.MustCompile(`(?m)^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d `)

// What a user of Ceph's RADOS Gateway sees of storbench (issue 39's
// must-show): s3 probe says the trailer checksums are refused and
// versioning works; s3 put --checksum CRC32C is refused in one line,
// exit 2, before any load and with no results folder; the seed's warp
// procedure (examples/warp-mixed.yaml) runs with no error; and no run
// prints a line storbench did not write - before, net/http's
// "Unsolicited response received on idle HTTP channel" came at the top of
// most runs, after the catalog's unsigned HEAD / that radosgw answers
// with a body.
func TestRadosgwCommands(t *testing.T) {
	ceph.Full(t)
	c := ceph.Shared(t, ceph.Options{Gateway: true})
	rc := &rgwCommands{t: t, bin: testutil.StorbenchBin(t), env: append(os.Environ(), "STORBENCH_HOST="+c.Endpoint,
		"STORBENCH_ACCESS_KEY="+s3test.AccessKey, "STORBENCH_SECRET_KEY="+s3test.SecretKey,
		"STORBENCH_CATALOG="+filepath.Join(t.TempDir(), "catalog.db"))}
	t.Run("probe", func(t *testing.T) { rgwProbe(t, rc) })
	t.Run("put --checksum", func(t *testing.T) {
		res := t.TempDir()
		r := rc.run("s3", "put", "--checksum", "CRC32C", "--obj.size", "4KiB", "--duration", "2s", "--results", res)
		want := "storbench: s3: --checksum CRC32C: the server refused an upload carrying it in a trailer (XAmzContentSHA256Mismatch)\n"
		if r.code != 2 || r.stderr != want || strings.Contains(r.stdout, "Operation:") {
			t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant exit 2, stderr %q and no load", r.code, r.stderr, r.stdout, want)
		}
		if left, _ := filepath.Glob(filepath.Join(res, "*")); len(left) != 0 {
			t.Errorf("the refused run left %v", left)
		}
	})
	t.Run("warp-mixed", func(t *testing.T) {
		root, err := s3test.RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		res := t.TempDir()
		r := rc.run("run", filepath.Join(root, "examples", "warp-mixed.yaml"), "--results", res)
		if r.code != 0 {
			t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
		}
		folders, _ := filepath.Glob(filepath.Join(res, "*"))
		sum, err := results.ReadSummary(folders[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range sum.Phases[0].Ops {
			if o.Ops == 0 || o.Errors != 0 {
				t.Errorf("%s: %d requests, %d errors %v", o.Op, o.Ops, o.Errors, o.ErrorKinds)
			}
		}
	})
	t.Run("short runs", func(t *testing.T) {
		for _, op := range []string{"put", "get", "stat", "get"} {
			r := rc.run("s3", op, "--obj.size", "4KiB", "--objects", "20", "--concurrent", "4", "--duration", "1s", "--no-catalog", "--results", t.TempDir())
			if r.code != 0 {
				t.Errorf("s3 %s: exit %d:\n%s%s", op, r.code, r.stdout, r.stderr)
			}
		}
	})
	for _, r := range rc.runs {
		if m := goLogLine.FindString(r.stdout + r.stderr); m != "" || (r.code == 0 && r.stderr != "") {
			t.Errorf("storbench %s printed a line storbench did not write:\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.stdout, r.stderr)
		}
	}
}

// rgwProbe: s3 probe of radosgw 16 says every checksum sent in a trailer
// is refused (XAmzContentSHA256Mismatch), sent in a part's header taken
// and dropped, and versioning and object lock work. (Its JSON is the
// table's rows: TestS3ProbeSaysWhatVersityGWTakes, internal/cli.)
func rgwProbe(t *testing.T, rc *rgwCommands) {
	r := rc.run("s3", "probe")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	rows := []string{`versioning +works`, `object lock +works`, `multipart +works`, `list v2 +works`, `list v1 +works`}
	for _, ck := range []string{"CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"} {
		rows = append(rows, `checksum `+ck+` in a trailer +refused +XAmzContentSHA256Mismatch`,
			`checksum `+ck+` in a part's header +ignored +the object reads back without x-amz-checksum-`+strings.ToLower(ck))
	}
	for _, row := range rows {
		if !regexp.MustCompile(`(?m)^` + row + `$`).MatchString(r.stdout) {
			t.Errorf("the table lacks a row %q:\n%s", row, r.stdout)
		}
	}
}
