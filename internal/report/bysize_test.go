package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
)

// A phase whose objects had several sizes: GETs of 4 KiB and 1 MiB
// objects over 4 s.
func sizedHosts() []*engine.HostResult {
	const t0 = int64(1_700_000_000_000_000_000)
	small := record.OpStats{Op: "GET", Ops: 8, Bytes: 8 * 4096, StartNs: t0, EndNs: t0 + 4e9, Lat: hist(1e6, 1e6, 1e6, 1e6, 2e6, 2e6, 2e6, 2e6)}
	st := hist(5e5, 5e5, 5e5, 5e5, 5e5, 5e5, 5e5, 5e5)
	small.TTFB = &st
	big := record.OpStats{Op: "GET", Ops: 2, Bytes: 2 << 20, StartNs: t0, EndNs: t0 + 4e9, Lat: hist(8e6, 9e6)}
	bt := hist(1e6, 1e6)
	big.TTFB = &bt
	all := small.Combine(big)
	all.Op = "GET"
	return []*engine.HostResult{{Host: "client1", Ops: []record.OpStats{all},
		BySize: []record.SizeOpStats{
			{Size: record.SizeClass{Label: "<=4KiB", MinBytes: 1, MaxBytes: 4096}, OpStats: small},
			{Size: record.SizeClass{Label: "4KiB-1MiB", MinBytes: 4097, MaxBytes: 1 << 20}, OpStats: big},
		},
		Meta: map[string]string{"concurrent": "4", "obj_sizes": "4KiB:80,1MiB:20"}}}
}

// The s3 text, summary.md and the HTML report give GETs per object size
// class: throughput, share, latency and first byte. Hand-computed: 8 GETs
// of 4 KiB in 4 s = 2.00 obj/s, 8 KiB/s (0.01 MiB/s), 80% of 10; 2 of 1 MiB = 0.50
// obj/s, 0.50 MiB/s.
func TestBySizeInEveryOutput(t *testing.T) {
	hosts := sizedHosts()
	ps := results.BuildPhase("s3-get", "s3", nil, hosts)
	var buf bytes.Buffer
	S3Text(&buf, &ps, hosts, nil)
	text := buf.String()
	for _, s := range []string{
		"Throughput by object size:",
		" * <=4KiB: 0.01 MiB/s, 2.00 obj/s, 8 requests (80.0%)",
		"     - Avg: 1.50 ms, 50%: 1.00 ms",
		"     - First byte: Avg: 500 us",
		" * 4KiB-1MiB: 0.50 MiB/s, 0.50 obj/s, 2 requests (20.0%)",
		"Object sizes: 4KiB:80,1MiB:20; a ranged GET counts in its object's size class.",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("s3 text lacks %q:\n%s", s, text)
		}
	}
	md := string(Markdown(&results.Summary{RunHead: model.RunHead{Name: "r"}, Phases: []results.PhaseSummary{ps}}))
	for _, s := range []string{"| s3-get | 1 | GET objects <=4KiB | 8.00 KiB/s | 2 |", "| s3-get | 1 | GET objects 4KiB-1MiB | 512 KiB/s | 1 |"} {
		if !strings.Contains(md, s) {
			t.Errorf("summary.md lacks %q:\n%s", s, md)
		}
	}
	buf.Reset()
	if err := HTML(&buf, HTMLInput{Summary: &results.Summary{RunHead: model.RunHead{Name: "r"}, Phases: []results.PhaseSummary{ps}}}); err != nil {
		t.Fatal(err)
	}
	if h := buf.String(); !strings.Contains(h, "<td class=\"l\">GET objects &lt;=4KiB</td>") || !strings.Contains(h, "GET objects 4KiB-1MiB") {
		t.Errorf("the HTML report has no rows per object size")
	}
}

// storbench analyze of a results folder gives the per-size figures too, in
// its text and Markdown.
func TestBySizeInAnalysis(t *testing.T) {
	hosts := sizedHosts()
	a := &analyze.Analysis{Source: "r", Kind: "results", Phases: []analyze.PhaseAnalysis{analyze.AnalyzeHosts("s3-get", "s3", nil, "completed", hosts, analyze.Options{})}}
	var buf bytes.Buffer
	AnalysisText(&buf, a)
	for _, s := range []string{"By object size (whole phase):", "   * <=4KiB: 0.01 MiB/s, 2.00 ops/s, 8 requests", "   * 4KiB-1MiB: 0.50 MiB/s, 0.50 ops/s, 2 requests", "     - First byte: Avg: 1.00 ms"} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("analysis text lacks %q:\n%s", s, buf.String())
		}
	}
	buf.Reset()
	AnalysisMarkdown(&buf, a)
	if !strings.Contains(buf.String(), "| all | GET objects 4KiB-1MiB | 4s | 512 KiB/s |") {
		t.Errorf("analysis Markdown lacks the size rows:\n%s", buf.String())
	}
	buf.Reset()
	if err := AnalysisJSON(&buf, a); err != nil || !strings.Contains(buf.String(), `"by_size"`) {
		t.Errorf("analysis JSON lacks by_size (%v)", err)
	}
}
