package model

import "time"

// RunHead names a run and says how it went: the head of run.json
// (RunInfo), of summary.json (results.Summary) and of a catalog row
// (catalog.Run), embedded in each, so that their JSON keeps these keys
// and a run is described by one type.
type RunHead struct {
	RunID string `json:"run_id"`
	Name  string `json:"name"`
	// Status is "running" until the run ends, then how it ended
	// ("completed", "failed", "interrupted"; a catalog row of a run
	// never finished says "unfinished").
	Status    string    `json:"status"`
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at,omitzero"`
}

// RunInfo is run.json: what is needed to reproduce and judge the run.
type RunInfo struct {
	SchemaVersion int `json:"schema_version"`
	RunHead
	Error       string   `json:"error,omitempty"`
	CommandLine []string `json:"command_line"`
	Versions    Versions `json:"versions"`
	// Agents describes every host, in the run's order.
	Agents []AgentInfo `json:"agents,omitempty"`
	// Targets are the target directories with their filesystem types.
	Targets []Target `json:"targets,omitempty"`
	// Plan is every phase as sent to the agents, with resolved parameters
	// (fio job text included). It never holds secrets.
	Plan []Phase `json:"plan"`
	// Settings are the run's own settings (suite file, overrides).
	Settings map[string]any `json:"settings,omitempty"`
	// Ranks numbers the workers of the phases whose engine numbers them
	// across hosts (md, as MPI ranks are), added as each phase runs.
	Ranks []PhaseRanks `json:"ranks,omitempty"`
	// Labels are the user's labels of the run (--label raid=6, a suite's
	// labels:), by which the catalog finds and groups runs.
	Labels map[string]string `json:"labels,omitempty"`
	// Fingerprint is the system under test as the run began.
	Fingerprint *Fingerprint `json:"fingerprint,omitempty"`
}

// PhaseRanks are the global worker ranks of one phase: host order (the
// phase's hosts, as the run lists its agents) x workers per host.
type PhaseRanks struct {
	// Phase is the phase's folder in the results folder ("02-md").
	Phase string      `json:"phase"`
	Total int         `json:"total"`
	Hosts []HostRanks `json:"hosts"`
}

// HostRanks are one host's workers: ranks First to First+Count-1.
type HostRanks struct {
	Host  string `json:"host"`
	First int    `json:"first"`
	Count int    `json:"count"`
}

// Versions of what measured.
type Versions struct {
	Storbench string `json:"storbench"`
	Go        string `json:"go"`
	Fio       string `json:"fio,omitempty"`
	Kernel    string `json:"kernel"`
}

// SetTools records the versions of the agent's tools, fio's also where
// run.json kept it before tools were listed (fio_version).
func (a *AgentInfo) SetTools(tools map[string]string) {
	a.Tools = tools
	a.FioVersion = tools[string(EngineFio)]
}

// Target is a target directory and the filesystem it is on, as the host
// that works in it sees it (its own mount namespace, its own client).
type Target struct {
	// Host is the host that looked, as results name it; empty in results
	// of older versions, which recorded the controller's view.
	Host   string `json:"host,omitempty"`
	Dir    string `json:"dir"`
	FSType string `json:"fs_type"`
	Mount  string `json:"mount_point"`
	Source string `json:"source"`
	// Options are the mount's options, then the file system's own
	// (mountinfo's per-mount and super options), comma-separated.
	Options string `json:"options,omitempty"`
}

// AgentInfo describes an agent: who it is and what it runs. An agent
// reports it to the controller, and run.json keeps it for every host.
type AgentInfo struct {
	Host       string `json:"host"`
	Hostname   string `json:"hostname"`
	Version    string `json:"version"`
	Protocol   int    `json:"protocol"`
	Kernel     string `json:"kernel"`
	FioVersion string `json:"fio_version,omitempty"`
	// Tools are the versions of the outside tools the agent's engines run,
	// by tool name ("fio": "fio-3.36"); a tool not found is absent.
	Tools map[string]string `json:"tools,omitempty"`
	Time  time.Time         `json:"time"`
	// Root says the agent runs as root (needed to drop caches).
	Root bool `json:"root,omitempty"`
	// AllowEvents says the agent runs a suite's event commands (it was
	// started with --allow-events).
	AllowEvents bool `json:"allow_events,omitempty"`
	// AddressLimit is the agent's address-space limit (ulimit -v) in
	// bytes, when one is set: under engine.MinAddressSpace the Go runtime
	// may end the agent, which the controller then says when it loses it.
	AddressLimit uint64 `json:"address_limit,omitempty"`
	// Busy, when set, says which run and controller hold the agent now.
	Busy string `json:"busy,omitempty"`
	// Addr is where the controller reached the agent ("" in-process).
	Addr string `json:"addr,omitempty"`
	// ClockOffsetNs is the agent's clock minus the controller's, and RTTNs the
	// round trip of the sample it was taken from, as measured before the
	// first phase (0 in-process).
	ClockOffsetNs int64 `json:"clock_offset_ns,omitempty"`
	RTTNs         int64 `json:"rtt_ns,omitempty"`
}
