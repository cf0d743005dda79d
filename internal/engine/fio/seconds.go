package fio

import (
	"math/bits"
	"strconv"

	"github.com/storbench/storbench/internal/record"
)

// perSecond turns fio's per-second status outputs, each holding every
// job's cumulative counts and completion-latency bins (json+), into the
// phase's per-second series and one latency histogram per interval: the
// differences of consecutive outputs, bin by bin. Operations are named as
// OpStats names them, which only the final output decides ("read", or
// "<job> read" when several job groups did I/O), so intervals are kept by
// job and direction until then.
type perSecond struct {
	// prev is the last cumulative state of each job (by its index in
	// "jobs") and direction.
	prev [][3]jobCum
	secs []jobSecond
	// idle holds, by job and direction, the intervals without a new
	// operation since that job's last one: a stall inside the job's run
	// if another operation follows (the time counts, with none done), the
	// job's end if none does (dropped).
	idle [][3][]jobSecond
	// starts holds, by job, when its figures began to count (Unix ns; 0:
	// not known), as fio's statuses say (endWithTheJobs), from those
	// whose start is no earlier than after (about the phase's start).
	// With ramped (the job file has a ramp_time) none is taken: fio counts
	// a job's runtime again from its ramp's end, and which statuses came
	// before that, for a job that came to the gate late (a later
	// stonewall group), is not known.
	starts []jobStart
	after  int64
	ramped bool
}

// jobStart is the earliest start of a job's figures the statuses gave,
// with and without the latest status: fio's statuses stamp their time
// after taking the job's runtime, late by any delay between, and the
// final output's, when its main process printed it after reaping the
// job, late by the time that took.
type jobStart struct{ all, before int64 }

func (s *jobStart) take(at int64) {
	s.before = s.all
	if s.all == 0 || at < s.all {
		s.all = at
	}
}

type jobSecond struct {
	job string
	// index is the job's place in "jobs", dir its direction.
	index, dir int
	record.Second
	lat record.LatSecond // no bins: latency not recorded
}

// jobCum is one job's cumulative figures in one direction.
type jobCum struct {
	ios, bytes uint64
	// n and sum are the completion latencies' count and sum (ns); bins
	// their histogram, nil when the job records none.
	n    uint64
	sum  float64
	bins map[int64]uint64
}

func cumOf(d *DirOut) jobCum {
	c := jobCum{ios: d.TotalIOs, bytes: d.IOBytes, n: d.Clat.N, sum: d.Clat.Mean * float64(d.Clat.N)}
	if len(d.Clat.Bins) > 0 {
		c.bins = make(map[int64]uint64, len(d.Clat.Bins))
		for k, n := range d.Clat.Bins {
			if v, err := strconv.ParseInt(k, 10, 64); err == nil {
				c.bins[v] += n
			}
		}
	}
	return c
}

// add takes one status output, which closes the interval [fromNs, toNs).
func (p *perSecond) add(o *Output, fromNs, toNs int64) {
	for len(p.prev) < len(o.Jobs) {
		p.prev = append(p.prev, [3]jobCum{})
		p.idle = append(p.idle, [3][]jobSecond{})
		p.starts = append(p.starts, jobStart{})
	}
	for j := range o.Jobs {
		job := &o.Jobs[j]
		start := (o.TimestampMs - job.JobRuntime) * 1e6
		if o.TimestampMs > 0 && job.JobRuntime > 0 && job.busy() && start >= p.after && !p.ramped {
			p.starts[j].take(start)
		}
		for i := range dirs {
			cur := cumOf(job.dir(i))
			prev := p.prev[j][i]
			p.prev[j][i] = cur
			if cur.ios < prev.ios || cur.n < prev.n {
				prev = jobCum{} // fio reset its figures (after ramp_time)
			}
			if cur.ios == prev.ios {
				if prev.ios > 0 {
					p.idle[j][i] = append(p.idle[j][i], jobSecond{job: job.Name, index: j, dir: i, Second: record.Second{StartNs: fromNs, EndNs: toNs}})
				}
				continue
			}
			// The job went on: its intervals without an operation were a
			// stall, whose time counts.
			p.secs = append(p.secs, p.idle[j][i]...)
			p.idle[j][i] = p.idle[j][i][:0]
			s := jobSecond{job: job.Name, index: j, dir: i, Second: record.Second{StartNs: fromNs, EndNs: toNs,
				Ops: cur.ios - prev.ios, Bytes: cur.bytes - prev.bytes}}
			if cur.n > prev.n && len(cur.bins) > 0 {
				m := make(map[int64]uint64, len(cur.bins))
				for v, n := range cur.bins {
					if n > prev.bins[v] {
						m[v] = n - prev.bins[v]
					}
				}
				s.lat = record.LatSecond{StartNs: fromNs, EndNs: toNs, SumNs: max(cur.sum-prev.sum, 0), Bins: record.FromMap(m)}
			}
			p.secs = append(p.secs, s)
		}
	}
}

