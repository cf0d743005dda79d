package model

// ScaleStep places a phase in a scale (--scale, a suite's scale:): the
// load parameter stepped, the load at this step, and, on the step after
// which the scale stopped, why it stopped.
type ScaleStep struct {
	// Param is the load stepped, in the user's words: jobs, iodepth,
	// concurrent, workers or hosts.
	Param string `json:"param"`
	// Load is the parameter's value at this step.
	Load int `json:"load"`
	// Step counts from 1; Steps is how many the range holds.
	Step  int `json:"step"`
	Steps int `json:"steps"`
	// StopKind is set on the last step run: ScaleFlat, ScaleLatency,
	// ScaleRangeEnd or ScaleLimit; Stop says it in words, with figures.
	StopKind string `json:"stop_kind,omitempty"`
	Stop     string `json:"stop,omitempty"`
}

// Why a scale stopped (ScaleStep.StopKind).
const (
	// ScaleFlat: the last step's rate was not beyond noise above the
	// step before; the knee is the step before.
	ScaleFlat = "flat"
	// ScaleLatency: latency broke at the last step (p99 more than
	// doubled while the rate grew less than 10%); the knee is the step
	// before.
	ScaleLatency = "latency"
	// ScaleLimit: a limit was crossed at the last step; the knee is the
	// step before.
	ScaleLimit = "limit"
	// ScaleRangeEnd: the range ended with the rate still growing; the
	// knee is the last step, and lies at or beyond it.
	ScaleRangeEnd = "range"
)

// ScaleStop is why a scale stops after its last step: Kind is one of the
// Scale* kinds above, Why says it with figures; Kind "" goes on.
type ScaleStop struct {
	Kind, Why string
}
