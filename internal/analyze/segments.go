// Package analyze turns what a run recorded into the figures a storage
// engineer reads: time segments of the throughput series (fastest, median,
// slowest second, as warp prints them), and whole-run statistics recomputed
// from a benchdata file by streaming it in bounded memory.
package analyze

import (
	"sort"
	"time"

	"github.com/storbench/storbench/internal/record"
)

// Segment is the throughput of one operation in one time segment, summed
// over every host that reported it.
type Segment struct {
	// StartNs is the segment's start (Unix ns); Dur its length.
	StartNs int64         `json:"start_ns"`
	Dur     time.Duration `json:"dur_ns"`
	Ops     uint64        `json:"ops"`
	Bytes   uint64        `json:"bytes"`
	Errors  uint64        `json:"errors"`
}

// OpsPerS is the segment's operation rate.
func (s Segment) OpsPerS() float64 { return float64(s.Ops) / s.Dur.Seconds() }

// BytesPerS is the segment's data rate.
func (s Segment) BytesPerS() float64 { return float64(s.Bytes) / s.Dur.Seconds() }

// SegmentSummary is warp's "Throughput, split into N x 1s" block.
type SegmentSummary struct {
	Op      string        `json:"op"`
	N       int           `json:"n"`
	Dur     time.Duration `json:"dur_ns"`
	Fastest Segment       `json:"fastest"`
	Median  Segment       `json:"median"`
	Slowest Segment       `json:"slowest"`
}

// Segments cuts op's part of a per-second series (from one or several
// hosts) into segments of length dur aligned on the earliest interval, sums
// the hosts, and ranks them by bytes (by ops when the operation moves no
// data). Incomplete segments at either end of the run (less than dur
// covered by some host's samples) are left out, as warp leaves out the
// time before every worker has started and after the first has stopped.
// The median is the upper middle of the sorted segments. ok is false when
// no complete segment exists.
func Segments(series []record.Second, op string, dur time.Duration) (SegmentSummary, bool) {
	if dur <= 0 {
		dur = time.Second
	}
	var base int64 = -1
	for _, s := range series {
		if s.Op == op && (base < 0 || s.StartNs < base) {
			base = s.StartNs
		}
	}
	if base < 0 {
		return SegmentSummary{Op: op}, false
	}
	type acc struct {
		Segment
		covered time.Duration
	}
	segs := map[int64]*acc{}
	for _, s := range series {
		if s.Op != op {
			continue
		}
		// An interval is assigned to the segment holding its midpoint.
		mid := (s.StartNs + s.EndNs) / 2
		i := (mid - base) / int64(dur)
		a := segs[i]
		if a == nil {
			a = &acc{Segment: Segment{StartNs: base + i*int64(dur), Dur: dur}}
			segs[i] = a
		}
		a.Ops += s.Ops
		a.Bytes += s.Bytes
		a.Errors += s.Errors
		a.covered += time.Duration(s.EndNs - s.StartNs)
	}
	hosts := maxHostsPerSegment(series, op, base, dur)
	var list []Segment
	lo, hi := int64(-1), int64(-1)
	for i, a := range segs {
		// Complete: every host's intervals cover (almost) the whole segment.
		if float64(a.covered) >= 0.9*float64(dur)*float64(hosts) {
			list = append(list, a.Segment)
			if lo < 0 || i < lo {
				lo = i
			}
			hi = max(hi, i)
		}
	}
	// The sampler writes no interval for a second in which nothing ended:
	// inside the run that is a stall, a segment of zero, not a gap.
	for i := lo; lo >= 0 && i <= hi; i++ {
		if segs[i] == nil {
			list = append(list, Segment{StartNs: base + i*int64(dur), Dur: dur})
		}
	}
	if len(list) == 0 {
		return SegmentSummary{Op: op}, false
	}
	byBytes := false
	for _, s := range list {
		byBytes = byBytes || s.Bytes > 0
	}
	sort.Slice(list, func(i, j int) bool {
		if byBytes && list[i].Bytes != list[j].Bytes {
			return list[i].Bytes > list[j].Bytes
		}
		if list[i].Ops != list[j].Ops {
			return list[i].Ops > list[j].Ops
		}
		return list[i].StartNs < list[j].StartNs
	})
	return SegmentSummary{Op: op, N: len(list), Dur: dur,
		Fastest: list[0], Median: list[len(list)/2], Slowest: list[len(list)-1]}, true
}

// maxHostsPerSegment estimates how many hosts report op at once: the most
// intervals of op that contain a common instant. For one host it is 1.
func maxHostsPerSegment(series []record.Second, op string, base int64, dur time.Duration) int {
	count := map[int64]int{}
	best := 1
	for _, s := range series {
		if s.Op != op || s.EndNs-s.StartNs < int64(dur)/2 {
			continue
		}
		i := ((s.StartNs+s.EndNs)/2 - base) / int64(dur)
		count[i]++
		best = max(best, count[i])
	}
	return best
}