// bytesByOps sets each interval's bytes from its operations, job by job
// and direction by direction: the job's bytes in final (B, io_bytes)
// shared over its last N operations in the series (N, total_ios), the
// interval holding its k-th to m-th last having floor(m*B/N) -
// floor(k*B/N). fio's running status copies every job's io_bytes before
// it reads their total_ios, so a status's bytes lag its operations by the
// time between (a write a job at 64 a second; up to 12 with fio starved),
// and the difference of two statuses' bytes was off by the change in the
// lag: a short last second after a status that lagged half a second was
// drawn at 2.54x the throughput of the others, its operations right.
// Where the job's block size is fixed (B is N times it), an interval's
// bytes are its operations times that size, exactly. Where it is not
// (bsrange, bssplit, short I/Os), they are its operations at the job's
// mean size, B/N: the lag never enters, but an interval whose blocks were
// larger or smaller than the job's average is drawn at the average (off
// by the spread of the sizes drawn in it, the less the more operations it
// holds). The series' bytes add up to final's either way; operations
// before fio last reset its figures (ramp_time), which final does not
// count, have the job's mean size each. A job final lists at another
// place or with no operation keeps the bytes its statuses said.
func (p *perSecond) bytesByOps(final *Output) {
	// later holds, by job and direction, the series' operations after the
	// interval at hand (the series is walked from its end).
	later := make([][3]uint64, len(p.prev))
	for k := len(p.secs) - 1; k >= 0; k-- {
		s := &p.secs[k]
		if s.index >= len(final.Jobs) || final.Jobs[s.index].Name != s.job {
			continue
		}
		d := final.Jobs[s.index].dir(s.dir)
		if d.TotalIOs == 0 {
			continue
		}
		from := later[s.index][s.dir]
		to := from + s.Ops
		later[s.index][s.dir] = to
		s.Bytes = bytesUpTo(d.IOBytes, d.TotalIOs, to) - bytesUpTo(d.IOBytes, d.TotalIOs, from)
	}
}

// bytesUpTo is floor(k*total/n), the bytes of the last k of a job's n > 0
// operations, which moved total bytes; operations before those n have
// floor(total/n) each. The product is taken in 128 bits: it
// passes 2^64 at 4 TiB moved in 4 million operations.
func bytesUpTo(total, n, k uint64) uint64 {
	extra := uint64(0)
	if k > n {
		extra, k = (k-n)*(total/n), n
	}
	hi, lo := bits.Mul64(total, k)
	q, _ := bits.Div64(hi, lo, n) // k <= n: the quotient fits, hi < n
	return q + extra
}

// endWithTheJobs ends each interval no later than the jobs with
// operations in it ended: fio stamps its final output when its main
// process has reaped the jobs and printed, which a starved machine does
// late (0.27 s after the jobs of a 6-s run in make test), and the last
// interval, closed there, held the jobs' last operations over time in
// which none ran; the report drew it at 0.23x the median. A job ended
// when its figures began (its statuses' times less their job_runtime,
// final, the last output taken, left out) plus final's job_runtime. An
// interval that holds a job whose end is not known is left as it is.
func (p *perSecond) endWithTheJobs(final *Output) {
	ends := make(map[int64]int64) // by an interval's end, the latest end of its jobs; -1: not known
	for _, s := range p.secs {
		end := int64(-1)
		if s.index < len(final.Jobs) && final.Jobs[s.index].Name == s.job {
			if start, ran := p.starts[s.index].before, final.Jobs[s.index].JobRuntime; start > 0 && ran > 0 {
				end = start + ran*1e6
			}
		}
		if e, ok := ends[s.EndNs]; !ok || (e >= 0 && (end < 0 || end > e)) {
			ends[s.EndNs] = end
		}
	}
	for i := range p.secs {
		s := &p.secs[i]
		if end := ends[s.EndNs]; end >= 0 && end < s.EndNs {
			s.EndNs = max(end, s.StartNs+1)
			if len(s.lat.Bins) > 0 {
				s.lat.EndNs = s.EndNs
			}
		}
	}
}

// result names the intervals as final's OpStats names operations and adds
// up the jobs that share a name in each interval.
func (p *perSecond) result(final *Output) ([]record.Second, []record.LatSecond) {
	p.bytesByOps(final)
	p.endWithTheJobs(final)
	byJob := final.namedByJob()
	type key struct {
		op  string
		end int64
	}
	var series []record.Second
	var lat []record.LatSecond
	si, li := map[key]int{}, map[key]int{}
	for _, s := range p.secs {
		name := dirs[s.dir]
		if byJob {
			name = s.job + " " + name
		}
		k := key{name, s.EndNs}
		if i, ok := si[k]; ok {
			series[i].Ops += s.Ops
			series[i].Bytes += s.Bytes
		} else {
			si[k] = len(series)
			s.Second.Op = name
			series = append(series, s.Second)
		}
		if len(s.lat.Bins) == 0 {
			continue
		}
		if i, ok := li[k]; ok {
			lat[i].Bins = record.Merge(lat[i].Bins, s.lat.Bins)
			lat[i].SumNs += s.lat.SumNs
		} else {
			li[k] = len(lat)
			s.lat.Op = name
			lat = append(lat, s.lat)
		}
	}
	return series, lat
}
