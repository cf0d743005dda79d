package catalog

import (
	"strings"
	"testing"
	"time"
)

// Ages count back from now, up to a century; past it they are refused in
// one line, never wrapped around: 200000d returned every run (until) or
// became 2063 (since), 106752d became 2319.
func TestQueryAgesInRange(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		term string
		want time.Time
	}{
		{"since=30d", now.Add(-30 * 24 * time.Hour)},
		{"until=12h", now.Add(-12 * time.Hour)},
		{"since=36500d", now.Add(-36500 * 24 * time.Hour)},
		{"until=0d", now},
	} {
		q, err := ParseQuery([]string{c.term}, now)
		got := q.Since
		if strings.HasPrefix(c.term, "until") {
			got = q.Until
		}
		if err != nil || !got.Equal(c.want) {
			t.Errorf("%s: %v, %v; want %v", c.term, got, err, c.want)
		}
	}
	for _, term := range []string{"until=200000d", "since=200000d", "until=106752d", "since=36501d", "since=876001h",
		"until=5000000000h", "since=99999999999999999999d"} {
		q, err := ParseQuery([]string{term}, now)
		if err == nil || !strings.Contains(err.Error(), "out of range") || !strings.Contains(err.Error(), "36500d") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %+v, %v; want it refused as out of range", term, q, err)
		}
	}
}

// A pattern asks for a value (issue 36): s3_server=* lists the runs that
// had an S3 server, not also the fio and md runs that recorded none.
func TestPatternNeedsAValue(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		c := open(t, b.create(t))
		root := t.TempDir()
		for i, srv := range []string{"VERSITYGW", "", "MinIO", ""} {
			if _, err := c.Add(t.Context(), writeGen(t, root, genRun{i: i, name: "x", start: t0.Add(time.Duration(i) * time.Hour), seed: 1, s3server: srv})); err != nil {
				t.Fatal(err)
			}
		}
		for term, want := range map[string]int{"s3_server=*": 2, "s3_server=V*": 1, "s3_server=*O": 1, "mount=*": 4, "kernel=6.*": 4} {
			q, err := ParseQuery([]string{term}, t0)
			if err != nil {
				t.Fatal(err)
			}
			runs, err := c.Runs(t.Context(), q)
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != want {
				t.Errorf("%s matched %d runs, want %d", term, len(runs), want)
			}
		}
	})
}
