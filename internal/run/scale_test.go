package run

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/exit"
	"github.com/storbench/storbench/internal/figures"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/suite"
)

// scalePlan is a scale of the synthetic engine over workers, whose rate
// flattens at flatAt workers (0: never).
func scalePlan(t *testing.T, root, spec string, flatAt int) Plan {
	t.Helper()
	sc, err := suite.ParseScale(spec)
	if err != nil {
		t.Fatal(err)
	}
	p := Plan{Name: "scale", ResultsRoot: root}
	for _, w := range sc.Loads() {
		fp := fakeParams{Ops: 100, RunMs: 50, Workers: w, FlatAt: flatAt}
		if flatAt == 0 {
			fp.FlatAt = 1 << 30
		}
		p.Phases = append(p.Phases, fakePhaseOf(t, fmt.Sprintf("g workers=%d", w), fp))
		p.Labels = append(p.Labels, suite.Labels{Group: "g", Iteration: 1, Iterations: 1, Scale: sc.Step(w)})
	}
	return p
}

// A scale whose rate flattens at 8 workers stops after the step above
// (16), names 8 as its knee in the output and summary.json, and does not
// run the steps it did not need; one that never flattens runs to the top
// of its range and says the range ended there.
func TestScaleFindsTheKnee(t *testing.T) {
	for _, tc := range []struct {
		name, spec       string
		flatAt           int
		ran              []int
		knee             int
		kind, saidInNote string
	}{
		{"flattens at 8", "workers=1..64", 8, []int{1, 2, 4, 8, 16}, 8, model.ScaleFlat, "the rate flattened"},
		{"fixed step", "workers=2..20:+3", 8, []int{2, 5, 8, 11}, 8, model.ScaleFlat, "the rate flattened"},
		{"never flattens", "workers=1..16", 0, []int{1, 2, 4, 8, 16}, 16, model.ScaleRangeEnd, "the range ended at workers=16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, sink, root := runner(t)
			res, err := r.Run(t.Context(), scalePlan(t, root, tc.spec, tc.flatAt))
			if err != nil {
				t.Fatalf("run: %v\n%v", err, sink.events)
			}
			var ran []int
			for _, p := range res.Summary.Phases {
				ran = append(ran, p.Scale.Load)
			}
			if !slices.Equal(ran, tc.ran) {
				t.Errorf("steps run %v, want %v", ran, tc.ran)
			}
			if len(res.Summary.Scales) != 1 {
				t.Fatalf("scales in summary.json: %+v", res.Summary.Scales)
			}
			sc := res.Summary.Scales[0]
			if sc.Knee == nil || *sc.Knee != tc.knee || sc.StopKind != tc.kind {
				t.Errorf("knee %v (%s: %s), want %d (%s)", sc.Knee, sc.StopKind, sc.Stop, tc.knee, tc.kind)
			}
			note := ""
			for _, e := range sink.events {
				if strings.Contains(e, "scale g: stopped") {
					note = e
				}
			}
			if !strings.Contains(note, tc.saidInNote) || !strings.Contains(note, fmt.Sprintf("knee: workers=%d", tc.knee)) {
				t.Errorf("the run said %q, want %q and the knee", note, tc.saidInNote)
			}
		})
	}
}

// A scale whose steps ran on a starved client (here the tool gave up
// for want of CPU at 8 and 16 workers) still finds its knee by the
// rules, and its stop says which steps were starved, in the output and
// summary.json: their rates are the client's, so a user knows the knee
// may be the client's. Before, the knee read as the storage's.
func TestScaleSaysItsStarvedSteps(t *testing.T) {
	r, sink, root := runner(t)
	p := scalePlan(t, root, "workers=1..64", 8)
	for i, w := range []int{1, 2, 4, 8, 16, 32, 64} {
		if w == 8 || w == 16 {
			fp := fakeParams{Ops: 100, RunMs: 50, Workers: w, FlatAt: 8, Starved: "fio gave up (test)"}
			p.Phases[i] = fakePhaseOf(t, fmt.Sprintf("g workers=%d", w), fp)
		}
	}
	res, err := r.Run(t.Context(), p)
	if err != nil {
		t.Fatalf("run: %v\n%v", err, sink.events)
	}
	if len(res.Summary.Scales) != 1 {
		t.Fatalf("scales in summary.json: %+v", res.Summary.Scales)
	}
	sc := res.Summary.Scales[0]
	// This machine's own load may starve the other steps as well: they
	// are named then, and 8 and 16 always.
	want := regexp.MustCompile(`client starved at workers=([0-9, ]+): those steps' rates are the client's, so the knee may be the client's, not the storage's`)
	named := func(s string) bool {
		m := want.FindStringSubmatch(s)
		return m != nil && slices.Contains(strings.Split(m[1], ", "), "8") && slices.Contains(strings.Split(m[1], ", "), "16")
	}
	if sc.Knee == nil || *sc.Knee != 8 || sc.StopKind != model.ScaleFlat || !named(sc.Stop) {
		t.Errorf("knee %v (%s: %s), want 8 (%s) with the starved steps 8 and 16 named", sc.Knee, sc.StopKind, sc.Stop, model.ScaleFlat)
	}
	if said := strings.Join(sink.events, "\n"); !named(said) {
		t.Errorf("the run did not say the starved steps:\n%s", said)
	}
}

// A limit is one more stopping rule: a scale whose rate grows without
// end (2,000 ops/s a worker) under the limit rate<10k stops at the step
// that crossed it (8 workers, 16,000 ops/s), not at the top of its
// range, names the step before (4) its knee and the limit as why, and
// the run exits 0: the limit found the knee, a load that kept it; the
// crossing is kept in summary.json. (A first step that crosses it fails
// the run: TestScaleWithoutKneeSaysWhy.)
func TestScaleStopsAtALimit(t *testing.T) {
	r, sink, root := runner(t)
	p := scalePlan(t, root, "workers=1..64", 0)
	l, err := figures.ParseLimit("g/op/rate<10k")
	if err != nil {
		t.Fatal(err)
	}
	p.Limits = []figures.Limit{l}
	res, err := r.Run(t.Context(), p)
	if err != nil {
		t.Fatalf("run: exit %d (%v), want 0: a step kept the limit\n%v", exit.CodeOf(err), err, sink.events)
	}
	var ran []int
	for _, p := range res.Summary.Phases {
		ran = append(ran, p.Scale.Load)
	}
	if !slices.Equal(ran, []int{1, 2, 4, 8}) {
		t.Errorf("steps run %v, want 1, 2, 4, 8", ran)
	}
	if len(res.Summary.Scales) != 1 {
		t.Fatalf("scales in summary.json: %+v", res.Summary.Scales)
	}
	sc := res.Summary.Scales[0]
	if sc.Knee == nil || *sc.Knee != 4 || sc.StopKind != model.ScaleLimit || !strings.Contains(sc.Stop, "g workers=8/op/rate<10k") {
		t.Errorf("knee %v (%s: %s), want 4 (%s) naming the limit", sc.Knee, sc.StopKind, sc.Stop, model.ScaleLimit)
	}
	last := res.Summary.Phases[len(res.Summary.Phases)-1]
	if len(last.Limits) != 1 || last.Limits[0].Passed == nil || *last.Limits[0].Passed {
		t.Errorf("the last step's limits in summary.json: %+v", last.Limits)
	}
	if !strings.Contains(strings.Join(sink.events, "\n"), "knee: workers=4") {
		t.Errorf("the run did not say the knee:\n%v", sink.events)
	}
}
