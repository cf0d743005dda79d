package cluster

import (
	"bytes"
	"encoding/json"
)

// HostDir is where one host mounts the run's target directory when it is
// not where the others do (a per-host path: an agents file's dir=PATH).
// Every phase, probe and cleanup sent to that host names At wherever it
// names Run, so that host works at its own path in the one namespace all
// hosts share, and its results and run.json record its own path.
type HostDir struct {
	// Run is the run's target directory (-d, the suite's dir), and At
	// this host's path for it; nothing changes when At is empty.
	Run, At string
}

// apply rewrites the run's directory to the host's in params: every JSON
// string equal to Run (a phase's dir, the target step's dirs) becomes At.
// Paths that only begin with Run are no phase's target and stay.
func (d HostDir) apply(params json.RawMessage) json.RawMessage {
	if d.At == "" || d.At == d.Run || len(params) == 0 {
		return params
	}
	from, _ := json.Marshal(d.Run)
	to, _ := json.Marshal(d.At)
	return bytes.ReplaceAll(params, from, to)
}
