package fio

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/units"
)

var _ engine.Expander = Engine{}

// suiteKeys are the settings of a fio entry in a suite; any other key in a
// matrix is a fio option set in every job section (bs, rw, iodepth, ...).
var suiteKeys = []string{"dir", "workload", "job", "runtime", "size", "numjobs", "options", "stonewall"}

// Count is how many job files an entry runs per matrix point and
// iteration: one for an inline job, else the workload's (the most of any
// workload the matrix sweeps). A workload that cannot be read counts 1; the
// expansion then says what is wrong with it.
func (Engine) Count(e engine.Entry) int {
	if _, inline := e.Params["job"]; inline {
		return 1
	}
	workloads := []any{e.Params["workload"]}
	if ws, ok := e.Matrix["workload"]; ok {
		workloads = ws
	}
	most := 1
	for _, w := range workloads {
		str := "default"
		if w != nil {
			str = fmt.Sprint(w)
		}
		if jobs, err := LoadWorkload(workloadPath(str, e.Base)); err == nil {
			most = max(most, len(jobs))
		}
	}
	return most
}

// workloadPath reads a workload naming a file (it has a / or a .) from
// the suite's directory; a built-in workload's name stays as it is.
func workloadPath(w, base string) string {
	if strings.ContainsAny(w, "/.") && !filepath.IsAbs(w) {
		return filepath.Join(base, w)
	}
	return w
}

// Expand turns an entry into one phase per job file of its workload (or
// one for its inline job), named after the job (after the entry, then the
// job, when the entry is named and runs a workload).
func (Engine) Expand(e engine.Entry) ([]engine.Phase, error) {
	o, err := settingsOf(e)
	if err == nil {
		var phases []engine.Phase
		if phases, err = phasesOf(o); err == nil {
			if e.Name != "" && o.Job == nil {
				for i := range phases {
					phases[i].Name = e.Name + "-" + phases[i].Name
				}
			}
			return phases, nil
		}
	}
	if e.Where != "" {
		return nil, fmt.Errorf("%s: %v", e.Where, err)
	}
	return nil, err
}

// settings are a fio entry's settings, read once from the entry.
type settings struct {
	Dir      string
	Workload string
	// Job, instead of Workload, is one job's fio options, as the seeds write
	// a fio command line (rw: read, bs: 256k, iodepth: 1, ...); JobName names it.
	Job     map[string]string
	JobName string
	// Report, with Job, is the headline the job's figures are shown by
	// (bandwidth, iops or latency), as a job file's "# report" comment.
	Report  string
	Runtime string
	Size    string
	Numjobs int
	// Options are set in every job section (see Overrides.Options).
	Options map[string]string
	// Shared and ReadFrom are the phase's sharing (Params).
	Shared   bool
	ReadFrom string
	// Stonewall, with its unit (300s), is a write phase's deadline with
	// IOR's wear-out (Params.Stonewall); empty for none.
	Stonewall string
}

// settingsOf reads an entry's settings; a swept key that is not one of
// suiteKeys is a fio option set in every job section.
func settingsOf(e engine.Entry) (settings, error) {
	o := settings{Options: map[string]string{}, Shared: e.Shared, ReadFrom: e.ReadFrom, Report: e.Report}
	for k, v := range e.Params {
		str := fmt.Sprint(v)
		var err error
		switch k {
		case "dir":
			o.Dir = str
		case "workload":
			o.Workload = workloadPath(str, e.Base)
		case "job", "options":
			m, ok := v.(map[string]any)
			if !ok {
				if k == "job" {
					return o, fmt.Errorf("fio: job: want a mapping of fio options (rw: read, bs: 4k, ...)")
				}
				return o, fmt.Errorf("fio: options: want a mapping of fio options")
			}
			if k == "job" {
				o.Job = stringMap(m)
			} else {
				for ok, ov := range stringMap(m) {
					o.Options[ok] = ov
				}
			}
		case "runtime":
			o.Runtime = str
		case "size":
			o.Size = str
		case "stonewall":
			o.Stonewall = str
		case "numjobs":
			var n int
			if n, err = engine.WholeNumber(v); err == nil {
				o.Numjobs = n
				if n < 1 {
					err = fmt.Errorf("numjobs %d: want 1 or more; leave it out for the job files' own numjobs", n)
				}
			}
		default:
			if _, swept := e.Matrix[k]; !swept {
				msg := fmt.Sprintf("fio: unknown setting %q", k)
				if s := engine.Suggest(k, suiteKeys); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				} else {
					msg += " (fio job options go under options: or job:)"
				}
				return o, fmt.Errorf("%s", msg)
			}
			o.Options[k] = str
		}
		if err != nil {
			return o, fmt.Errorf("fio: %s: %v", k, err)
		}
	}
	// A swept numjobs, or one for an inline job, is set in every section;
	// a plain numjobs on a workload keeps the latency sections at one job.
	if _, swept := e.Matrix["numjobs"]; o.Numjobs > 0 && (swept || o.Job != nil) {
		o.Options["numjobs"] = strconv.Itoa(o.Numjobs)
		o.Numjobs = 0
	}
	if o.Job != nil {
		if o.Workload != "" {
			return o, fmt.Errorf("fio: give workload or job, not both")
		}
		o.JobName = e.Name
		if o.JobName == "" {
			o.JobName = "job"
		}
	}
	return o, nil
}

