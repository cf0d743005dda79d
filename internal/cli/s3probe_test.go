package cli

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/s3test"
)

// What versitygw (with versioning) takes, as storbench s3 probe says it:
// a table a user reads, the same results as JSON, and nothing left on the
// server. The must-show of issue 39 for versitygw; radosgw's is
// TestRadosgwCommands (internal/engine/s3).
func TestS3ProbeSaysWhatVersityGWTakes(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{Versioning: true})
	st, out := s3State(srv)
	if err := Execute(context.Background(), st, []string{"s3", "probe"}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	text := out.String()
	want := map[string]string{
		"list v2": "works", "list v1": "works", "metadata in listings": "ignored", "multipart": "works",
		"conditional writes": "works", "SSE-S3": "ignored", "SSE-C": "not tried", "storage class STANDARD_IA": "ignored",
		"checksum CRC32C in a trailer": "works", "checksum SHA256 in a part's header": "works",
		"versioning": "works", "object lock": "works",
	}
	if !strings.HasPrefix(text, "S3 probe of "+srv.Endpoint+" (Server: VERSITYGW): ") {
		t.Errorf("first line:\n%s", text)
	}
	for name, result := range want {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` +` + result + `\b`).MatchString(text) {
			t.Errorf("the table lacks %q %s:\n%s", name, result, text)
		}
	}
	out.Reset()
	if err := Execute(context.Background(), st, []string{"s3", "probe", "--json"}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var p model.Probe
	if err := json.Unmarshal([]byte(out.String()), &p); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, f := range p.Features {
		got[f.Name] = f.Result
	}
	for name, result := range want {
		if got[name] != result {
			t.Errorf("--json: %s is %q, want %q", name, got[name], result)
		}
	}
	if len(p.Features) != 20 || p.Endpoint != srv.Endpoint || p.Server != "VERSITYGW" {
		t.Errorf("--json: %d features, endpoint %q, server %q", len(p.Features), p.Endpoint, p.Server)
	}
	if left := bucketNames(t, independent(t, srv.Endpoint)); len(left) != 0 {
		t.Errorf("the probes left buckets %v", left)
	}
}

// --probe on a run prints the probe's table first, and run.json keeps it
// in the run's fingerprint.
func TestS3RunWithProbe(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	st, out := s3State(srv)
	dir := t.TempDir()
	if err := Execute(context.Background(), st, []string{"s3", "put", "--probe", "--obj.size", "4KiB", "--concurrent", "2",
		"--duration", "500ms", "--results", dir, "--bucket", "probed", "--no-catalog"}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.HasPrefix(out.String(), "S3 probe of "+srv.Endpoint) {
		t.Errorf("the run does not begin with the probe:\n%s", out)
	}
	info, err := results.ReadRunInfo(onlyFolder(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	fp := info.Fingerprint
	if fp == nil || fp.Probe == nil || !fp.Probe.Works("checksum CRC32 in a trailer") || fp.Probe.Works("versioning") || fp.S3Server != "VERSITYGW" {
		t.Errorf("run.json's fingerprint: %+v", fp)
	}
}

// A probe that cannot be made is one line, exit 2, and writes nothing.
func TestS3ProbeBadInput(t *testing.T) {
	t.Parallel()
	keys := map[string]string{"STORBENCH_ACCESS_KEY": "a", "STORBENCH_SECRET_KEY": "b"}
	for _, c := range []struct {
		args []string
		env  map[string]string
		want []string
	}{
		{[]string{"s3", "probe"}, keys, []string{"no S3 endpoint", "--host"}},
		{[]string{"s3", "probe", "--host", "127.0.0.1:1"}, keys, []string{"cannot reach 127.0.0.1:1", "connection refused"}},
		{[]string{"s3", "probe", "--host", "127.0.0.1:1"}, nil, []string{"no credentials", "--access-key"}},
		{[]string{"s3", "probe", "--host", "127.0.0.1:1", "--bucket", "b"}, keys, []string{"unknown flag: --bucket"}},
	} {
		st, out := testState()
		st.Getenv = func(k string) string { return c.env[k] }
		err := Execute(context.Background(), st, c.args)
		if err == nil || ExitCode(err) != ExitUsage || strings.Contains(err.Error(), "\n") || out.String() != "" {
			t.Errorf("%v: got %v (exit %d), output %q; want one line, exit 2, nothing printed", c.args, err, ExitCode(err), out)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %q does not say %q", c.args, err, w)
			}
		}
	}
}
