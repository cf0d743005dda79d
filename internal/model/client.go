package model

// ClientLoad is how much of a host's CPU was left to storbench while it
// ran a phase: what other work on the host took, what the hypervisor
// took (steal), the load average, and how late storbench's own timers
// woke. A starved client sets the figures itself, not the storage:
// Starved says so, and Why in words. A figure that could not be taken
// (no /proc) is absent.
type ClientLoad struct {
	// CPUs is how many CPUs the host's kernel counts.
	CPUs int `json:"cpus,omitempty"`
	// LoadStart and LoadEnd are the 1-minute load average at the run's
	// start and end, per CPU.
	LoadStart *float64 `json:"load_per_cpu_start,omitempty"`
	LoadEnd   *float64 `json:"load_per_cpu_end,omitempty"`
	// OthersPct is the CPU time processes other than storbench and what
	// it started (fio) took during the run, as a percentage of all the
	// host's CPU time then.
	OthersPct *float64 `json:"others_cpu_pct,omitempty"`
	// StealPct is the CPU time the hypervisor took from the host during
	// the run (/proc/stat's steal), as a percentage of all its CPU time.
	StealPct *float64 `json:"steal_pct,omitempty"`
	// LateMaxMs is the longest a timer of storbench's, set to fire every
	// 100 ms during the run, woke late: the scheduling delay storbench
	// itself saw.
	LateMaxMs *float64 `json:"timer_late_max_ms,omitempty"`
	// Gave is what the engine's tool said when it gave up for want of
	// CPU (fio's "stuck grabbing stat_sem"): the phase failed on the host
	// for it.
	Gave string `json:"gave_up,omitempty"`
	// Starved says the host's CPU was too busy with other work for its
	// figures to be the storage's; Why says what showed it.
	Starved bool   `json:"starved,omitempty"`
	Why     string `json:"why,omitempty"`
}
