package run

import (
	"fmt"
	"slices"
	"strings"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/suite"
)

// scaleStep is called after each step of a scale, i being its phase:
// it asks the stopping rules (the Runner's Analysis, then the plan's own)
// whether the scale goes on, records on the step why it stopped, says
// so with the knee, and returns the index of the last phase to skip to
// (the scale's last step when it stopped early, else i).
func (pr *phases) scaleStep(i int, label suite.Labels) (int, error) {
	if label.Scale.Step == 1 {
		pr.steps = nil
	}
	if pr.lastStep == nil {
		return i, nil
	}
	pr.steps = append(pr.steps, *pr.lastStep)
	stop := model.ScaleStop{}
	for _, rule := range append(slices.Clip(pr.r.Analysis.ScaleRules), pr.plan.ScaleRules...) {
		if stop = rule(pr.steps); stop.Kind != "" {
			break
		}
	}
	if stop.Kind == "" && label.Scale.Step < label.Scale.Steps {
		return i, nil
	}
	if stop.Kind == "" {
		stop = model.ScaleStop{Kind: model.ScaleRangeEnd, Why: fmt.Sprintf("the range ended at %s=%d with the rate still growing: the knee is there or beyond", label.Scale.Param, label.Scale.Load)}
	}
	stop.Why += starvedSteps(pr.steps, label.Scale.Param)
	if stop.Kind == model.ScaleLimit && len(pr.steps) > 1 {
		// The limit was the scale's stopping rule and a step before kept
		// it: the crossing found the knee, it does not fail the run. Its
		// verdict stays in summary.json. A first step that crossed it
		// leaves no load that kept it: the run fails (exit 4).
		pr.notMet = pr.notMet[:pr.stepNotMet]
	}
	name := pr.lastStep.Summary.Name
	if _, err := pr.folder.AmendPhase(name, func(ps *results.PhaseSummary) {
		ps.Scale.StopKind, ps.Scale.Stop = stop.Kind, stop.Why
	}); err != nil {
		return i, err
	}
	text := fmt.Sprintf("scale %s: stopped after %s=%d: %s", label.Group, label.Scale.Param, label.Scale.Load, stop.Why)
	for _, sc := range pr.folder.Summary().Scales {
		if sc.Group == label.Group && sc.Knee != nil {
			text += fmt.Sprintf("; knee: %s=%d", sc.Param, *sc.Knee)
		}
	}
	pr.r.Sink.Note(Note{Kind: NotePlan, Text: text})
	// The steps the scale did not need are not run: skip to its last.
	for i+1 < len(pr.plan.Labels) {
		next := pr.plan.Labels[i+1]
		if next.Scale == nil || next.Group != label.Group || next.Scale.Step <= label.Scale.Step {
			break
		}
		i++
	}
	return i, nil
}

// starvedSteps says which of a scale's steps ran on a starved client
// ("" when none did). A starved step's rate is the client's: a rate that
// flattened there may be the CPU other work left it, not the storage's
// knee, and one that kept growing may be the client winning more of that
// CPU with more load, hiding the knee. The rules still judge the rates
// (a knee found on a busy client is still a knee of what ran), and the
// scale's stop says so beside it: in the output, summary.json and the
// report.
func starvedSteps(steps []results.PhaseData, param string) string {
	var at []string
	for _, st := range steps {
		if len(st.Summary.ClientStarved) > 0 && st.Summary.Scale != nil {
			at = append(at, fmt.Sprint(st.Summary.Scale.Load))
		}
	}
	if len(at) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%s at %s=%s: those steps' rates are the client's, so the knee may be the client's, not the storage's)",
		results.StarvedMark, param, strings.Join(at, ", "))
}
