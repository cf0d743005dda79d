package fio

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
)

// A stonewall phase is IOR's write with a deadline and wear-out (ior -w -D
// S -O stoneWallingWearOut=1, as IO500 runs it): each job writes its blocks
// in order until the deadline, the jobs of every host agree on the largest
// count of blocks any of them wrote, and each job writes on from where it
// stopped to that count, so that every job of every host ends with the same
// blocks and the read phase after it reads exactly those. IOR counts
// transfers (its "pairs"); a job here counts blocks of bs bytes, which for
// IO500's shapes are IOR's transfers: ior-easy's 2 MiB transfers of a file
// per process, ior-hard's 47,008-byte segments of the shared file.
//
// fio cannot be told a new size while it runs, so the phase is two fio
// runs on each host: the deadline pass (the job file with runtime= the
// deadline, not time_based, so each job stops at its first block done after
// it) and the wear-out pass (a job section per job still short of the
// count, from its next block to the count), both held at the start gate,
// the wear-out started on every host together after the hosts exchanged
// their counts at a barrier. The phase's window is IOR's: from the first
// job's start of the deadline pass to the last job's end of the wear-out.

// seqJob is the one job section of a phase whose jobs move their blocks
// in order (rw=write or read, with an optional gap: rw=write:47008), with
// the numbers that place each block: block b of job k is at offset +
// k*incr + b*(bs+gap) in the job's file.
type seqJob struct {
	sec          *Section
	jobs         int
	bs, gap      int64
	offset, incr int64
	// limit is the bytes a job moves when no deadline stops it (io_size=,
	// else size=), 0 when the job file does not say it in bytes.
	limit int64
}

// seqJob reads the job section of a stonewall phase (mode "write") or of
// the phase that reads what one wrote (mode "read"), refusing what the
// wear-out cannot continue: several job sections, random or mixed I/O,
// several block sizes or files per job, time_based, ramp_time, loops.
func (jf *JobFile) seqJob(mode string) (*seqJob, error) {
	var secs []*Section
	for _, s := range jf.Sections {
		if !isGlobal(s.Name) {
			secs = append(secs, s)
		}
	}
	if len(secs) != 1 {
		return nil, fmt.Errorf("the job file has %d job sections; a stonewall phase runs one (IOR's one write), its jobs set by numjobs", len(secs))
	}
	s := secs[0]
	rw, _ := jf.Lookup(s, "rw", "readwrite")
	m, gapText, _ := strings.Cut(strings.ToLower(strings.TrimSpace(rw)), ":")
	if m == "" {
		m = "read" // fio's default
	}
	if m != mode {
		if mode == "write" && (m == "read" || m == "randread") {
			return nil, fmt.Errorf("[%s] reads (rw=%s): a stonewall is a write phase's deadline (IOR -D); the read phase after it reads what was written", s.Name, rw)
		}
		return nil, fmt.Errorf("[%s]: rw=%s: a stonewall phase %ss its blocks in order (rw=%s, or %s:GAP), as IOR does", s.Name, rw, mode, mode, mode)
	}
	j := &seqJob{sec: s, jobs: jf.count(s, "numjobs")}
	var err error
	if gapText != "" {
		if j.gap, err = wholeBytes("rw's gap", gapText); err != nil {
			return nil, fmt.Errorf("[%s]: %v", s.Name, err)
		}
	}
	bs, ok := jf.Lookup(s, "bs", "blocksize")
	if !ok {
		return nil, fmt.Errorf("[%s]: a stonewall phase counts blocks: give bs= (IOR's transfer size)", s.Name)
	}
	if j.bs, err = wholeBytes("bs", bs); err != nil || j.bs == 0 {
		return nil, fmt.Errorf("[%s]: bs=%s: a stonewall phase counts blocks of one size: give bs= as a number of bytes (2m, 47008)", s.Name, bs)
	}
	for _, k := range []struct {
		key string
		to  *int64
	}{{"offset", &j.offset}, {"offset_increment", &j.incr}} {
		if v, ok := jf.Lookup(s, k.key); ok {
			if *k.to, err = wholeBytes(k.key, v); err != nil {
				return nil, fmt.Errorf("[%s]: %v", s.Name, err)
			}
		}
	}
	if v, ok := jf.Lookup(s, "io_size", "io_limit"); ok {
		j.limit, _ = wholeBytes("io_size", v)
	} else if v, ok := jf.Lookup(s, "size", "filesize"); ok {
		j.limit, _ = wholeBytes("size", v)
	}
	return j, jf.seqRefusals(s)
}

