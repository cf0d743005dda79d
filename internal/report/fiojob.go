package report

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/safetext"
)

// fioJob is what IOR's report says of a fio phase, read from the job
// file its plan recorded: its directory and its job sections.
type fioJob struct {
	dir      string
	sections []fioSection
}

// fioSection is one job section of a job file, its [global] options
// applied: its ioengine (IOR's API), numjobs (tasks per host; 0 when the
// file gives it as a variable), filename (a file the jobs share), and
// whether it reads or writes at random offsets.
type fioSection struct {
	name, api, rw, filename, dir string
	jobs                         int
	random                       bool
}

// testFile is IOR's "test filename": the file the jobs share, or the
// job's directory, where each job has its own.
func (s fioSection) testFile() string {
	if s.filename != "" {
		return s.filename
	}
	return s.dir
}

// section is the section that did op: the one named by op ("w write"
// for a job file of several sections), else the only one, else the
// first whose rw does op's direction.
func (j fioJob) section(op string) fioSection {
	dir := direction(op)
	if f := strings.Fields(op); len(f) > 1 {
		for _, s := range j.sections {
			if s.name == strings.Join(f[:len(f)-1], " ") {
				return s
			}
		}
	}
	if len(j.sections) == 1 {
		return j.sections[0]
	}
	for _, s := range j.sections {
		if strings.Contains(s.rw, dir) || s.rw == "rw" || s.rw == "randrw" {
			return s
		}
	}
	if len(j.sections) > 0 {
		return j.sections[0]
	}
	return fioSection{api: "NA", dir: j.dir}
}

// planJobs reads the job file of every fio phase of the plan, by phase
// name; a phase whose parameters hold no job file (a run recorded before
// they did) is absent, and its fields NA.
func planJobs(run *model.RunInfo) map[string]fioJob {
	out := map[string]fioJob{}
	for _, p := range run.Plan {
		if p.Engine != model.EngineFio {
			continue
		}
		var params struct {
			Dir string `json:"dir"`
			Job struct {
				Text string `json:"text"`
			} `json:"job"`
		}
		if json.Unmarshal(p.Params, &params) != nil || params.Job.Text == "" {
			continue
		}
		out[safetext.Escape(p.Name)] = parseFioJob(params.Job.Text, safetext.Escape(params.Dir))
	}
	return out
}

// parseFioJob reads a job file's sections: fio's INI, "key=value" or a
// bare "key", ';' and '#' comments, [global] options before a section
// applying to it. Values are escaped for a terminal.
func parseFioJob(text, dir string) fioJob {
	job := fioJob{dir: dir}
	global := map[string]string{}
	var cur map[string]string
	var names []string
	var opts []map[string]string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == ';' || line[0] == '#':
			continue
		case line[0] == '[' && strings.HasSuffix(line, "]"):
			name := strings.TrimSpace(line[1 : len(line)-1])
			if name == "global" {
				cur = global
				continue
			}
			cur = map[string]string{}
			for k, v := range global {
				cur[k] = v
			}
			names, opts = append(names, name), append(opts, cur)
			continue
		}
		if cur == nil {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		cur[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	for i, o := range opts {
		s := fioSection{name: safetext.Escape(names[i]), api: "psync", jobs: 1, dir: dir, filename: safetext.Escape(o["filename"])}
		if e := o["ioengine"]; e != "" {
			s.api = safetext.Escape(e)
		}
		if n, ok := o["numjobs"]; ok {
			s.jobs, _ = strconv.Atoi(n)
		}
		rw := o["rw"]
		if rw == "" {
			rw = o["readwrite"]
		}
		rw, _, _ = strings.Cut(rw, ":")
		s.rw, s.random = safetext.Escape(rw), strings.HasPrefix(rw, "rand")
		job.sections = append(job.sections, s)
	}
	return job
}
