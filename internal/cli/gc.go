package cli

import "runtime/debug"

// loadGCPercent is GOGC while a process generates load (a run, or an
// agent): its heap is small (buffers and histograms are allocated once)
// and what a request allocates dies at once, so collecting less often
// trades a few MB for CPU, which a loaded client lacks. Commands that read
// results (analyze, report) keep Go's default, as their memory figures
// are measured with it.
const loadGCPercent = 400

// loadGC sets GOGC for a process that generates load, unless the user
// set GOGC, and returns what puts the old setting back. The process, not
// an engine, owns this setting.
func loadGC(st *State) func() {
	if st.getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(loadGCPercent)
	return func() { debug.SetGCPercent(old) }
}
