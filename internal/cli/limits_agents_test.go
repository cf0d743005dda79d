package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil"
	"github.com/storbench/storbench/internal/testutil/chromium"
)

// A suite with limits on two phases, one crossed, through two real agent
// processes: every phase runs, exit 4, both phases' results written with
// their limits, and the crossed limit drawn, labelled, on its figure's
// chart in report.html, as Chromium shows it.
func TestSuiteLimitsThroughAgents(t *testing.T) {
	t.Parallel()
	needFio(t)
	const token = "sb-limits-token-0123456789abcdef"
	bin := testutil.StorbenchBin(t)
	a, b := testutil.AgentProcess(t, bin, token), testutil.AgentProcess(t, bin, token)
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, root := t.TempDir(), t.TempDir()
	suite := writeSuite(t, fmt.Sprintf(`name: limits
dir: %s
agents: [%s, %s]
phases:
  - name: rr
    fio: {job: {rw: randread, bs: 4k, size: 4m, runtime: 2, time_based: 1, ioengine: psync}}
    limits: [read/rate>1, read/p99<10s]
  - name: meta
    md: {items: 20}
    limits: [file-create/rate>1, file-stat/p99<1ns]
`, data, a, b))
	st, out := testState()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	err := Execute(ctx, st, []string{"run", suite, "--token-file", tok, "--results", root})
	if ExitCode(err) != ExitLimit {
		t.Fatalf("exit %d (%v), want %d\n%s", ExitCode(err), err, ExitLimit, out)
	}
	if !strings.Contains(err.Error(), "meta/file-stat/p99<1ns") || strings.Contains(err.Error(), "rr/") {
		t.Errorf("the error names not the crossed limit alone: %v", err)
	}
	folder, s := readOnlySummary(t, root)
	if len(s.Phases) != 2 {
		t.Fatalf("%d phases in summary.json", len(s.Phases))
	}
	want := map[string][]bool{"rr": {true, true}, "meta": {true, false}}
	for _, p := range s.Phases {
		if p.Status != results.StatusCompleted || len(p.PerHost) != 2 {
			t.Errorf("phase %s: %s on %d hosts", p.Name, p.Status, len(p.PerHost))
		}
		if len(p.Limits) != 2 {
			t.Fatalf("phase %s limits: %+v", p.Name, p.Limits)
		}
		for i, l := range p.Limits {
			if l.Value == nil || l.Passed == nil || *l.Passed != want[p.Name][i] || !strings.HasPrefix(l.Limit, p.Name+"/") {
				t.Errorf("phase %s limit %d: %+v, want passed=%v", p.Name, i, l, want[p.Name][i])
			}
		}
		if _, err := os.Stat(filepath.Join(folder, p.Dir)); err != nil {
			t.Errorf("phase %s: its folder: %v", p.Name, err)
		}
	}
	bin = chromium.Binary(t)
	if bin == "" {
		t.Skip("chromium is not installed and could not be installed (apt-get install -y chromium)")
	}
	shot := filepath.Join(chromium.ArtifactDir(t), "report-limits.png")
	chromium.Check(t, bin, filepath.Join(folder, "report.html"), shot, true, func(eval func(string) string) {
		// Each limit line: its chart, its label, whether crossed, and
		// whether the line lies inside the chart's plot, where the
		// chart's y axis puts the value.
		var lines []struct {
			Chart, Limit, Crossed string
			Inside                bool
		}
		js := `JSON.stringify(Array.from(document.querySelectorAll('svg.chart g.limit')).map(g => {
			const svg = g.closest('svg'), r = g.querySelector('path').getBoundingClientRect(), s = svg.getBoundingClientRect();
			return {Chart: svg.getAttribute('aria-label'), Limit: g.getAttribute('data-limit'), Crossed: g.getAttribute('data-crossed'),
				Inside: r.top >= s.top && r.bottom <= s.bottom && r.width > 100 && g.querySelector('text').textContent.length > 0};
		}))`
		if err := json.Unmarshal([]byte(eval(js)), &lines); err != nil {
			t.Fatal(err)
		}
		found := map[string]string{}
		for _, l := range lines {
			if !l.Inside {
				t.Errorf("limit line %s on %q is not drawn inside its chart", l.Limit, l.Chart)
			}
			found[l.Limit] = l.Chart + " crossed=" + l.Crossed
		}
		for lim, chart := range map[string]string{
			"limit meta/file-stat/p99<1ns": "Latency by percentile", "limit rr/read/p99<10s": "Latency by percentile",
			"limit meta/file-create/rate>1": "Rate per operation", // md's chart of every operation's rate "limit rr/read/rate>1": "Operations per second",
		} {
			if !strings.HasPrefix(found[lim], chart) {
				t.Errorf("%s: on %q, want on the chart %q (lines: %v)", lim, found[lim], chart, found)
			}
		}
		if !strings.HasSuffix(found["limit meta/file-stat/p99<1ns"], "crossed=true") || !strings.HasSuffix(found["limit rr/read/p99<10s"], "crossed=false") {
			t.Errorf("crossed marks: %v", found)
		}
	})
}
