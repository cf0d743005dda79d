package model

// ClientLoad is how much of a host's CPU was left to storbench while it
// ran a phase (ClientSummary) and what its CPU, memory, network and
// disks did second by second (Samples): a host's result.json keeps it
// whole, summary.json its ClientSummary.
type ClientLoad struct {
	ClientSummary
	// Samples is what the host's CPU, memory, network and disks did,
	// second by second, during the phase: absent when it could not be
	// sampled (no /proc).
	Samples *HostSamples `json:"samples,omitempty"`
}

// ClientSummary is what other work on a host took of its CPU while it
// ran a phase, what the hypervisor took (steal), the load average, how
// late storbench's own timers woke, its samples in a few figures, and
// the verdicts. A starved client sets the figures itself, not the
// storage: Starved says so, and Why in words. A figure that could not be
// taken (no /proc) is absent.
type ClientSummary struct {
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
	// LocalServers are the storage's own processes on this host (a
	// server on loopback that the load talked to, not one storbench
	// started) and the CPU each took, as a percentage of all the host's
	// CPU time: counted apart from OthersPct, as the storage's work, not
	// other work. Absent when the load talked to none.
	LocalServers []LocalServer `json:"local_servers,omitempty"`
	// Sampled is the host's samples over the phase in a few figures (the
	// series are in its result.json); absent when it was not sampled.
	Sampled *SamplesSummary `json:"sampled,omitempty"`
	// Verdicts says whose limit the host's figure may be: each limit of
	// the client's own that it reached (its CPU, its network link, its
	// disk, or starved by other work). Empty when sampled and none was
	// reached.
	Verdicts []Verdict `json:"verdicts,omitempty"`
}

// Verdict kinds: which of the client's own limits a phase reached.
// VerdictShared is a client whose CPU the storage's own server on the
// same host, or other work, took a large share of: not starved by other
// work, but not a client with the host to itself either.
const (
	VerdictCPU     = "cpu"
	VerdictNetwork = "network"
	VerdictDisk    = "disk"
	VerdictStarved = "starved"
	VerdictShared  = "shared"
)

// LocalServer is a process of the storage under test on the client's
// own host, and the share of the host's CPU time it took.
type LocalServer struct {
	Process string  `json:"process"`
	Pid     int     `json:"pid"`
	CPUPct  float64 `json:"cpu_pct"`
}

// Verdict is one limit of the client's own that a host reached during a
// phase: Kind (a Verdict constant) and Text, the words a user reads
// ("client CPU saturated: ...").
type Verdict struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// HostSamples is one host's own figures once a second during a phase,
// from /proc and /sys. Every series has one value per sample, in the
// order of TS; a percentage of CPU time is of all the host's CPUs unless
// said otherwise.
type HostSamples struct {
	// Cores are the cores the client could use (its cgroup's cpuset),
	// as the kernel lists them ("0-3").
	Cores string `json:"cores"`
	// QuotaCPUs is its cgroup's CPU quota in cores' worth (cpu.max),
	// absent when it has none.
	QuotaCPUs *float64 `json:"quota_cpus,omitempty"`
	// StartNs is when sampling began (Unix ns): the phase's start on
	// this host.
	StartNs int64 `json:"start_ns"`
	// TS is each sample's end, in seconds from StartNs.
	TS        []float64 `json:"t_s"`
	UserPct   []float64 `json:"user_pct"`
	SystemPct []float64 `json:"system_pct"`
	IowaitPct []float64 `json:"iowait_pct"`
	StealPct  []float64 `json:"steal_pct"`
	// UsedPct is the CPU it could use that was busy: its cgroup's usage
	// of its quota, or without a quota the busy time of its cores.
	UsedPct []float64 `json:"used_pct"`
	// ThrottledPct is, under a quota, the share of the quota's periods
	// (100 ms as a rule) in which the kernel held the cgroup back for
	// having used it all (cpu.stat's nr_throttled of nr_periods). Absent
	// without a quota.
	ThrottledPct []float64 `json:"throttled_pct,omitempty"`
	// CoreBusyPct is each core's busy time, by core number.
	CoreBusyPct [][]float64 `json:"core_busy_pct,omitempty"`
	// RunQueue is the processes running or ready to run (procs_running).
	RunQueue []float64 `json:"run_queue"`
	// MemUsedBytes is memory in use (total less available), CacheBytes
	// the page cache.
	MemUsedBytes []float64 `json:"mem_used_bytes,omitempty"`
	CacheBytes   []float64 `json:"cache_bytes,omitempty"`
	// Net is each network interface that moved bytes (loopback aside).
	Net []NetSamples `json:"net,omitempty"`
	// Disks is each block device that was busy.
	Disks []DiskSamples `json:"disks,omitempty"`
	// BusiestThread is the thread of the load (storbench's own, or of a
	// tool it ran, such as a fio job) that ran or waited to run a whole
	// second in the most seconds; absent when none did in any.
	BusiestThread *BusiestThread `json:"busiest_thread,omitempty"`
}

