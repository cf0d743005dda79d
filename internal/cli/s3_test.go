package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/s3test"
)

func s3State(srv *s3test.Server) (*State, *strings.Builder) {
	st, _ := testState()
	var out strings.Builder
	st.Stdout, st.Stderr = &out, &out
	env := map[string]string{"STORBENCH_HOST": srv.Endpoint, "STORBENCH_ACCESS_KEY": s3test.AccessKey, "STORBENCH_SECRET_KEY": s3test.SecretKey}
	st.Getenv = func(k string) string { return env[k] }
	return st, &out
}

func TestS3GetCommandEndToEnd(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	st, out := s3State(srv)
	dir := t.TempDir()
	err := Execute(context.Background(), st, []string{"s3", "get", "--obj.size", "4KiB", "--objects", "50",
		"--concurrent", "4", "--duration", "1500ms", "--results", dir, "--bucket", "clibucket"})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	text := out.String()
	for _, s := range []string{"Operation: GET", "* Average:", "Throughput, split into", "First byte: Avg:"} {
		if !strings.Contains(text, s) {
			t.Errorf("output lacks %q:\n%s", s, text)
		}
	}
	folder := onlyFolder(t, dir)
	sum, err := results.ReadSummary(folder)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Phases) != 1 || len(sum.Phases[0].Ops) != 1 || sum.Phases[0].Ops[0].Ops == 0 || sum.Phases[0].Ops[0].TTFB == nil {
		t.Fatalf("summary: %+v", sum.Phases)
	}
	// The secret key is nowhere in the results folder or the output.
	filepath.Walk(folder, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			data, _ := os.ReadFile(p)
			if strings.Contains(string(data), s3test.SecretKey) {
				t.Errorf("%s holds the secret key", p)
			}
		}
		return nil
	})
	if strings.Contains(text, s3test.SecretKey) {
		t.Error("the output shows the secret key")
	}
}

func TestS3CommandBadInput(t *testing.T) {
	t.Parallel()
	st, out := testState()
	for _, args := range [][]string{
		{"s3", "get"}, // no host
		{"s3", "get", "--host", "127.0.0.1:9", "--access-key", "a", "--secret-key", "b", "--obj.size", "0"},
		{"s3", "put", "--host", "h{1...5000}:9000", "--access-key", "a", "--secret-key", "b"},
		{"s3", "get", "--host", "h:9000", "--access-key", "a", "--secret-key", "b", "--syncstart", "25:00"},
	} {
		err := Execute(context.Background(), st, args)
		if err == nil || ExitCode(err) != ExitUsage {
			t.Errorf("%v: got %v (exit %d), want a usage error\n%s", args, err, ExitCode(err), out)
		}
	}
}

// --full keeps every request in the results folder, where analyze finds the
// same number of requests the summary counted.
func TestS3FullKeepsEveryRequest(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	st, out := s3State(srv)
	dir := t.TempDir()
	err := Execute(context.Background(), st, []string{"s3", "put", "--obj.size", "4KiB", "--concurrent", "2",
		"--duration", "1s", "--results", dir, "--bucket", "fullbucket", "--full"})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "01-s3-put", "hosts", "*", "benchdata.tsv.zst"))
	if len(files) != 1 {
		t.Fatalf("no benchdata in the results folder: %v", files)
	}
	sum, err := results.ReadSummary(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(files[0])))))
	if err != nil {
		t.Fatal(err)
	}
	st2, out2 := testState()
	if err := Execute(context.Background(), st2, []string{"analyze", "--json", files[0]}); err != nil {
		t.Fatalf("analyze: %v\n%s", err, out2)
	}
	var a struct {
		Requests uint64 `json:"requests"`
	}
	_ = json.Unmarshal([]byte(out2.String()), &a)
	op := sum.Phases[0].Ops[0]
	if a.Requests == 0 || a.Requests != op.Ops+op.Errors {
		t.Errorf("benchdata holds %d requests, the summary counted %d", a.Requests, op.Ops+op.Errors)
	}
	st3, _ := s3State(srv)
	if err := Execute(context.Background(), st3, []string{"s3", "put", "--full", "--benchdata", "x.zst", "--duration", "1s"}); ExitCode(err) != ExitUsage {
		t.Errorf("--full with --benchdata: %v", err)
	}
}

// --syncstart hh:mm is today's time; one that has passed is refused,
// naming the time now, unless tomorrow's comes within the hour (clients
// started just before midnight for a start just after). Before, 00:00 at
// noon waited twelve hours for the next midnight.
func TestSyncStartPassedIsRefused(t *testing.T) {
	t.Parallel()
	day := func(h, m int) time.Time { return time.Date(2026, 11, 25, h, m, 0, 0, time.Local) }
	for _, c := range []struct {
		at   string
		now  time.Time
		want time.Time // zero: refused
	}{
		{"13:00", day(12, 0), day(13, 0)},
		{"00:00", day(12, 0), time.Time{}},
		{"11:59", day(12, 0), time.Time{}},
		{"00:10", day(23, 30), day(24, 10)},
		{"00:00", day(22, 11), time.Time{}},
	} {
		got, err := syncStart(c.at, c.now)
		switch {
		case c.want.IsZero() && (err == nil || !strings.Contains(err.Error(), "passed") || !strings.Contains(err.Error(), c.now.Format("15:04"))):
			t.Errorf("%s at %s: %v, %v; want it refused naming the time now", c.at, c.now.Format("15:04"), got, err)
		case !c.want.IsZero() && (err != nil || !got.Equal(c.want)):
			t.Errorf("%s at %s: %v, %v; want %v", c.at, c.now.Format("15:04"), got, err, c.want)
		}
	}
}
