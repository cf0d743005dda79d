package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// analyze --per-second prints a table per operation, one row a second,
// as text, CSV or JSON.
func TestAnalyzePerSecond(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(testResults, "s3-lat-a")
	st, out := testState()
	if err := Execute(context.Background(), st, []string{"analyze", "--per-second", "--op", "GET", dir}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.Contains(text, "Operation GET:") || strings.Contains(text, "Operation PUT:") ||
		!strings.Contains(text, "second  ops  ops/s  throughput  errors     mean      p50      p99    p99.9") {
		t.Errorf("text:\n%s", text)
	}
	if n := len(regexp.MustCompile(`(?m)^ +\d+ +\d+ `).FindAllString(text, -1)); n < 20 {
		t.Errorf("%d rows for a 20-second run:\n%s", n, text)
	}
	st, out = testState()
	if err := Execute(context.Background(), st, []string{"analyze", "--per-second", "--csv", dir}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if lines[0] != "phase,op,second,start_time,ops,ops_per_s,bw_bytes_per_s,errors,hosts,requests,lat_mean_ns,lat_p50_ns,lat_p99_ns,lat_p99_9_ns" ||
		!strings.HasPrefix(lines[1], "s3-mixed,GET,0,") {
		t.Errorf("csv:\n%s", strings.Join(lines[:min(3, len(lines))], "\n"))
	}
	for _, l := range lines[1:] {
		if f := strings.Split(l, ","); f[1] == "STAT" && f[6] != "" {
			t.Errorf("STAT moves no bytes, yet has a byte throughput: %s", l)
		}
	}
	st, out = testState()
	if err := Execute(context.Background(), st, []string{"analyze", "--per-second", "--json", dir}); err != nil {
		t.Fatal(err)
	}
	var a struct {
		Phases []struct {
			Ops []struct {
				Op   string `json:"op"`
				Rows []struct {
					Lat *struct {
						P99 int64 `json:"p99_ns"`
					} `json:"lat"`
				} `json:"rows"`
			} `json:"ops"`
		} `json:"phases"`
	}
	if err := json.Unmarshal([]byte(out.String()), &a); err != nil || len(a.Phases) != 1 || len(a.Phases[0].Ops) != 4 || a.Phases[0].Ops[0].Rows[0].Lat == nil || a.Phases[0].Ops[0].Rows[0].Lat.P99 <= 0 {
		t.Errorf("json (%v):\n%.600s", err, out)
	}
}

// --per-second on something it cannot read: one line, exit 2.
func TestAnalyzePerSecondBadInput(t *testing.T) {
	t.Parallel()
	damaged := copyResults(t, "s3-lat-a")
	file := filepath.Join(damaged, "01-s3-mixed", "hosts", "vm", "latency-seconds.zst")
	if err := os.Truncate(file, 40); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"analyze", "--per-second", filepath.Join(testResults, "..", "s3-mixed.tsv.zst")}, []string{"--per-second", "results folder"}},
		{[]string{"analyze", "--per-second", damaged}, []string{damaged, "host vm", "latency-seconds.zst"}},
		{[]string{"analyze", "--per-second", "--host", "nosuch", filepath.Join(testResults, "s3-lat-a")}, []string{`"nosuch"`}},
	} {
		st, out := testState()
		err := Execute(context.Background(), st, c.args)
		if ExitCode(err) != ExitUsage || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: exit %d (%v), want one line and exit 2\n%s", c.args, ExitCode(err), err, out)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %q does not say %q", c.args, err, w)
			}
		}
	}
}