// seqRefusals are the options a job section of a stonewall phase cannot
// have.
func (jf *JobFile) seqRefusals(s *Section) error {
	for _, k := range []string{"time_based", "ramp_time"} {
		if jf.flag(s, k) {
			return fmt.Errorf("[%s]: %s: a stonewall phase writes blocks until its deadline, then to a count; leave %s out", s.Name, k, k)
		}
	}
	if jf.count(s, "loops") > 1 {
		return fmt.Errorf("[%s]: loops: a stonewall phase writes each block once; leave loops out", s.Name)
	}
	if jf.count(s, "nrfiles", "nr_files") > 1 {
		return fmt.Errorf("[%s]: nrfiles: a stonewall phase's job writes one file (IOR's file per process, or the shared file)", s.Name)
	}
	if v, ok := jf.Lookup(s, "filename"); ok && strings.Contains(strings.ReplaceAll(v, `\:`, ""), ":") {
		return fmt.Errorf("[%s]: filename=%s names several files; a stonewall phase's job writes one", s.Name, v)
	}
	return nil
}

// wholeBytes reads a size that is a whole number of bytes (4096, 2m).
func wholeBytes(key, v string) (int64, error) {
	f, ok := fioBytes(v)
	if !ok || f != float64(int64(f)) || f >= 1<<62 {
		return 0, fmt.Errorf("%s=%s: want a whole number of bytes (4096, 2m)", key, v)
	}
	return int64(f), nil
}

// stonewall checks a stonewall phase's job file and makes it one the two
// passes can run: files opened as each job first writes them
// (create_on_open=1: no layout, and the wear-out pass's jobs, each from a
// later block, must not lay out the files again, which unlinks them) with
// no space reserved (fallocate=none: the size is a cap, not what is
// written). A phase that reads what a stonewall phase wrote reads that
// count of blocks per job (readBlocks).
func (jf *JobFile) stonewall(ps *Params) error {
	if ps.Stonewall == nil {
		if ps.ReadBlocks > 0 {
			return jf.readBlocks(ps.ReadBlocks)
		}
		return nil
	}
	d := time.Duration(*ps.Stonewall)
	switch {
	case d <= 0:
		return fmt.Errorf("stonewall %v: give the deadline with its unit (300s, IO500's)", d)
	case d < time.Millisecond:
		return fmt.Errorf("stonewall %v: fio counts its runtime in milliseconds; give at least 1ms", d)
	case ps.ReadFrom != "":
		return fmt.Errorf("stonewall on a read_from phase: a stonewall is a write phase's deadline (IOR -D); the read phase after it reads what was written")
	}
	j, err := jf.seqJob("write")
	if err != nil {
		return err
	}
	if v, ok := jf.Lookup(j.sec, "runtime", "timeout"); ok && fioTime(v) > 0 && fioTime(v) < d {
		return fmt.Errorf("stonewall %v is longer than the job's runtime=%s, which would stop it first: leave runtime out, or give a stonewall up to it", d, v)
	}
	g := jf.Global()
	g.Set("create_on_open", "1")
	g.Set("fallocate", "none")
	return nil
}

// readBlocks makes each job read n blocks, from its first: the count
// every job of the stonewall phase it reads wrote.
func (jf *JobFile) readBlocks(n int64) error {
	j, err := jf.seqJob("read")
	if err != nil {
		return fmt.Errorf("it reads what a stonewall phase wrote, so: %v", err)
	}
	j.sec.Set("io_size", strconv.FormatInt(n*j.bs, 10))
	j.sec.Set("size", strconv.FormatInt((n-1)*(j.bs+j.gap)+j.bs, 10))
	j.sec.Delete("io_limit")
	j.sec.Delete("filesize")
	return nil
}

// deadlinePass is the job file of the deadline pass: runtime= the
// deadline, each job in a section of its own (jobName: fio's report of
// clones does not say which is which, and each job's bytes are its count).
//
// IOR's -e syncs a file once, after the wear-out: the deadline pass syncs
// nothing at its end (fsync_on_close=0, end_fsync=0), the wear-out pass
// syncs as the job says, and a job with no wear-out is synced by the
// engine (syncJobs).
func (jf *JobFile) deadlinePass(j *seqJob, d time.Duration) (*JobFile, error) {
	return jf.perJob(j, func(k int, s *Section) bool {
		s.Set("offset", strconv.FormatInt(j.offset+int64(k)*j.incr, 10))
		s.Set("runtime", strconv.FormatInt(d.Milliseconds(), 10)+"ms")
		s.Set("fsync_on_close", "0")
		s.Set("end_fsync", "0")
		return true
	})
}

// syncsAtEnd reports a job that syncs its file when it ends (fio's
// fsync_on_close or end_fsync, IOR's -e).
func (jf *JobFile) syncsAtEnd(j *seqJob) bool {
	return jf.flag(j.sec, "fsync_on_close") || jf.flag(j.sec, "end_fsync")
}

