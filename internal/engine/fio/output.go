package fio

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/storbench/storbench/internal/record"
)

// Output is the part of fio's json+ output storbench reads. The raw text is
// always kept beside it.
type Output struct {
	Version     string   `json:"fio version"`
	TimestampMs int64    `json:"timestamp_ms"`
	Jobs        []JobOut `json:"jobs"`
}

// JobOut is one entry of "jobs": a job, or a group with group_reporting.
type JobOut struct {
	Name    string `json:"jobname"`
	GroupID int    `json:"groupid"`
	Error   int    `json:"error"`
	Elapsed int64  `json:"elapsed"`
	// JobRuntime is how long the job has run (ms): since its figures
	// began (its start, or the end of its ramp_time), to the status, or
	// to its end in the final output.
	JobRuntime int64  `json:"job_runtime"`
	Read       DirOut `json:"read"`
	Write      DirOut `json:"write"`
	Trim       DirOut `json:"trim"`
}

// DirOut is one data direction of a job.
type DirOut struct {
	IOBytes  uint64  `json:"io_bytes"`
	BwBytes  float64 `json:"bw_bytes"`
	IOPS     float64 `json:"iops"`
	RuntimeM int64   `json:"runtime"` // ms
	TotalIOs uint64  `json:"total_ios"`
	ShortIOs uint64  `json:"short_ios"`
	DropIOs  uint64  `json:"drop_ios"`
	Clat     LatOut  `json:"clat_ns"`
	Lat      LatOut  `json:"lat_ns"`
}

// LatOut is a latency block; Bins are json+ only, keyed by bucket value (ns).
type LatOut struct {
	Min        int64             `json:"min"`
	Max        int64             `json:"max"`
	Mean       float64           `json:"mean"`
	Stddev     float64           `json:"stddev"`
	N          uint64            `json:"N"`
	Percentile map[string]int64  `json:"percentile"`
	Bins       map[string]uint64 `json:"bins"`
}

// ParseOutput decodes one fio JSON object.
func ParseOutput(b []byte) (*Output, error) {
	var o Output
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, fmt.Errorf("fio output is not valid JSON: %v", err)
	}
	return &o, nil
}

// SplitObjects reads fio's stdout, which with --status-interval holds one
// pretty-printed JSON object per interval, and calls fn with each complete
// object's text. fio opens and closes every top-level object with a brace
// alone on its line, which is how objects are told apart; any other line
// outside an object (warnings) goes to other.
func SplitObjects(r io.Reader, fn func([]byte), other func(string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var cur []byte
	in := false
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case !in && string(line) == "{":
			in = true
			cur = append(cur[:0], '{', '\n')
		case in:
			cur = append(cur, line...)
			cur = append(cur, '\n')
			if string(line) == "}" {
				in = false
				fn(cur)
				cur = nil
			}
		default:
			if other != nil && len(line) > 0 {
				other(string(line))
			}
		}
	}
	return sc.Err()
}

// dirs names the three data directions in fio's order.
var dirs = [...]string{"read", "write", "trim"}

func (j *JobOut) dir(i int) *DirOut {
	switch i {
	case 0:
		return &j.Read
	case 1:
		return &j.Write
	default:
		return &j.Trim
	}
}

// busy reports whether the job moved any data (a create_only section does not).
func (j *JobOut) busy() bool {
	return j.Read.TotalIOs+j.Write.TotalIOs+j.Trim.TotalIOs > 0
}

// namedByJob reports whether the jobs that did I/O have more than one
// name, so that an operation is "<job> read" rather than "read". Clones of
// one section (numjobs) share its name: how many jobs ran a section never
// changes what its operations are called.
func (o *Output) namedByJob() bool {
	first := ""
	for i := range o.Jobs {
		switch j := &o.Jobs[i]; {
		case !j.busy():
		case first == "":
			first = j.Name
		case j.Name != first:
			return true
		}
	}
	return false
}

// OpStats converts the final output into per-direction statistics: one
// OpStats per direction that did I/O, named "read", "write" or "trim", or
// "<job> read" when sections of several names in the file did I/O (the
// numjobs clones of one section come apart, under its name). Completion latency
// (clat) is what is reported, as fio's own percentiles are.
func (o *Output) OpStats() ([]record.OpStats, error) {
	var busy []*JobOut
	for i := range o.Jobs {
		if o.Jobs[i].busy() {
			busy = append(busy, &o.Jobs[i])
		}
	}
	byJob := o.namedByJob()
	var out []record.OpStats
	for _, j := range busy {
		for i, name := range dirs {
			d := j.dir(i)
			if d.TotalIOs == 0 {
				continue
			}
			if byJob {
				name = j.Name + " " + name
			}
			st, err := o.dirStats(name, d)
			if err != nil {
				return nil, err
			}
			out = append(out, st)
		}
	}
	return out, nil
}

