package results

import "encoding/json"

// The lists of summary.json are [] when they hold nothing, never null: a
// program looping over a failed phase's ops or hosts finds none rather
// than crashing (schema/summary.schema.json says "array").

// MarshalJSON writes the summary with its phases as [] when there are none.
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	if s.Phases == nil {
		s.Phases = []PhaseSummary{}
	}
	return json.Marshal(plain(s))
}

// MarshalJSON writes the phase with its hosts, ops and per-host figures as
// [] when there are none.
func (p PhaseSummary) MarshalJSON() ([]byte, error) {
	type plain PhaseSummary
	if p.Hosts == nil {
		p.Hosts = []string{}
	}
	if p.Ops == nil {
		p.Ops = []OpSummary{}
	}
	if p.PerHost == nil {
		p.PerHost = []HostOps{}
	}
	return json.Marshal(plain(p))
}

// MarshalJSON writes a host's ops as [] when it has none.
func (h HostOps) MarshalJSON() ([]byte, error) {
	type plain HostOps
	if h.Ops == nil {
		h.Ops = []OpSummary{}
	}
	return json.Marshal(plain(h))
}
