package analyze

import (
	"fmt"
	"strings"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
)

// ScaleThresholdPct is the least growth of the rate, in percent, that
// counts as growth between two steps of a scale: compare's default
// --threshold. A gain beyond noise but smaller is the rate flattening.
const ScaleThresholdPct = 5

// ScaleLatencyGrowthPct is the growth of the rate, in percent, below
// which a p99 more than doubled counts as latency breaking.
const ScaleLatencyGrowthPct = 10

// ScaleStop is why a scale stops after its last step: Kind is one of
// model's Scale* kinds, Why says it with figures; Kind "" goes on.
type ScaleStop = model.ScaleStop

// ScaleRule looks at the steps of a scale so far, the last just run,
// and says whether the scale stops there. The run calls each rule after
// each step (run.Plan.ScaleRules adds rules to ScaleRules: a limit).
type ScaleRule = func(steps []PhaseData) ScaleStop

// ScaleRules are the default stopping rules, in order: a limit crossed
// (--limit, a suite's limits:, as the step's summary judged it), the
// rate flattened (the compare test on the per-second figures of the last
// two steps), or latency broke.
func ScaleRules() []ScaleRule { return []ScaleRule{limitCrossed, rateFlattened, latencyBroke} }

// ScaleRuleText is the stopping rule in words, for the output and docs.
const ScaleRuleText = "a scale stops when the last step's rate is not beyond noise above the step before (compare's Welch test on the per-second figures of the two steps and a gain of 5% or more; with under 8 s per step, a gain of 5% or more), or latency breaks (p99 more than doubles while the rate grows less than 10%), or the step crosses a limit (--limit), or the range ends; the knee is the most load before the rate flattens, latency breaks or a limit is crossed"

// limitCrossed stops when the last step crossed one of its limits. A
// limit on a figure the step did not measure is neither kept nor
// crossed, and does not stop the scale.
func limitCrossed(steps []PhaseData) ScaleStop {
	if len(steps) == 0 {
		return ScaleStop{}
	}
	var crossed []string
	for _, l := range steps[len(steps)-1].Summary.Limits {
		if l.Passed != nil && !*l.Passed {
			crossed = append(crossed, l.Limit)
		}
	}
	if len(crossed) == 0 {
		return ScaleStop{}
	}
	return ScaleStop{Kind: model.ScaleLimit, Why: "a limit was crossed: " + strings.Join(crossed, ", ")}
}

// rateFlattened stops when the last step's rate is not beyond noise
// above the step before's.
func rateFlattened(steps []PhaseData) ScaleStop {
	if len(steps) < 2 {
		return ScaleStop{}
	}
	prev, last := steps[len(steps)-2], steps[len(steps)-1]
	po, ok1 := results.ScaleOp(prev.Summary)
	lo, ok2 := results.ScaleOp(last.Summary)
	if !ok1 || !ok2 || *po.OpsPerS == 0 {
		return ScaleStop{}
	}
	gain := 100 * (*lo.OpsPerS - *po.OpsPerS) / *po.OpsPerS
	// The per-second test needs one name on both sides; steps of one
	// scale name their operations alike (fio names by section, not by
	// numjobs), so a difference means the steps measured other work.
	sig, tested, method := false, false, "operations named differently"
	if po.Op == lo.Op {
		sig, tested, method, _ = throughputTest(prev, last, lo.Op, false, CompareOptions{})
	}
	if tested && sig && gain >= ScaleThresholdPct {
		return ScaleStop{}
	}
	if !tested && gain >= ScaleThresholdPct {
		return ScaleStop{}
	}
	how := method
	if !tested {
		how += fmt.Sprintf("; growth under %d%% counts as flat", ScaleThresholdPct)
	}
	return ScaleStop{Kind: model.ScaleFlat, Why: fmt.Sprintf("the rate flattened: %s %+.1f%% over the step before, not beyond noise (%s)", lo.Op, gain, how)}
}

// latencyBroke stops when p99 more than doubled while the rate grew
// less than ScaleLatencyGrowthPct.
func latencyBroke(steps []PhaseData) ScaleStop {
	if len(steps) < 2 {
		return ScaleStop{}
	}
	po, ok1 := results.ScaleOp(steps[len(steps)-2].Summary)
	lo, ok2 := results.ScaleOp(steps[len(steps)-1].Summary)
	if !ok1 || !ok2 || po.Lat == nil || lo.Lat == nil || *po.OpsPerS == 0 || po.Lat.P99Ns == 0 {
		return ScaleStop{}
	}
	gain := 100 * (*lo.OpsPerS - *po.OpsPerS) / *po.OpsPerS
	ratio := float64(lo.Lat.P99Ns) / float64(po.Lat.P99Ns)
	if ratio <= 2 || gain >= ScaleLatencyGrowthPct {
		return ScaleStop{}
	}
	return ScaleStop{Kind: model.ScaleLatency, Why: fmt.Sprintf("latency broke: %s p99 x%.1f while the rate grew %+.1f%%", lo.Op, ratio, gain)}
}
