package report

import (
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
)

// summary.md shows names as text (issue 33): a name holding HTML, a
// table's | or a link is written so that Markdown shows it as it is and
// does nothing with it; figures such as "<=4KiB" stay as they read. Before,
// a raw <script> went into summary.md, and a | in a name cut its row.
func TestMarkdownShowsNamesAsText(t *testing.T) {
	const t0 = int64(1_700_000_000_000_000_000)
	hosts := []*engine.HostResult{{Host: "client1", Ops: []record.OpStats{{Op: "GET|PUT", Ops: 4, Bytes: 4096, StartNs: t0, EndNs: t0 + 1e9, Lat: hist(1e6, 1e6, 1e6, 1e6)}}}}
	ps := results.BuildPhase("<script>alert(1)</script>", "s3", nil, hosts)
	ps.Status = results.StatusCompleted
	md := string(Markdown(&results.Summary{RunHead: model.RunHead{Name: "[run](javascript:alert(1)) &#x202e;", RunID: "r", Status: results.StatusCompleted}, Phases: []results.PhaseSummary{ps}}))
	for _, raw := range []string{"<script>", "](javascript", "&#x202e;", "| GET|PUT |"} {
		if unescaped(md, raw) {
			t.Errorf("summary.md holds %q as Markdown would act on it:\n%s", raw, md)
		}
	}
	var row string
	for _, l := range strings.Split(md, "\n") {
		if strings.Contains(l, "alert(1)") && strings.HasPrefix(l, "| ") {
			row = l
		}
	}
	if cells := strings.Count(strings.ReplaceAll(row, `\|`, ""), "|") - 1; cells != 12 {
		t.Errorf("the phase's row has %d cells, want 12: %s", cells, row)
	}
	for _, shown := range []string{`\<script>alert(1)\</script>`, `GET\|PUT`, `\[run\](javascript:alert(1)) \&#x202e;`} {
		if !strings.Contains(md, shown) {
			t.Errorf("summary.md does not show %s as text:\n%s", shown, md)
		}
	}
	if mdText("objects <=4KiB, a < b & c") != "objects <=4KiB, a < b & c" {
		t.Errorf("text Markdown does not act on changed: %q", mdText("objects <=4KiB, a < b & c"))
	}
}

// unescaped says whether s holds sub not right after a backslash.
func unescaped(s, sub string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			return false
		}
		if i+j == 0 || s[i+j-1] != '\\' {
			return true
		}
		i += j + 1
	}
}
