package fio

import (
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
	}
	for j := range o.Jobs {
		job := &o.Jobs[j]
		for i := range dirs {
			cur := cumOf(job.dir(i))
			prev := p.prev[j][i]
			p.prev[j][i] = cur
			if cur.ios < prev.ios || cur.n < prev.n {
				prev = jobCum{} // fio reset its figures (after ramp_time)
			}
			if cur.ios == prev.ios {
				if cur.bytes > prev.bytes {
					p.catchUp(j, i, cur.bytes-prev.bytes)
				}
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

// catchUp adds bytes to the last interval of job j in direction dir.
// fio's running status copies a job's bytes before it reads its
// operations, so the bytes may lag a few operations and catch up in an
// interval without a new operation (at the job's end): they belong to the
// operations already counted, and were lost from the series with that
// interval.
func (p *perSecond) catchUp(j, dir int, bytes uint64) {
	for k := len(p.secs) - 1; k >= 0; k-- {
		if s := &p.secs[k]; s.index == j && s.dir == dir {
			s.Bytes += bytes
			return
		}
	}
}

// result names the intervals as final's OpStats names operations and adds
// up the jobs that share a name in each interval.
func (p *perSecond) result(final *Output) ([]record.Second, []record.LatSecond) {
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
