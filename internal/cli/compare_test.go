package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

var testResults = filepath.Join("..", "..", "testdata", "results")

// fio-b's randrw p50 is 7.6% above fio-a's, outside the percentile's
// confidence intervals: slower beyond a 5% threshold, not beyond 10%.
func TestCompareFailCode(t *testing.T) {
	t.Parallel()
	a, b := filepath.Join(testResults, "fio-a"), filepath.Join(testResults, "fio-b")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"compare", a, b}, 0},
		{[]string{"compare", "--fail-code", "3", a, b}, 3},
		{[]string{"compare", "--fail-code", "3", "--threshold", "10", a, b}, 0},
		{[]string{"compare", "--fail-code", "3", a, filepath.Join(testResults, "md-a")}, ExitUsage},
		{[]string{"compare", a, "/nonexistent"}, ExitUsage},
	} {
		st, out := testState()
		err := Execute(context.Background(), st, tc.args)
		if got := ExitCode(err); got != tc.code {
			t.Errorf("%v: exit %d (%v), want %d\n%s", tc.args, got, err, tc.code, out)
		}
		if tc.code == 3 && !strings.Contains(out.String(), "slower") {
			t.Errorf("%v: output does not say what got slower:\n%s", tc.args, out)
		}
	}
}

func TestAnalyzeCSVColumns(t *testing.T) {
	t.Parallel()
	st, out := testState()
	if err := Execute(context.Background(), st, []string{"analyze", "--csv", "--op", "GET", filepath.Join(testResults, "..", "s3-mixed.tsv.zst")}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if lines[0] != "index,op,host,duration_s,bytes,full_ops,partial_ops,ops_started,ops_ended,errors,mb_per_sec,ops_ended_per_sec,objs_per_sec,start_time,end_time" {
		t.Errorf("header %q", lines[0])
	}
	if len(lines) < 4 || !strings.HasPrefix(lines[1], "0,GET,") {
		t.Errorf("rows:\n%s", out)
	}
	st, out = testState()
	err := Execute(context.Background(), st, []string{"analyze", "--op", "NOSUCH", filepath.Join(testResults, "..", "s3-mixed.tsv.zst")})
	if ExitCode(err) != ExitUsage {
		t.Errorf("unknown op: %v\n%s", err, out)
	}
}

// --fail-code is an exit status: the shell keeps its low 8 bits (256 would
// exit 0 although figures got slower) and gives 126 and above meanings of
// its own, so only 1-125 are accepted; anything else is refused before
// anything is read.
func TestCompareFailCodeRange(t *testing.T) {
	t.Parallel()
	a, b := filepath.Join(testResults, "fio-a"), filepath.Join(testResults, "fio-b")
	for _, code := range []string{"256", "126", "127", "255", "-1", "99999999999"} {
		st, out := testState()
		err := Execute(context.Background(), st, []string{"compare", "--fail-code", code, a, b})
		if got := ExitCode(err); got != ExitUsage {
			t.Errorf("--fail-code %s: exit %d (%v), want %d", code, got, err, ExitUsage)
			continue
		}
		if !strings.Contains(err.Error(), "--fail-code") || strings.Contains(err.Error(), "\n") {
			t.Errorf("--fail-code %s: error %q does not name the flag on one line", code, err)
		}
		if out.String() != "" {
			t.Errorf("--fail-code %s: printed a comparison before refusing:\n%s", code, out)
		}
	}
	st, out := testState()
	if got := ExitCode(Execute(context.Background(), st, []string{"compare", "--fail-code", "125", a, b})); got != 125 {
		t.Errorf("--fail-code 125: exit %d, want 125\n%s", got, out)
	}
}
