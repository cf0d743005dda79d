package fio

import (
	"path/filepath"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
)

// Info: fio's rates are IOPS; its results print as wekatester's per
// phase and IOR's over a run.
func (Engine) Info() engine.Info {
	return engine.Info{
		RateUnit:     "IOPS",
		TextFormats:  []string{model.FormatWekatester, model.FormatIOR},
		ParamKeys:    append([]string(nil), suiteKeys...),
		PausesLoad:   true,
		ReportsSpace: true,
		Tool:         &tool,
		Flags:        flags,
	}
}

// tool is fio, the program the engine runs.
var tool = engine.Tool{Name: "fio", VersionArgs: []string{"--version"}, VersionPrefix: "fio-", Install: "apt-get install fio, dnf install fio"}

// plan is a fio phase decoded: its settings and job file as written
// (decoded, raw), and as fio will run them (params, job: resolve, with
// placeholders for storbench's variables, as no host has its values yet).
type plan struct {
	engine.BasePlan
	phase   engine.Phase
	decoded *Params
	raw     *JobFile
	params  *Params
	job     *JobFile
}

// Plan decodes a phase and resolves its job file (resolve).
func (Engine) Plan(p engine.Phase) (engine.Plan, error) {
	decoded, raw, err := decode(p)
	if err != nil {
		return nil, err
	}
	ps, jf, err := resolve(p, nil)
	if err != nil {
		return nil, err
	}
	return plan{phase: p, decoded: decoded, raw: raw, params: ps, job: jf}, nil
}

// Location names the directory host's phase works in: its files stay there
// when the host is lost before cleanup.
func (pl plan) Location(runID, host string) (what, where string, ok bool) {
	return "files and directories", filepath.Join(pl.decoded.Dir, "storbench", runID, host, pl.decoded.Job.Name), true
}

// Check checks the job file, with its overrides, keeps to PathRules and
// its bounds. It lets through the options that --allow-exec governs: that
// is decided by CheckPhase on the controller and by each agent, from their
// own flags.
func (pl plan) Check() error {
	if err := pl.job.checkBounds(pl.params.Job.Name, pl.params); err != nil {
		return err
	}
	return pl.job.CheckSafe(pl.params.Job.Name, true)
}

// Planned estimates the phase's duration from the job file with overrides.
func (pl plan) Planned() (time.Duration, bool) {
	if pl.params.Stonewall != nil {
		// The wear-out after the deadline is not known beforehand.
		return time.Duration(*pl.params.Stonewall), false
	}
	return runDuration(pl.job), false
}

// validate plans p and checks it.
func validate(p engine.Phase) error {
	pl, err := Engine{}.Plan(p)
	if err != nil {
		return err
	}
	return pl.Check()
}