// BusiestThread is one thread of a host's load and how many of a phase's
// seconds it ran or waited to run the whole second (95% of it or more):
// a single-threaded tool's limit, one core.
type BusiestThread struct {
	// Process is the process's command name ("fio", "storbench").
	Process string `json:"process"`
	Pid     int    `json:"pid"`
	// Tid is the thread's id: the Pid for a process's first thread.
	Tid     int `json:"tid"`
	Seconds int `json:"seconds"`
}

// NetSamples is one network interface's traffic.
type NetSamples struct {
	Name string `json:"name"`
	// LinkBytesPerS is the link's speed, where the kernel tells it
	// (/sys/class/net/NAME/speed), in bytes per second each way.
	LinkBytesPerS *float64  `json:"link_bytes_per_s,omitempty"`
	RxBytesPerS   []float64 `json:"rx_bytes_per_s"`
	TxBytesPerS   []float64 `json:"tx_bytes_per_s"`
}

// DiskSamples is one block device's busy time (/proc/diskstats' time
// doing I/O) as a percentage of each second.
type DiskSamples struct {
	Name    string    `json:"name"`
	BusyPct []float64 `json:"busy_pct"`
}

// SamplesSummary is a host's samples (HostSamples) over a phase in a few
// figures: each series' median second and its highest.
type SamplesSummary struct {
	// Seconds is how many samples were taken, one a second.
	Seconds   int      `json:"seconds"`
	Cores     string   `json:"cores"`
	QuotaCPUs *float64 `json:"quota_cpus,omitempty"`
	UserPct   Spread   `json:"user_pct"`
	SystemPct Spread   `json:"system_pct"`
	IowaitPct Spread   `json:"iowait_pct"`
	StealPct  Spread   `json:"steal_pct"`
	// UsedPct is of the CPU it could use (HostSamples.UsedPct).
	UsedPct      *Spread `json:"used_pct,omitempty"`
	ThrottledPct *Spread `json:"throttled_pct,omitempty"`
	// BusiestCorePct is, each second, the busiest core's busy time.
	BusiestCorePct *Spread        `json:"busiest_core_pct,omitempty"`
	RunQueue       Spread         `json:"run_queue"`
	MemUsedBytes   *Spread        `json:"mem_used_bytes,omitempty"`
	CacheBytes     *Spread        `json:"cache_bytes,omitempty"`
	Net            []NetSummary   `json:"net,omitempty"`
	Disks          []DiskSummary  `json:"disks,omitempty"`
	BusiestThread  *BusiestThread `json:"busiest_thread,omitempty"`
}

// Spread is a series' median and highest value.
type Spread struct {
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

// NetSummary is one network interface's traffic over a phase.
type NetSummary struct {
	Name          string   `json:"name"`
	LinkBytesPerS *float64 `json:"link_bytes_per_s,omitempty"`
	RxBytesPerS   Spread   `json:"rx_bytes_per_s"`
	TxBytesPerS   Spread   `json:"tx_bytes_per_s"`
}

// DiskSummary is one block device's busy time over a phase.
type DiskSummary struct {
	Name    string `json:"name"`
	BusyPct Spread `json:"busy_pct"`
}
