package results

import (
	"slices"

	"github.com/storbench/storbench/internal/model"
)

// What a phase's engine offers travels in its summary (RateUnit, Formats).
// Results written before it was kept say only the engine's name: for them
// alone, this file names the three engines storbench had then. An engine
// added since always writes its own, so nothing here grows with engines.

// RateName is what the phase's operation rates are called: the engine's
// RateUnit, or for results from before it was kept, fio's IOPS, md's
// ops/s and s3's obj/s.
func (p PhaseSummary) RateName() string {
	switch {
	case p.RateUnit != "":
		return p.RateUnit
	case p.Engine == model.EngineFio:
		return "IOPS"
	case p.Engine == model.EngineMD:
		return "ops/s"
	}
	return "obj/s"
}

// TextFormats are the text formats the phase's results print in, its own
// first: the engine's Formats, or for results from before they were kept,
// fio's, md's and s3's.
func (p PhaseSummary) TextFormats() []string {
	if len(p.Formats) > 0 {
		return p.Formats
	}
	return LegacyFormats(p.Engine)
}

// LegacyFormats are the text formats of storbench's first engines, for
// results that name only the engine.
func LegacyFormats(eng model.EngineName) []string {
	switch eng {
	case model.EngineFio:
		return []string{model.FormatWekatester, model.FormatIOR}
	case model.EngineMD:
		return []string{model.FormatMdtest}
	case model.EngineS3:
		return []string{model.FormatWarp}
	}
	return nil
}

// TextFormats are the text formats of the point's phases: its Formats, or
// for results from before they were kept, those of its engine.
func (s Sweep) TextFormats() []string {
	if len(s.Formats) > 0 {
		return s.Formats
	}
	return LegacyFormats(s.Engine)
}

// TextFormat is the format of the phase's own text ("" when its engine
// offers none).
func (p PhaseSummary) TextFormat() string {
	if f := p.TextFormats(); len(f) > 0 {
		return f[0]
	}
	return ""
}

// Offers says the phase's results print in format.
func (p PhaseSummary) Offers(format string) bool {
	return slices.Contains(p.TextFormats(), format)
}

// commonWindow says a phase's totals over several hosts are also taken
// inside the time every host ran (warp's rule): for every engine but those
// printing as wekatester (fio: IOR's rule of first start to last end) and
// mdtest (md: its per-iteration rates).
func commonWindow(formats []string) bool {
	return !slices.Contains(formats, model.FormatWekatester) && !slices.Contains(formats, model.FormatMdtest)
}
