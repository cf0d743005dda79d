package fio

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxJobs is how many jobs fio runs from one job file (its REAL_MAX_JOBS):
// past it, fio fails when it starts, after `fio --parse-only` let the file
// through.
const MaxJobs = 4096

// Jobs is how many jobs fio runs from the job file: each section's
// numjobs (1 when not set), [global] aside.
func (jf *JobFile) Jobs() int {
	jobs := 0
	for _, s := range jf.Sections {
		if isGlobal(s.Name) {
			continue
		}
		n := 1
		if v, ok := jf.Lookup(s, "numjobs"); ok {
			if k, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				n = k
			}
		}
		jobs += max(n, 0)
	}
	return jobs
}

// resultPerJob and resultPerJobSecond are what one job adds to a host's
// result in the protocol's JSON, with room to spare: measured on a 64-job
// randrw phase of 20 s without group_reporting, 79 KB a job (fio's json+
// output, in base64, and the job's read and write histograms) and 150 B a
// job and second (the per-second latency, compressed).
const (
	resultPerJob       = 256 << 10
	resultPerJobSecond = 1 << 10
)

// ResultBytes bounds what p's jobs add to a host's result: each job's
// output and histograms, kept in full for the results folder, and its
// per-second latency.
func (pl plan) ResultBytes() (fixed, perSecond int64) {
	jobs := int64(pl.job.Jobs())
	return jobs * resultPerJob, jobs * resultPerJobSecond
}

// checkBounds refuses what fio's --parse-only lets through but fio refuses
// when it starts, or runs without end: no job section, more jobs than fio
// runs, a job with no size to lay out (size=0, or none, in a phase whose
// files do not exist yet), a negative time. name is the job file's name.
func (jf *JobFile) checkBounds(name string, ps *Params) error {
	jobs := 0
	sections := 0
	for _, s := range jf.Sections {
		if isGlobal(s.Name) {
			continue
		}
		sections++
		n := 1
		if v, ok := jf.Lookup(s, "numjobs"); ok {
			if k, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				n = k
			}
		}
		jobs += max(n, 0)
		if jobs > MaxJobs {
			return fmt.Errorf("%s: numjobs=%d in [%s]: fio runs at most %d jobs from one job file", name, n, s.Name, MaxJobs)
		}
		for _, k := range []string{"runtime", "timeout", "ramp_time", "startdelay"} {
			if v, ok := jf.Lookup(s, k); ok && strings.HasPrefix(strings.TrimSpace(v), "-") {
				return fmt.Errorf("%s: %s=%s in [%s]: want a time of 0 or more", name, k, v, s.Name)
			}
		}
		if err := jf.checkSize(name, s, ps); err != nil {
			return err
		}
	}
	if sections == 0 {
		return fmt.Errorf("%s: no job section: fio runs the [name] sections other than [global]; add one", name)
	}
	return nil
}

// checkSize refuses a job that fio could not lay out files for: its files
// are new (the phase's own directory, no filename= naming an existing file
// or device), so fio needs size= or filesize= above 0.
func (jf *JobFile) checkSize(name string, s *Section, ps *Params) error {
	if ps.usesArea() {
		return nil // files of an earlier phase, or laid out by another host
	}
	if _, ok := jf.Lookup(s, "filename"); ok {
		return nil
	}
	for _, k := range []string{"size", "filesize"} {
		v, ok := jf.Lookup(s, k)
		if !ok {
			continue
		}
		if isZeroSize(v) {
			return fmt.Errorf("%s: %s=%s in [%s]: give the data per job, e.g. %s=1G", name, k, v, s.Name, k)
		}
		return nil
	}
	if _, ok := jf.Lookup(s, "io_size", "io_limit"); ok {
		return nil
	}
	return fmt.Errorf("%s: [%s] has no size: give size= (the data per job, e.g. size=1G) or filesize=", name, s.Name)
}

// isZeroSize reports a fio size that is 0 whatever its unit ("0", "0k",
// "0%").
func isZeroSize(v string) bool {
	v = strings.TrimSpace(v)
	i := 0
	for i < len(v) && v[i] == '0' {
		i++
	}
	return i > 0 && (i == len(v) || v[i] < '0' || v[i] > '9') && !strings.ContainsAny(v[i:], "123456789-:")
}
