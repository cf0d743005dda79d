package fio

import (
	"math/bits"
	"strconv"
	"strings"

	"github.com/storbench/storbench/internal/record"
)

// LiveLat returns each direction's completion latency so far, all jobs
// merged, for live snapshots: fio's json+ bins are cumulative, so each
// status report's bins are the phase's latencies up to then.
func (o *Output) LiveLat() []record.LiveLat {
	var out []record.LiveLat
	for i, name := range dirs {
		var bins record.Bins
		var n uint64
		var sum float64
		for k := range o.Jobs {
			c := o.Jobs[k].dir(i).Clat
			if c.N == 0 {
				continue
			}
			n += c.N
			sum += c.Mean * float64(c.N)
			m := make(map[int64]uint64, len(c.Bins))
			for k, v := range c.Bins {
				if ns, err := strconv.ParseInt(k, 10, 64); err == nil {
					m[ns] += v
				}
			}
			bins = record.Merge(bins, record.FromMap(m))
		}
		if n > 0 && len(bins) > 0 {
			out = append(out, record.LiveLatOf(name, bins, sum))
		}
	}
	return out
}

// liveCounts turns the statuses of one fio run into the live snapshots'
// counts, each direction's summed over the jobs, whose bytes follow their
// operations (issue 37). fio's running status copies every job's
// io_bytes before it reads their total_ios, so a status's bytes lag its
// operations (a write a job in most statuses, up to 12 with fio starved,
// thousands unthrottled: bytesByOps), and the live MiB/s, the difference
// of two snapshots' bytes, was off by the change in the lag while the
// ops/s were right. A job's bytes are instead added up interval by
// interval, the interval's new operations times a size an operation:
//
//   - the job file's block size of the direction, where every operation
//     moves it (bs, one value or read,write,trim; fio's 4096 if none) and
//     the status agrees (its io_bytes a multiple of it and no more than
//     total_ios of it, no short I/O): exact, the lag never enters;
//   - else the status's own mean, io_bytes over total_ios: the lag makes
//     it smaller than the job's true mean by the lagging operations' share
//     of all so far (a write in 64 after a second, 1 in 640 after ten), so
//     a job of varied sizes (bsrange, bssplit) is drawn that much low, and
//     at its mean so far, not at the sizes an interval drew; its live
//     total stays short of fio's by those shares, the first status's
//     most. Had fio's recorded runs (bs=64k or 4k, numjobs=4) varied
//     their sizes, a second after the first would have been 0.0-2.8%
//     low, where fio's own bytes were 4.5% low to 19% high, and the live
//     totals 0.1-3.5% short (fio niced beside two busy loops: its first
//     status lagged 43 of 132 writes). The result, from fio's final
//     output, has no lag.
//
// A job that once belies its block size is counted by its mean from then
// on; its count never goes back (a live reader takes that for a restart),
// except where fio reset its figures (ramp_time).
type liveCounts struct {
	// size holds, by job name, each direction's block size (0: none).
	size map[string][3]uint64
	// jobs holds, by a job's place in "jobs", its block sizes and its
	// count at the last status, by direction.
	jobs []liveJobs
}

// liveJobs is one job's block sizes and live counts, by direction.
type liveJobs struct {
	size  [3]uint64
	count [3]liveJob
}

// liveJob is one job's live count in one direction.
type liveJob struct {
	ios, bytes uint64
	// varied says the job's operations belied the block size.
	varied bool
}

// newLiveCounts starts the live counts of a run of the job file jf (nil:
// no block size known, every job counted by its mean).
func newLiveCounts(jf *JobFile) *liveCounts {
	l := &liveCounts{}
	if jf != nil {
		l.size = jf.blockSizes()
	}
	return l
}

