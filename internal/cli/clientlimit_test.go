package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil/chromium"
)

// A real fio phase of 5 s on this host: the report draws the host's own
// CPU beside the rates, one point a second, at the values summary.json
// keeps for it, under a note that says whose limit the figure is (the
// verdicts, or none reached), checked in headless Chromium; summary.md
// and the text output say the same. Before, nothing of the client was
// drawn.
func TestReportDrawsTheClientInChromium(t *testing.T) {
	needFio(t)
	bin := chromium.Binary(t)
	if bin == "" {
		t.Skip("chromium is not installed and could not be installed (apt-get install -y chromium)")
	}
	res := t.TempDir()
	st, out := testState()
	job := strings.Replace(jobsJob(1), "runtime=6", "runtime=5", 1)
	args := []string{"fio", "-d", t.TempDir(), "-w", workloadDir(t, map[string]string{"w": job}), "--results", res}
	if err := Execute(context.Background(), st, args); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	folders, _ := filepath.Glob(filepath.Join(res, "*"))
	if len(folders) != 1 {
		t.Fatalf("results: %v", folders)
	}
	sum, err := results.ReadSummary(folders[0])
	if err != nil {
		t.Fatal(err)
	}
	ps := &sum.Phases[0]
	h := ps.PerHost[0]
	if h.Client == nil || h.Client.Samples == nil || len(h.Client.Samples.UsedPct) < 4 {
		t.Fatalf("host %s: no samples of its own over a 5-s phase: %+v", h.Host, h.Client)
	}
	want := h.Client.Samples.UsedPct
	note := "Client limits: none reached"
	if len(ps.ClientLimits) > 0 {
		// This machine's other work may starve the client here.
		note = "Client limits (whose limit the figure may be): " + h.Host + ": "
	}
	md, err := os.ReadFile(filepath.Join(folders[0], "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range ps.ClientLimits {
		if !strings.Contains(string(md), v.Text) {
			t.Errorf("summary.md does not say %q:\n%s", v.Text, md)
		}
	}
	shot := filepath.Join(chromium.ArtifactDir(t), "report-client.png")
	chromium.Check(t, bin, filepath.Join(folders[0], "report.html"), shot, true, func(eval func(string) string) {
		var found bool
		for _, c := range chromium.Charts(t, eval) {
			if !strings.HasPrefix(c.Title, "Client CPU used per host") {
				continue
			}
			found = true
			if len(c.Lines) != 1 || len(c.Lines[0].Points) != len(want) {
				t.Fatalf("the client CPU chart has %d lines (%+v), want one of %d points", len(c.Lines), c.Lines, len(want))
			}
			for i, p := range c.Lines[0].Points {
				if p.V != want[i] {
					t.Errorf("point %d carries %g, summary.json keeps %g", i, p.V, want[i])
				}
			}
		}
		if !found {
			t.Error("no chart of the client's CPU in the report")
		}
		var text string
		if err := json.Unmarshal([]byte(eval(`JSON.stringify(document.body.innerText)`)), &text); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, note) {
			t.Errorf("the report does not say %q", note)
		}
	})
	t.Logf("screenshot: %s", shot)
}
