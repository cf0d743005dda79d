package analyze

import (
	"reflect"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
)

// Two runs of a phase on the same two hosts: in the second, host b's CPU
// was saturated. compare names that host with both verdicts; a verdict
// said in other words (another count of seconds) is no difference, and a
// run from before the samples is compared with none.
func TestCompareSaysClientLimitsDiffer(t *testing.T) {
	sampled := &model.ClientSummary{Sampled: &model.SamplesSummary{Seconds: 1}}
	phase := func(limits ...results.HostVerdict) []PhaseData {
		ps := results.PhaseSummary{Name: "randread", Engine: model.EngineFio, Status: results.StatusCompleted, ClientLimits: limits,
			Ops:     []results.OpSummary{{Op: "read", Ops: 100, DurationS: 1}},
			PerHost: []results.HostOps{{Host: "a", Client: sampled}, {Host: "b", Client: sampled}}}
		return []PhaseData{{Summary: ps}}
	}
	cpu7 := results.HostVerdict{Host: "b", Kind: model.VerdictCPU, Text: "client CPU saturated: cores 0-1 95% busy or more in 7 of 8 s"}
	cpu8 := results.HostVerdict{Host: "b", Kind: model.VerdictCPU, Text: "client CPU saturated: cores 0-1 95% busy or more in 8 of 8 s"}
	got := Compare(phase(), phase(cpu8), CompareOptions{ThresholdPct: 5}).ClientLimits
	want := []ClientLimitChange{{Phase: "randread", Host: "b", Before: []string{}, After: []string{cpu8.Text}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("client limits changed %+v, want %+v", got, want)
	}
	if got := Compare(phase(cpu7), phase(cpu8), CompareOptions{ThresholdPct: 5}).ClientLimits; got != nil {
		t.Errorf("the same verdict in other words: %+v", got)
	}
	old := phase()
	old[0].Summary.PerHost = []results.HostOps{{Host: "a"}, {Host: "b"}}
	if got := Compare(old, phase(cpu8), CompareOptions{ThresholdPct: 5}).ClientLimits; got != nil {
		t.Errorf("a run from before the samples: %+v", got)
	}
}