// counts is o's counts by direction, as Counts, with the bytes following
// the operations. It allocates what it returns, as Counts does, and
// nothing more once it has seen every job.
func (l *liveCounts) counts(o *Output) []record.Count {
	for k := len(l.jobs); k < len(o.Jobs); k++ {
		l.jobs = append(l.jobs, liveJobs{size: l.size[o.Jobs[k].Name]})
	}
	var sum [len(dirs)]record.Count
	for k := range o.Jobs {
		j := &l.jobs[k]
		for i := range dirs {
			d := o.Jobs[k].dir(i)
			sum[i].Ops += d.TotalIOs
			sum[i].Bytes += j.count[i].follow(d, j.size[i])
		}
	}
	out := make([]record.Count, 0, len(dirs))
	for i, name := range dirs {
		if sum[i].Ops > 0 {
			sum[i].Op = name
			out = append(out, sum[i])
		}
	}
	return out
}

// follow takes in the job's figures d in a new status, its block size
// size (0: none), and returns its bytes.
func (j *liveJob) follow(d *DirOut, size uint64) uint64 {
	if d.TotalIOs < j.ios {
		*j = liveJob{varied: j.varied} // fio reset its figures (ramp_time)
	}
	if !j.varied && size > 0 {
		hi, all := bits.Mul64(d.TotalIOs, size)
		j.varied = hi != 0 || d.ShortIOs > 0 || d.IOBytes%size != 0 || d.IOBytes > all
	}
	n := d.TotalIOs - j.ios
	switch {
	case n == 0:
	case !j.varied && size > 0:
		j.bytes += n * size
	default:
		j.bytes += bytesUpTo(d.IOBytes, d.TotalIOs, n)
	}
	j.ios = d.TotalIOs
	return j.bytes
}

// blockSizes returns, by job name (fio's jobname), the bytes each
// operation of each direction moves when the job file fixes them: bs
// (blocksize), one value for all three directions or read,write,trim ones
// (",8k": fio's 4096 for reads), fio's 4096 where no bs is given; 0 where
// the sizes vary (bsrange, bssplit), bs_is_seq_rand makes them sequential
// and random ones, kb_base=1000 makes "4k" 4000, or the value is not a
// plain size. Sections of one name keep the sizes they share. With
// group_reporting, fio's entry for a group is named after its first job:
// a size is kept only where every job section has it.
func (jf *JobFile) blockSizes() map[string][3]uint64 {
	out := map[string][3]uint64{}
	var all [3]uint64
	first, grouped := true, false
	for _, s := range jf.Sections {
		if isGlobal(s.Name) || jf.flag(s, "create_only") {
			continue
		}
		size := jf.sectionSizes(s)
		grouped = grouped || jf.flag(s, "group_reporting")
		name := jf.jobName(s)
		if prev, ok := out[name]; ok {
			size = shared(prev, size)
		}
		out[name] = size
		if first {
			all, first = size, false
		}
		all = shared(all, size)
	}
	if grouped {
		for name := range out {
			out[name] = all
		}
	}
	return out
}

// shared keeps the sizes a and b have alike.
func shared(a, b [3]uint64) [3]uint64 {
	for i := range a {
		if a[i] != b[i] {
			a[i] = 0
		}
	}
	return a
}

// sectionSizes is the block size of each direction of section s (0: not
// fixed).
func (jf *JobFile) sectionSizes(s *Section) [3]uint64 {
	const fioDefault = 4096
	if _, ok := jf.Lookup(s, "bsrange", "blocksize_range", "bssplit"); ok || jf.flag(s, "bs_is_seq_rand") {
		return [3]uint64{}
	}
	if v, ok := jf.Lookup(s, "kb_base"); ok && strings.TrimSpace(v) != "1024" {
		return [3]uint64{}
	}
	v, ok := jf.Lookup(s, "bs", "blocksize")
	if !ok {
		return [3]uint64{fioDefault, fioDefault, fioDefault}
	}
	parts := strings.Split(v, ",")
	if len(parts) > 3 {
		return [3]uint64{}
	}
	var size [3]uint64
	for i := range size {
		p := parts[min(i, len(parts)-1)] // "8k,32k": trims as writes
		if strings.TrimSpace(p) == "" {
			size[i] = fioDefault
			continue
		}
		if f, ok := fioBytes(p); ok && f >= 1 && f < 1<<40 && f == float64(uint64(f)) {
			size[i] = uint64(f)
		}
	}
	return size
}