func stringMap(m map[string]any) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = fmt.Sprint(v)
	}
	return out
}

// stonewallOf reads a suite's or --stonewall's deadline; nil for none.
func stonewallOf(s string) (*units.Duration, error) {
	if s == "" {
		return nil, nil
	}
	d, err := units.ParseDuration(s)
	if err != nil {
		return nil, fmt.Errorf("stonewall: %v", err)
	}
	if d <= 0 {
		return nil, fmt.Errorf("stonewall %s: give the deadline with its unit, e.g. 300s (IO500's); leave it out for none", s)
	}
	sw := units.Duration(d)
	return &sw, nil
}

// phasesOf turns fio settings into one engine phase per job file.
func phasesOf(o settings) ([]engine.Phase, error) {
	var ov Overrides
	if o.Runtime != "" {
		d, err := units.ParseDuration(o.Runtime)
		if err != nil {
			return nil, fmt.Errorf("--runtime: %v", err)
		}
		if d < time.Second {
			return nil, fmt.Errorf("--runtime %s: fio runs in whole seconds; give at least 1s", o.Runtime)
		}
		ov.RuntimeS = int64(d.Seconds())
	}
	if o.Size != "" {
		n, err := units.ParseSize(o.Size)
		if err != nil {
			return nil, fmt.Errorf("--size: %v", err)
		}
		if n < 4096 {
			return nil, fmt.Errorf("--size %s: files must hold at least one 4 KiB block", o.Size)
		}
		ov.SizeBytes = n
	}
	if o.Numjobs < 0 || o.Numjobs > 4096 {
		return nil, fmt.Errorf("--numjobs %d: want 1 to 4096", o.Numjobs)
	}
	ov.Numjobs = o.Numjobs
	if len(o.Options) > 0 {
		ov.Options = o.Options
	}
	stonewall, err := stonewallOf(o.Stonewall)
	if err != nil {
		return nil, err
	}
	var jobs []Job
	if o.Job != nil {
		jobs = []Job{inlineJob(o.JobName, o.Job)}
		if o.Report != "" {
			jobs[0].Text = "# report " + o.Report + "\n" + jobs[0].Text
		}
	} else {
		if jobs, err = LoadWorkload(o.Workload); err != nil {
			return nil, err
		}
	}
	var out []engine.Phase
	for _, j := range jobs {
		b, err := json.Marshal(Params{Dir: o.Dir, Job: j, Overrides: ov, Shared: o.Shared, ReadFrom: o.ReadFrom, Stonewall: stonewall})
		if err != nil {
			return nil, err
		}
		p := engine.Phase{Name: j.Name, Engine: model.EngineFio, Params: b}
		if err := validate(p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// inlineJob writes a job file of one section from a suite's job: mapping,
// options sorted for a stable text.
func inlineJob(name string, opts map[string]string) Job {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "[%s]\n", name)
	for _, k := range keys {
		if opts[k] == "" || opts[k] == "true" && isFlag(k) {
			fmt.Fprintf(&b, "%s\n", k)
			continue
		}
		fmt.Fprintf(&b, "%s=%s\n", k, opts[k])
	}
	return Job{Name: name, Text: b.String()}
}

// isFlag lists fio options written without a value.
func isFlag(k string) bool {
	switch k {
	case "group_reporting", "readonly", "stonewall", "time_based", "thread":
		return true
	}
	return false
}