// dirStats is direction d of a job as an operation named name, with
// fio's own rates.
func (o *Output) dirStats(name string, d *DirOut) (record.OpStats, error) {
	bins := make(map[int64]uint64, len(d.Clat.Bins))
	for k, n := range d.Clat.Bins {
		v, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			return record.OpStats{}, fmt.Errorf("fio output: bad bin %q", k)
		}
		bins[v] += n
	}
	end := o.TimestampMs * 1e6
	return record.OpStats{
		Op: name, Ops: d.TotalIOs, Bytes: d.IOBytes,
		StartNs: end - d.RuntimeM*1e6, EndNs: end,
		Lat: record.Hist{
			Stats: record.StatsFromMoments(d.Clat.N, d.Clat.Min, d.Clat.Max, d.Clat.Mean, d.Clat.Stddev),
			Bins:  record.FromMap(bins),
		},
		ReportedBwBytesPerS: d.BwBytes,
		ReportedOpsPerS:     d.IOPS,
	}, nil
}

// jobsCombined is the output of a run without group_reporting (every job
// apart: a stonewall phase needs each job's bytes) as group_reporting
// gives it for a job file of one section: one operation per direction,
// the jobs' counts added and their histograms merged, over the span of
// all of them. fio's own rates are not kept (Combine): the rate is the
// bytes over that span.
func (o *Output) jobsCombined() []record.OpStats {
	var lists [][]record.OpStats
	for k := range o.Jobs {
		j := &o.Jobs[k]
		var l []record.OpStats
		for i, name := range dirs {
			d := j.dir(i)
			if d.TotalIOs == 0 {
				continue
			}
			if st, err := o.dirStats(name, d); err == nil {
				l = append(l, st)
			}
		}
		lists = append(lists, l)
	}
	out := record.CombineAll(lists...)
	for i := range out {
		out[i].ReportedBwBytesPerS, out[i].ReportedOpsPerS = 0, 0
	}
	return out
}

// Counts sums the cumulative counts per direction over all jobs: a final
// output's, whose bytes are its operations'. A running status's bytes lag
// its operations; live snapshots take its counts through liveCounts.
func (o *Output) Counts() []record.Count {
	out := make([]record.Count, 0, 3)
	for i, name := range dirs {
		c := record.Count{Op: name}
		for k := range o.Jobs {
			d := o.Jobs[k].dir(i)
			c.Ops += d.TotalIOs
			c.Bytes += d.IOBytes
		}
		if c.Ops > 0 {
			out = append(out, c)
		}
	}
	return out
}

// Elapsed is the longest job's elapsed time, in seconds.
func (o *Output) Elapsed() int64 {
	var e int64
	for _, j := range o.Jobs {
		e = max(e, j.Elapsed)
	}
	return e
}

// FirstError returns the errno of the first job that failed, or 0.
func (o *Output) FirstError() (string, int) {
	for _, j := range o.Jobs {
		if j.Error != 0 {
			return j.Name, j.Error
		}
	}
	return "", 0
}

// alignStart puts the operations' windows on when this host's jobs really
// began: passed holds when each job passed the start gate (Unix ns, in
// order). When every job that did I/O was in one group, an operation ran
// from the first job's start (after ramp) for fio's runtime, ending no
// later than the last job's start plus that runtime nor than fio's own end
// time; fio's end time less its runtime, which fio 3.33 gives, is later by
// the time fio took to notice its jobs ended. With several groups, which
// fio runs one after another, only the first start is known: a window
// starts no earlier than it.
//
// A stamp is when the agent read the job's byte, which a starved machine
// does late: for a job that ended at once (a full disk) the first stamp
// came after fio's end. Both a stamp and fio's end less its runtime are
// no earlier than the job's true start, so the start is the earlier of
// the two and a window never ends before it starts.
func (o *Output) alignStart(ops []record.OpStats, passed []int64, ramp time.Duration) {
	groups := map[int]bool{}
	for _, j := range o.Jobs {
		if j.busy() {
			groups[j.GroupID] = true
		}
	}
	first, last := passed[0], passed[len(passed)-1]
	for i := range ops {
		op := &ops[i]
		if len(groups) != 1 {
			op.StartNs = min(max(op.StartNs, first), op.EndNs)
			continue
		}
		runtime := op.EndNs - op.StartNs
		op.StartNs = min(first+int64(ramp), op.StartNs)
		op.EndNs = min(last+int64(ramp)+runtime, op.EndNs)
	}
}
