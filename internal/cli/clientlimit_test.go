package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil/chromium"
)

// A real fio phase of 5 s on this host: the report draws the host's own
// CPU beside the rates, one point a second, at the values the host's
// result.json keeps for it (summary.json keeps a few figures of them), under a note that says whose limit the figure is (the
// verdicts, or none reached), checked in headless Chromium; summary.md
// and the text output say the same. Before, nothing of the client was
// drawn.
func TestReportDrawsTheClientInChromium(t *testing.T) {
	t.Parallel()
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
	hr, err := results.ReadHostResult(folders[0], ps.Dir, h.Host)
	if err != nil {
		t.Fatal(err)
	}
	if hr.Client == nil || hr.Client.Samples == nil || len(hr.Client.Samples.UsedPct) < 4 {
		t.Fatalf("host %s: no samples of its own over a 5-s phase in result.json: %+v", h.Host, hr.Client)
	}
	want := hr.Client.Samples.UsedPct
	// summary.json keeps them in a few figures, not second by second.
	if sm := h.Client.Sampled; sm == nil || sm.Seconds != len(want) || sm.UsedPct == nil || sm.UsedPct.Max != slices.Max(want) {
		t.Errorf("summary.json's figures of the samples %+v, want %d seconds, the highest used %g", sm, len(want), slices.Max(want))
	}
	note := "Client limits: none reached"
	if slices.ContainsFunc(ps.ClientLimits, func(v results.HostVerdict) bool { return v.Kind != model.VerdictStarved }) {
		note = "Client limits (whose limit the figure may be): " + h.Host + ": "
	} else if len(ps.ClientLimits) > 0 {
		// This machine's other work may starve the client here: the
		// starved note says so, and why.
		note = ps.StarvedText()
	}
	md, err := os.ReadFile(filepath.Join(folders[0], "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range ps.ClientLimits {
		if v.Kind == model.VerdictStarved {
			v.Text = ps.StarvedText()
		}
		if !strings.Contains(string(md), v.Text) {
			t.Errorf("summary.md does not say %q:\n%s", v.Text, md)
		}
	}
	// A phase whose client was starved (summary.json says so: this
	// machine's other work took its CPU) has per-second rates the client
	// set, not the storage: fio's rate= job then bursts to catch up and
	// lags (3x and 0.15x the median at the edges under make test's load),
	// so its edges are checked only when the client was not starved.
	edges := len(ps.ClientStarved) == 0
	shot := filepath.Join(chromium.ArtifactDir(t), "report-client.png")
	chromium.CheckEdges(t, bin, filepath.Join(folders[0], "report.html"), shot, edges, func(eval func(string) string) {
		var client *chromium.Chart
		seconds := 0
		charts := chromium.Charts(t, eval)
		for i, c := range charts {
			if strings.HasPrefix(c.Title, "Client CPU used per host") {
				client = &charts[i]
			}
			if strings.HasPrefix(c.Title, "Throughput per host") && len(c.Lines) == 1 {
				seconds = len(c.Lines[0].Points)
			}
		}
		if client == nil || seconds == 0 {
			t.Fatalf("no chart of the client's CPU, or of the phase's throughput, in the report: %+v", charts)
		}
		// The client's seconds drawn are the phase's, on its axis: the
		// samples before the load and after fio's exit are not drawn (a
		// sample may straddle the phase's last, partial second).
		if len(client.Lines) != 1 || len(client.Lines[0].Points) < seconds-1 || len(client.Lines[0].Points) > seconds+1 {
			t.Fatalf("the client CPU chart has %d lines (%+v), want one of the phase's %d seconds", len(client.Lines), client.Lines, seconds)
		}
		// Each point is result.json's sample, in order, from the first of
		// the phase's seconds.
		pts := client.Lines[0].Points
		k := slices.IndexFunc(want, func(v float64) bool { return v == pts[0].V })
		for i, p := range pts {
			if k < 0 || k+i >= len(want) || p.V != want[k+i] {
				t.Errorf("point %d carries %g, not result.json's samples in order %v", i, p.V, want)
				break
			}
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
	saidOnce(t, st, bin, folders[0], sum, edges)
}

// saidOnce marks the phase's host starved in summary.json, as a host
// whose CPU other work took, renders the report again and checks in
// Chromium that the report says why once: the phase's starved note says
// it, and its client limits do not say it again (before, both did).
func saidOnce(t *testing.T, st *State, bin, dir string, sum *results.Summary, edges bool) {
	t.Helper()
	ps := &sum.Phases[0]
	host := ps.PerHost[0].Host
	why := "other work took 77% of its CPU time (load average 9.5 per CPU, 2 CPUs)"
	ps.ClientStarved = []results.StarvedHost{{Host: host, Why: why}}
	ps.ClientLimits = slices.DeleteFunc(ps.ClientLimits, func(v results.HostVerdict) bool { return v.Kind == model.VerdictStarved })
	ps.ClientLimits = append(ps.ClientLimits, results.HostVerdict{Host: host, Kind: model.VerdictStarved, Text: "client starved: " + why})
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Execute(context.Background(), st, []string{"report", dir}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(md), why); n != 1 {
		t.Errorf("summary.md says why the client starved %d times, want once:\n%s", n, md)
	}
	shot := filepath.Join(chromium.ArtifactDir(t), "report-client-starved.png")
	chromium.CheckEdges(t, bin, filepath.Join(dir, "report.html"), shot, edges, func(eval func(string) string) {
		var text string
		if err := json.Unmarshal([]byte(eval(`JSON.stringify(document.body.innerText)`)), &text); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(text, why); n != 1 {
			t.Errorf("the report says why the client starved %d times, want once:\n%s", n, text)
		}
		if !strings.Contains(text, results.StarvedMark+" on "+host) {
			t.Errorf("the report does not say %q", results.StarvedMark+" on "+host)
		}
	})
}

// A results folder of schema version 4, whose summary.json kept each
// host's samples second by second, still reports: the host's CPU is
// drawn from its result.json, and its starved client is said once.
func TestReportOfVersion4ClientSamples(t *testing.T) {
	t.Parallel()
	src := filepath.Join("..", "results", "testdata", "v4-client")
	dir := filepath.Join(t.TempDir(), "v4-client")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	st, out := testState()
	if err := Execute(context.Background(), st, []string{"report", dir}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "Client CPU used per host") {
		t.Error("the report of a version 4 folder draws no client CPU chart")
	}
	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if why := "other work took 94% of its CPU time"; strings.Count(string(md), why) != 1 {
		t.Errorf("summary.md says %q %d times, want once:\n%s", why, strings.Count(string(md), why), md)
	}
}
