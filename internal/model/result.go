package model

import (
	"encoding/json"
	"fmt"

	"github.com/storbench/storbench/internal/record"
)

// Phase is one unit of work sent to every agent, and as run.json's plan
// records it. Params are engine-specific and travel as JSON so a remote
// agent decodes them exactly as a local one.
type Phase struct {
	// Name is the phase's name in results ("011-bandwidthR", "md", "s3-get").
	Name string `json:"name"`
	// Engine names the engine that runs it.
	Engine EngineName `json:"engine"`
	// Params are the engine's own settings.
	Params json.RawMessage `json:"params"`
}

// HostResult is everything one host measured in one phase: result.json in
// the host's folder of the phase.
type HostResult struct {
	Host string `json:"host"`
	// Ops are per-operation statistics with their windows set.
	Ops []record.OpStats `json:"ops"`
	// BySize splits operations by object size class, when the phase's
	// objects had several sizes (s3 with a size distribution); windows
	// are those of the operations.
	BySize []record.SizeOpStats `json:"by_size,omitempty"`
	// Series is the per-second throughput series.
	Series []record.Second `json:"series,omitempty"`
	// LatencySeconds is the latency histogram of every operation in every
	// interval of Series, in the per-second latency file format
	// (record.EncodeLatSeconds). The results folder keeps it as its own
	// file (record.LatSecondsFile), not in result.json.
	LatencySeconds []byte `json:"latency_seconds,omitempty"`
	// Meta carries engine facts worth keeping (fio's version, the job's
	// report kind, the files' directory).
	Meta map[string]string `json:"meta,omitempty"`
	// Raw holds files to keep verbatim in the results folder, by file name
	// (fio's JSON output). Never secrets.
	Raw map[string][]byte `json:"raw,omitempty"`
	// Err is set when the phase failed on this host after producing something;
	// what was measured up to then is still in Ops.
	Err string `json:"error,omitempty"`
	// Unreachable is, per endpoint the host could not reach for a while
	// (S3 connection errors), how long that was.
	Unreachable []Unreachable `json:"unreachable,omitempty"`
	// Client is how much of the host's CPU was left to the phase (the
	// agent measures it around the engine's run).
	Client *ClientLoad `json:"client,omitempty"`
}

// Unreachable is the time one host could not reach one endpoint: the union
// of the intervals from a connection error to the next answer (or the end
// of the run), over all its workers.
type Unreachable struct {
	Endpoint string  `json:"endpoint"`
	Seconds  float64 `json:"seconds"`
	// Errors are the connection errors counted in that time.
	Errors uint64 `json:"errors"`
}

// Leftover is something a phase created that its cleanup could not remove:
// what it is, where it is, and how many, so a user can remove it by hand.
type Leftover struct {
	// Host is the host whose phase created it.
	Host string `json:"host"`
	// What is "files and directories", "objects" or "bucket".
	What string `json:"what"`
	// Where is a path (files), bucket/prefix (objects) or a bucket name.
	Where string `json:"where"`
	// Count is how many entries are left, when they could be counted.
	Count *int64 `json:"count,omitempty"`
	// AtMost bounds the count when it could not be taken (the server did
	// not answer): what the phase wrote there.
	AtMost *int64 `json:"at_most,omitempty"`
	// Reason says why it was left ("cleanup: connection refused", "host
	// lost").
	Reason string `json:"reason"`
}

// Text is the leftover in one line: "12 objects in bench/storbench/r/h/p/".
func (l Leftover) Text() string {
	n := "an unknown number of " + l.What
	switch {
	case l.What == "bucket":
		n = "the bucket"
	case l.Count != nil:
		n = fmt.Sprintf("%d %s", *l.Count, l.What)
	case l.AtMost != nil:
		n = fmt.Sprintf("up to %d %s", *l.AtMost, l.What)
	}
	s := n + " in " + l.Where
	if l.What == "bucket" {
		s = "the bucket " + l.Where
	}
	if l.Reason != "" {
		s += " (" + l.Reason + ")"
	}
	return s
}
