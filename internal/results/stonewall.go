package results

import (
	"strconv"
	"strings"

	"github.com/storbench/storbench/internal/model"
)

// StonewallSummary is a write phase's stonewall (fio's stonewall, IOR's -D
// with wear-out, as IO500 runs it): every job wrote until the deadline,
// then every job of every host on to the most blocks any job had written.
// The phase's figures (its ops) are all bytes over the whole window, the
// wear-out included (IOR's bandwidth); these are the figures at the
// deadline, which IOR prints beside it ("stonewalling pairs accessed min
// ... max ...", IO500's throughput-stonewall).
type StonewallSummary struct {
	// DeadlineS is the deadline, in seconds from each host's start.
	DeadlineS float64 `json:"deadline_s"`
	// Hit says the deadline stopped a job (false: every job wrote its
	// whole size before it, and no wear-out was needed).
	Hit bool `json:"hit"`
	// BlockBytes is the size of a block (bs, IOR's transfer); Jobs is the
	// jobs (IOR's ranks) of all hosts.
	BlockBytes int64 `json:"block_bytes"`
	Jobs       int   `json:"jobs"`
	// Bytes is what all jobs had written at the deadline; MinJobBytes,
	// MaxJobBytes and MeanJobBytes are per job.
	Bytes        int64   `json:"bytes"`
	MinJobBytes  int64   `json:"min_job_bytes"`
	MaxJobBytes  int64   `json:"max_job_bytes"`
	MeanJobBytes float64 `json:"mean_job_bytes"`
	// DurationS is from the first job's start to the last job's stop at
	// the deadline; BwBytesPerS is Bytes over it (IO500's
	// throughput-stonewall), absent when it could not be measured.
	DurationS   float64  `json:"duration_s"`
	BwBytesPerS *float64 `json:"bw_bytes_per_s,omitempty"`
	// WearOutBlocks is the count of blocks every job of every host wrote
	// in all (IOR's pairs_accessed after the wear-out; what the read
	// phase reads per job), WearOutBytes what the jobs wrote after the
	// deadline, and WearOutS the time from the first host's start of the
	// wear-out to the last one's end, absent when no job needed one.
	WearOutBlocks int64    `json:"wear_out_blocks"`
	WearOutBytes  int64    `json:"wear_out_bytes"`
	WearOutS      *float64 `json:"wear_out_s,omitempty"`
}

// StonewallOf puts the hosts' stonewall figures together; nil when the
// phase had no stonewall or no host recorded its figures.
func StonewallOf(hosts []*model.HostResult) *StonewallSummary {
	var s *StonewallSummary
	var start, end, wStart, wEnd int64
	for _, h := range hosts {
		if h == nil || h.Meta[model.MetaStonewallS] == "" || h.Meta[model.MetaStonewallJobs] == "" {
			continue
		}
		m := h.Meta
		if s == nil {
			s = &StonewallSummary{MinJobBytes: -1}
			s.DeadlineS, _ = strconv.ParseFloat(m[model.MetaStonewallS], 64)
			s.BlockBytes, _ = strconv.ParseInt(m[model.MetaStonewallBlock], 10, 64)
		}
		s.Hit = s.Hit || m[model.MetaStonewallHit] == "true"
		for _, b := range ints(m[model.MetaStonewallJobs]) {
			s.Jobs++
			s.Bytes += b
			s.MaxJobBytes = max(s.MaxJobBytes, b)
			if s.MinJobBytes < 0 || b < s.MinJobBytes {
				s.MinJobBytes = b
			}
		}
		for _, b := range ints(m[model.MetaWearOutJobBytes]) {
			s.WearOutBytes += b
		}
		n, _ := strconv.ParseInt(m[model.MetaWearOutBlocks], 10, 64)
		s.WearOutBlocks = max(s.WearOutBlocks, n)
		start, end = edges(start, end, m[model.MetaStonewallStart], m[model.MetaStonewallEnd])
		wStart, wEnd = edges(wStart, wEnd, m[model.MetaWearOutStart], m[model.MetaWearOutEnd])
	}
	if s == nil {
		return nil
	}
	if s.Jobs > 0 {
		s.MeanJobBytes = float64(s.Bytes) / float64(s.Jobs)
	}
	if end > start && start > 0 {
		s.DurationS = float64(end-start) / 1e9
		s.BwBytesPerS = Figure(float64(s.Bytes) / s.DurationS)
	}
	if wEnd > wStart && wStart > 0 {
		s.WearOutS = Figure(float64(wEnd-wStart) / 1e9)
	}
	return s
}

// edges widens [start, end] (Unix ns, 0: none yet) to hold the span a
// host's meta gives.
func edges(start, end int64, from, to string) (int64, int64) {
	a, errA := strconv.ParseInt(from, 10, 64)
	b, errB := strconv.ParseInt(to, 10, 64)
	if errA != nil || errB != nil || a <= 0 || b < a {
		return start, end
	}
	if start == 0 || a < start {
		start = a
	}
	return start, max(end, b)
}

// ints reads comma-separated whole numbers, skipping what is not one.
func ints(s string) []int64 {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}
