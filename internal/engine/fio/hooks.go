package fio

import (
	"context"
	"slices"
	"strings"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/units"
)

var (
	_ engine.Linker      = Engine{}
	_ engine.PlanChecker = Engine{}
	_ engine.Carrier     = Engine{}
)

// Link settles read_from links across the plan (see Link).
func (Engine) Link(phases []engine.Phase, hosts []int) ([]engine.Phase, error) {
	return Link(phases, hosts)
}

// CheckPlan checks every fio phase's job file for options that run
// commands (unless env.AllowExec), and on this machine (env.Local) that
// fio is there and its own parser takes every job file.
func (Engine) CheckPlan(ctx context.Context, env engine.CheckEnv, phases []engine.Phase) error {
	for _, ph := range phases {
		if ph.Engine != model.EngineFio {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := CheckPhase(ph, env.AllowExec); err != nil {
			return err
		}
	}
	if !env.Local {
		return nil
	}
	bin, err := FindFio(env.Tools.Path(tool.Name))
	if err != nil {
		return &engine.MissingTool{Tool: "fio", What: "job files", Err: err}
	}
	return ParseOnly(ctx, bin, phases)
}

// Headline judges a job whose file names no headline ("# report") by
// bandwidth at block sizes of 64 KiB and more, by IOPS below (a bs the
// suite's matrix sweeps).
func (plan) Headline(point map[string]string) model.Headline {
	if n, err := units.ParseSize(point["bs"]); err == nil && n < 64<<10 {
		return model.HeadlineIOPS
	}
	return model.HeadlineBandwidth
}

// StartsTogether says a phase whose fio Prepare starts, its jobs held at
// the start gate (heldJobs), is ready to start once prepared: its hosts
// open their gates at the start time. Others start fio in Run and need
// the controller's lead to reach the gate.
func (pl plan) StartsTogether() bool {
	if pl.params.Stonewall != nil {
		return false
	}
	_, ok := heldJobs(pl.job)
	return ok
}

// Carried is the count of blocks every job of a stonewall write wrote.
func (Engine) Carried(hosts []*engine.HostResult) (int64, bool) { return WrittenBlocks(hosts) }

// WithCarried gives a read of a stonewall write's files that count.
func (Engine) WithCarried(p engine.Phase, written map[string]int64) (engine.Phase, error) {
	return WithWritten(p, written)
}

// CheckResources refuses files past the free space of their directory on
// this machine; the note says where the file system does not tell it.
func (pl plan) CheckResources() (string, error) { return CheckSpace(pl.phase, 1) }

// MatchOps takes the operations a fio phase records: fio's directions,
// alone or after the name of a job of its job file ("seq write", when
// several jobs did I/O), or of one job of a section split for a stonewall
// ("seq.job3 write"); nil when the job file cannot be read (Validate says
// why).
func (pl plan) MatchOps() func(string) bool {
	jf := pl.raw
	jobs := map[string]bool{}
	var sections []string
	for _, s := range jf.Sections {
		if !isGlobal(s.Name) {
			jobs[s.Name], jobs[jf.jobName(s)] = true, true
			sections = append(sections, s.Name)
		}
	}
	return func(op string) bool {
		job, dir, cut := op, op, false // a job's name may hold a blank
		if i := strings.LastIndexByte(op, ' '); i >= 0 {
			job, dir, cut = op[:i], op[i+1:], true
		}
		if !slices.Contains(dirs[:], dir) {
			return false
		}
		if !cut || jobs[job] {
			return true
		}
		return slices.ContainsFunc(sections, func(sec string) bool { _, ok := jobOf(sec, job); return ok })
	}
}

// OpNames are the directions of a phase of one job (a suite's fio
// phases are one each): those its rw= does I/O in (fio's default:
// read). nil for a job file of several jobs, whose operations' names
// depend on which of them did I/O (Output.OpStats), and when the job
// file cannot be read.
func (pl plan) OpNames() []string {
	jf := pl.raw
	var job *Section
	for _, s := range jf.Sections {
		if isGlobal(s.Name) {
			continue
		}
		if job != nil {
			return nil
		}
		job = s
	}
	if job == nil {
		return nil
	}
	rw, _ := jf.Lookup(job, "rw", "readwrite")
	mode, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(rw)), ":")
	switch strings.TrimPrefix(mode, "rand") {
	case "", "read":
		return []string{"read"}
	case "write":
		return []string{"write"}
	case "trim":
		return []string{"trim"}
	case "rw", "readwrite":
		return []string{"read", "write"}
	case "trimwrite":
		return []string{"trim", "write"}
	}
	return nil
}
