package engine

import "github.com/storbench/storbench/internal/model"

// Entry is one phase entry of a suite at one matrix point (or a command
// line's settings), as an Expander turns it into phases.
type Entry struct {
	// Where is the entry's file and line ("suite.yaml:12"), put before
	// the errors about it; "" on a command line.
	Where string
	// Name is the entry's name ("" when it has none).
	Name string
	// Params are the entry's settings at this point: its own, the suite's
	// defaults (dir) and the point's matrix values, keys as written.
	Params map[string]any
	// Matrix holds the values of every setting the entry sweeps.
	Matrix map[string][]any
	// Shared and ReadFrom are the entry's sharing (shared: true,
	// read_from: neighbour).
	Shared   bool
	ReadFrom string
	// Report is the headline a command line chose for an inline job (a
	// suite's report: is applied to the phases' summaries instead).
	Report string
	// Base is the directory relative paths in Params are read from (the
	// suite file's).
	Base string
}

// Expander is implemented by engines whose suite entries are not one
// phase of the settings as written: fio's is a workload of job files, one
// phase each, with swept settings set in every job section. An engine
// without one gets one phase of its settings, as written (flag-style names
// such as obj.size as parameter names, obj_size), checked against its
// KeyLister, with the entry's sharing as shared and read_from settings.
type Expander interface {
	// Expand returns the phases of e, each named after its group (the
	// job it runs).
	Expand(e Entry) ([]Phase, error)
	// Count is how many phases e expands to at one matrix point, without
	// building them: the most of any value its matrix sweeps (1 when it
	// cannot tell; Expand then says what is wrong).
	Count(e Entry) int
}

// Expander returns name's Expander, if its engine has one.
func (r Registry) Expander(name model.EngineName) (Expander, bool) {
	x, ok := r[name].(Expander)
	return x, ok
}
