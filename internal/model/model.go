// Package model holds the data types storbench persists: what a host
// measured in a phase (HostResult), what a run records about itself and its
// agents (RunInfo, AgentInfo), and the names that tie them together (engine
// names, headline kinds). It holds no behaviour, so the packages that only
// read results (results, analyze, report) import it rather than the engines
// that produced them.
package model

// EngineName names an engine in phases, results and suites.
type EngineName string

// The engines storbench has.
const (
	// EngineFio is the file engine: fio job files run by fio.
	EngineFio EngineName = "fio"
	// EngineMD is the native metadata engine (mdtest semantics).
	EngineMD EngineName = "md"
	// EngineS3 is the native S3 engine (warp's benchmarks).
	EngineS3 EngineName = "s3"
)

// The text formats a phase's results can be printed in, after the tools
// whose output they follow. An engine offers them (engine.Info.TextFormats)
// and a phase's summary keeps them, so a report chooses a format by what
// the phase offers, never by its engine's name.
const (
	// FormatWekatester is a file phase's text ("read bandwidth: 9.37
	// GiB/s"), its headline chosen per job (fio).
	FormatWekatester = "wekatester"
	// FormatIOR is IOR's result lines, over a run's file phases (fio).
	FormatIOR = "ior"
	// FormatMdtest is mdtest's rate table (md).
	FormatMdtest = "mdtest"
	// FormatWarp is warp's text, figures judged over the time every host
	// ran (s3).
	FormatWarp = "warp"
)

// Headline is the figure a phase is judged by in summaries, sweeps and
// comparisons.
type Headline string

// The headline kinds. A fio job file chooses one with a "# report KIND"
// comment, a suite with report: KIND.
const (
	HeadlineBandwidth Headline = "bandwidth"
	HeadlineIOPS      Headline = "iops"
	HeadlineLatency   Headline = "latency"
)

// Headlines lists the headline kinds, in the order suites document them.
var Headlines = []Headline{HeadlineBandwidth, HeadlineIOPS, HeadlineLatency}

// MetaReport is the HostResult.Meta key in which an engine names the
// phase's headline kind (fio: the job file's "# report" comment).
const MetaReport = "report"

// HostResult.Meta keys of a stonewall phase (fio's stonewall: IOR's -D
// with wear-out): this host's figures, which the summary puts together.
// Counts per job are comma-separated whole numbers, times Unix ns.
const (
	MetaStonewallS      = "stonewall_deadline_s"  // the deadline, seconds
	MetaStonewallBlock  = "stonewall_block_bytes" // bs: the bytes of a block
	MetaStonewallJobs   = "stonewall_job_bytes"   // each job's bytes at the deadline
	MetaStonewallHit    = "stonewall_hit"         // "true" when the deadline stopped a job of this host
	MetaStonewallStart  = "stonewall_start_ns"    // the deadline pass's first start
	MetaStonewallEnd    = "stonewall_end_ns"      // the deadline pass's last end
	MetaWearOutBlocks   = "wearout_blocks"        // the blocks every job completed to
	MetaWearOutJobBytes = "wearout_job_bytes"     // each job's bytes after the deadline
	MetaWearOutStart    = "wearout_start_ns"      // the wear-out's first start (absent: none ran here)
	MetaWearOutEnd      = "wearout_end_ns"        // the wear-out's last end
)

// MetaRankFirst and MetaRanks are the HostResult.Meta keys in which an
// engine that numbers its workers across hosts (md, as MPI ranks are:
// host order x workers per host) gives the first global rank of the host's
// workers and how many it has; run.json's ranks records them per phase.
const (
	MetaRankFirst = "rank_first"
	MetaRanks     = "ranks"
)

// StoppedByAutoterm is a phase's stopped_by when the controller ended it
// early because the total throughput of all hosts was stable.
const StoppedByAutoterm = "autoterm"