// wearOutPass is the job file of the wear-out pass: for each job k that
// wrote done[k] blocks, fewer than to, a section of one job that writes
// blocks done[k] to to-1 of job k's file, at their places. It returns nil
// when every job has its count.
func (jf *JobFile) wearOutPass(j *seqJob, done []int64, to int64) (*JobFile, error) {
	step := j.bs + j.gap
	out, err := jf.perJob(j, func(k int, s *Section) bool {
		d := done[k]
		if d >= to {
			return false
		}
		s.Set("offset", strconv.FormatInt(j.offset+int64(k)*j.incr+d*step, 10))
		s.Set("size", strconv.FormatInt((to-d-1)*step+j.bs, 10))
		s.Set("io_size", strconv.FormatInt((to-d)*j.bs, 10))
		s.Delete("io_limit")
		s.Delete("filesize")
		return true
	})
	if err != nil || len(out.Sections) == 0 || !slices.ContainsFunc(out.Sections, func(s *Section) bool { return !isGlobal(s.Name) }) {
		return nil, err
	}
	return out, nil
}

// perJob is the job file with j's section split into a section per job
// (numjobs=1, its own file), named jobName(section, k); set places job k
// in its section, or leaves it out by returning false. No job is reported
// in a group (each job's bytes are its own count).
func (jf *JobFile) perJob(j *seqJob, set func(k int, s *Section) bool) (*JobFile, error) {
	out, err := ParseJobFile("stonewall", jf.Render())
	if err != nil {
		return nil, err
	}
	var kept []*Section
	for _, s := range out.Sections {
		s.Delete("group_reporting")
		if isGlobal(s.Name) {
			kept = append(kept, s)
			continue
		}
		for k := 0; k < j.jobs; k++ {
			c := &Section{Name: jobName(s.Name, k), Options: append([]Option(nil), s.Options...)}
			for _, key := range []string{"filename_format", "runtime", "timeout", "name"} {
				c.Delete(key)
			}
			c.Set("numjobs", "1")
			c.Set("offset_increment", "0")
			c.Set("nrfiles", "1")
			c.Set("filename", strings.ReplaceAll(jf.cloneFile(j.sec, k), ":", `\:`))
			if set(k, c) {
				kept = append(kept, c)
			}
		}
	}
	out.Sections = kept
	return out, nil
}

// jobName names the section of job k of section sec in a stonewall
// phase's passes; jobOf reads k back from fio's report.
func jobName(sec string, k int) string { return sec + ".job" + strconv.Itoa(k) }

func jobOf(sec, name string) (int, bool) {
	k, err := strconv.Atoi(strings.TrimPrefix(name, sec+".job"))
	return k, err == nil && strings.HasPrefix(name, sec+".job") && k >= 0
}

// cloneFile is the file job k of section s works on, relative to fio's
// directory=, as fio names it (fileNames).
func (jf *JobFile) cloneFile(s *Section, k int) string {
	if v, ok := jf.Lookup(s, "filename"); ok && v != "" {
		return strings.ReplaceAll(v, `\:`, ":")
	}
	format, ok := jf.Lookup(s, "filename_format")
	if !ok || format == "" {
		format = "$jobname.$jobnum.$filenum"
	}
	return formatName(format, jf.jobName(s), k, 0)
}

// WrittenBlocks is the count of blocks every job of a stonewall phase
// wrote, from its hosts' results (IO500's stonewall file); ok is false
// for a phase without a stonewall.
func WrittenBlocks(hosts []*model.HostResult) (n int64, ok bool) {
	for _, h := range hosts {
		if h == nil {
			continue
		}
		if v, err := strconv.ParseInt(h.Meta[model.MetaWearOutBlocks], 10, 64); err == nil {
			n, ok = max(n, v), true
		}
	}
	return n, ok
}

// WithWritten gives a phase that reads what a stonewall phase wrote
// (Params.StonewallOf, set by Link) the count of blocks each job of it
// wrote, from written (by phase name), so that it reads those and no
// more. Other phases come back as they are.
func WithWritten(p engine.Phase, written map[string]int64) (engine.Phase, error) {
	if p.Engine != model.EngineFio {
		return p, nil
	}
	ps, err := decodeParams(p)
	if err != nil {
		return p, err
	}
	of := ps.StonewallOf
	if of == "" {
		return p, nil
	}
	n, ok := written[of]
	if !ok || n <= 0 {
		return p, fmt.Errorf("phase %s reads what stonewall phase %s wrote, which recorded no count of blocks written", p.Name, of)
	}
	// The count is written into the settings as sent, keys as they were.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(p.Params, &raw); err != nil {
		return p, err
	}
	raw["read_blocks"] = json.RawMessage(strconv.FormatInt(n, 10))
	b, err := json.Marshal(raw)
	if err != nil {
		return p, err
	}
	p.Params = b
	return p, nil
}
