package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
)

// A phase prints in the text format its summary says its engine offers,
// whatever the engine's name: an object engine other than s3 that offers
// warp's format gets warp's text, and its several hosts' totals are taken
// in the time every host ran, as s3's are. The name alone decides only
// for results written before the formats were kept.
func TestPhaseTextFollowsTheFormats(t *testing.T) {
	hosts := s3Hosts()
	two := *hosts[0]
	two.Host = "client2"
	hosts = append(hosts, &two)
	ps := results.BuildPhase("obj-get", "objstore", []string{model.FormatWarp}, hosts)
	var buf bytes.Buffer
	PhaseText(&buf, &ps, hosts)
	if out := buf.String(); !strings.Contains(out, "Fastest:") || !strings.Contains(out, "obj/s") {
		t.Errorf("an engine offering warp's format does not print as warp:\n%s", out)
	}
	if ps.Window == nil {
		t.Error("an engine offering warp's format has no common window over its hosts")
	}
	old := results.BuildPhase("s3-get", "s3", nil, hosts)
	buf.Reset()
	PhaseText(&buf, &old, hosts)
	if !strings.Contains(buf.String(), "Fastest:") || old.Window == nil {
		t.Errorf("an s3 phase from before formats were kept no longer prints as warp:\n%s", buf.String())
	}
	wk := results.BuildPhase("file", "objstore", []string{model.FormatWekatester}, hosts)
	buf.Reset()
	PhaseText(&buf, &wk, hosts)
	if strings.Contains(buf.String(), "Fastest:") || wk.Window != nil {
		t.Errorf("an engine offering wekatester's format prints as warp, or takes warp's window:\n%s", buf.String())
	}
}

// An engine of its own units (a dd engine's "dd/s") printed in
// wekatester's format shows its rates in them, never as IOPS, per
// operation and in the hosts' total: before, every engine but md and s3
// read "34 IOPS" whatever summary.json's rate_unit said.
func TestPhaseTextNamesTheEnginesRateUnit(t *testing.T) {
	rate, bw := 34.0, 34.4*(1<<20)
	op := results.OpSummary{Op: "write", Ops: 102, OpsPerS: &rate, BwBytesPerS: &bw}
	ps := results.PhaseSummary{Name: "w", Engine: "ddx", Status: results.StatusCompleted, RateUnit: "dd/s",
		Report: model.HeadlineIOPS, Ops: []results.OpSummary{op},
		PerHost: []results.HostOps{{Host: "a", Ops: []results.OpSummary{op}}, {Host: "b", Ops: []results.OpSummary{op}}}}
	var buf bytes.Buffer
	FileText(&buf, &ps)
	out := buf.String()
	if strings.Contains(out, "IOPS") || strings.Count(out, "dd/s") != 3 {
		t.Errorf("a phase whose engine counts dd/s:\n%s", out)
	}
}
