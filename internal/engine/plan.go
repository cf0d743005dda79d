package engine

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// Info is what an engine is, the same for every phase: static facts as
// data, which the spine reads instead of asking an optional hook each.
type Info struct {
	// RateUnit is what the engine calls its operation rates ("IOPS",
	// "ops/s", "obj/s"): a phase's summary keeps it as rate_unit, so a
	// report says it without knowing the engine ("" says nothing).
	RateUnit string
	// TextFormats are the text formats of the tools the engine stands in
	// for (model.FormatWarp, ...), the one of a phase's own text first: a
	// phase's summary keeps them, so a report chooses its text, tables
	// and figures' rules by them, without knowing the engine.
	TextFormats []string
	// EstimateModel says in a line how the engine estimates the length of
	// phases that run until their work is done (md), for a dry run; ""
	// when its phases' lengths are planned, not estimated.
	EstimateModel string
	// Secrets are the settings whose values are secrets (s3's keys written
	// into a suite): Registry.Redacted blanks them in anything written
	// down (run.json, a dry run's plan).
	Secrets []string
	// ParamKeys are the names of a phase's settings, so a suite can refuse
	// a misspelt one with a suggestion (nil: not listed, nothing refused).
	ParamKeys []string
	// Flags are how a command's flags show the engine's settings (name,
	// shorthand, help), for the command that runs its phases on their own.
	Flags []Flag
	// Defaults are the engine's default settings (its typed params), when
	// they are other than Go's zero values, so a command's flags can show
	// them.
	Defaults any
	// Operations are the benchmarks a phase's op setting names (s3's get,
	// put, ...), so a command can offer and check them.
	Operations []string
	// PausesLoad says the engine's prepared phases are Pausers: a suite
	// may give its phases pause events.
	PausesLoad bool
	// UsesKeys says the engine signs requests with keys (s3): a phase
	// that carries no keys of its own (Plan.OwnKeys) takes its agent's
	// (Env.Secrets), which a local run must then have.
	UsesKeys bool
	// LogsRequests says a phase can write every request to a file
	// (Plan.LogRequestsIn: s3's benchdata), so a local run can keep that
	// file in the phase's host folder of the results (s3 --full).
	LogsRequests bool
	// TakesSlots says a phase can, like MPI ranks, run one worker per slot
	// of a host file (md: Plan.TakeSlots).
	TakesSlots bool
	// ReportsSpace says a phase lays out files of a size known before any
	// load (fio): the controller asks every host of a phase for its space
	// (Plan.SpaceOf), before it is prepared, instead of the host's own
	// check (Plan.CheckResources), and refuses a plan whose hosts together
	// cannot fit in a file system they share, after the removals of earlier
	// phases' files on every host have ended.
	ReportsSpace bool
	// Endpoint, when set, says how phases name the service endpoint they
	// need (s3's host).
	Endpoint *Endpoint
	// Tool, when set, is the outside program the engine runs (fio), whose
	// version an agent reports and run.json keeps.
	Tool *Tool
	// Environment are the environment variables the engine reads, and
	// which of them are secrets (s3's keys): the command line reads them
	// once and hands the secret ones to the engine in Env.Secrets, on an
	// agent through its launcher, without knowing their names.
	Environment []Var
	// SecretsFrom says where the engine's secrets come from when no
	// setting gives them, in the order it looks, naming its variables
	// and files (s3: its key variables, the AWS tools', the AWS profile),
	// for a command's help: the command line names none.
	SecretsFrom string
	// ApplyEnvironment, when set, is how the engine reads the variables
	// it declared (the command line hands them over, read once): what of
	// a phase's settings they fill, and which secrets its phases take. An
	// engine without it takes its secret variables as read, and nothing
	// else of the environment.
	ApplyEnvironment ApplyFunc
}

// Plan is one phase as its engine decoded it (Engine.Plan): the answers to
// what the spine asks of the phase before and around its run. An engine's
// plan embeds BasePlan and states only the answers it has.
type Plan interface {
	// Check checks the phase without touching anything (no file system,
	// no network), so a controller refuses bad input before any agent
	// starts work.
	Check() error
	// Planned is how long the phase runs: planned from its settings, or,
	// for phases that run until their work is done (md), estimated from
	// the engine's model (estimated is then true); 0 when the engine can
	// tell neither.
	Planned() (d time.Duration, estimated bool)
	// Advice is what the engine has to say about running the phase on
	// hosts hosts: a setting that does not do what it usually does there
	// (md's stride mapping every worker to itself). The run prints each
	// line as a note; the phase runs all the same.
	Advice(hosts int) []string
	// StartsTogether says the phase is ready to start the moment Prepare
	// returned: a barrier across hosts (Env.Barrier) before the first
	// timed operation, whose release is the common start (md), or the load
	// started in Prepare and held at a start line that Run opens at the
	// start time (fio's gate, for the phases it can hold). The controller
	// gives their agents no time ahead of the common start time, which is
	// there only so that every host is ready when it comes.
	StartsTogether() bool
	// MatchOps returns whether the phase may record an operation of a
	// name (fio's read, write and trim, and "JOB write" for a job of its
	// job file; an s3 get phase's GET), or nil when the engine cannot
	// tell: a controller refuses an agent's figures that name another (an
	// agent that is not storbench, or one tampered with, could name
	// anything: an escape sequence for the controller's terminal).
	MatchOps() func(op string) bool
	// OpNames are the operations the phase records by name (md's
	// file-create, an s3 get phase's GET), or nil when the engine cannot
	// tell, so that limits on its figures are checked, and the figures
	// that exist listed, before any load.
	OpNames() []string
	// ResultBytes is at most how many bytes a host's result of the phase
	// adds, in the protocol's JSON, to what every result may hold: fixed,
	// and perSecond for each second its run lasts (fio's, with every
	// job's output, histograms and per-second latency). The controller
	// bounds what it takes from a remote agent as a result by this, so a
	// legitimate result always fits and a hostile one cannot take its
	// memory.
	ResultBytes() (fixed, perSecond int64)
	// Location says what (files, objects) host's phase creates and where,
	// so a controller can name what a lost host leaves; ok false when the
	// engine cannot tell.
	Location(runID, host string) (what, where string, ok bool)
	// SharedDir is the target directory whose shared area the phase, run
	// on hosts hosts, works in (SharedWorkspace), rather than, or besides,
	// each host's own directory; ok false when it works in none. The run
	// proves that the hosts of such a phase see one file system there
	// before any phase runs, and removes the shared area at its end
	// (RemoveShared) unless it keeps its files. Cleanup once: an entry of
	// the shared area is removed by one host (rank 0), in the Cleanup of
	// the last phase that uses it.
	SharedDir(hosts int) (dir string, ok bool)
	// CheckResources refuses the phase when this machine cannot hold it
	// (fio's free space, s3's memory for its plan), checkable before any
	// load, so a dry run refuses what the run would; note says what could
	// not be checked ("" when all was).
	CheckResources() (note string, err error)
	// OwnKeys says the phase carries a complete key pair of its own
	// (Info.UsesKeys).
	OwnKeys() bool
	// LogRequestsIn returns the phase writing its requests into dir, which
	// exists (Info.LogsRequests).
	LogRequestsIn(dir string) (Phase, error)
	// TakeSlots returns the phase running slots workers per host
	// (Info.TakesSlots). A phase that chose its own worker count is
	// returned as it was, with a note that says so. equal is the error
	// when the hosts' slots differ (slots is then the most any host
	// gives), for the engine to return (naming how else to set workers)
	// if the phase needs them.
	TakeSlots(slots int, equal error) (out Phase, note string, err error)
	// SpaceOf reports the space the phase needs on this host, rank of
	// hosts (Info.ReportsSpace); ok is false when it lays out nothing of a
	// known size.
	SpaceOf(hosts, rank int) (sp Space, ok bool)
	// AutoTerm is the phase's rule for ending once its throughput is
	// stable (s3 --autoterm), and the phase without it: with several
	// hosts the controller judges the total of all hosts and stops them
	// together, each host then running the phase without its own check.
	// ok is false when the phase has no such rule.
	AutoTerm() (term record.AutoTerm, without Phase, ok bool)
	// Headline is the phase's headline when neither its suite nor its
	// result names one, at the matrix point point (setting: value as the
	// suite wrote it; nil without a matrix): fio's bandwidth at block
	// sizes of 64 KiB and more, IOPS below. The choice travels in the
	// phase's summary, so no reader decides it by the engine's name; ""
	// chooses none.
	Headline(point map[string]string) model.Headline
	// Probe tries which of the engine's features the service the phase
	// names supports (s3 probe, --probe), each with one small request
	// there, undone, with env's credentials. An error says the service
	// could not be probed at all (it does not answer, the keys are
	// refused); a feature that fails is a result. nil and no error: the
	// engine cannot probe.
	Probe(ctx context.Context, env Env) (*model.Probe, error)
	// Endpoint is the object service the phase talks to (s3's first
	// endpoint), which a catalogued run records and asks its name; ok
	// false when it talks to none.
	Endpoint() (ep model.Endpoint, ok bool)
}

// BasePlan is the plan of a phase whose engine says nothing more of it:
// it checks nothing and plans no length. Engines embed it in their plans.
type BasePlan struct{}

// Check accepts the phase.
func (BasePlan) Check() error { return nil }

// Planned says the length is not known.
func (BasePlan) Planned() (time.Duration, bool) { return 0, false }

// Advice has nothing to say.
func (BasePlan) Advice(int) []string { return nil }

// StartsTogether says the phase needs the controller's lead.
func (BasePlan) StartsTogether() bool { return false }

// MatchOps cannot tell.
func (BasePlan) MatchOps() func(string) bool { return nil }

// OpNames cannot tell.
func (BasePlan) OpNames() []string { return nil }

// ResultBytes adds nothing.
func (BasePlan) ResultBytes() (fixed, perSecond int64) { return 0, 0 }

// Location cannot tell.
func (BasePlan) Location(string, string) (what, where string, ok bool) { return "", "", false }

// SharedDir says the phase works in no shared area.
func (BasePlan) SharedDir(int) (string, bool) { return "", false }

// CheckResources checks nothing.
func (BasePlan) CheckResources() (string, error) { return "", nil }

// OwnKeys says the phase carries no keys.
func (BasePlan) OwnKeys() bool { return false }

// LogRequestsIn refuses: the engine logs no requests.
func (BasePlan) LogRequestsIn(string) (Phase, error) {
	return Phase{}, errors.New("this engine writes no request log")
}

// TakeSlots refuses: the engine takes no slots.
func (BasePlan) TakeSlots(int, error) (Phase, string, error) {
	return Phase{}, "", errors.New("this engine takes no slots")
}

// SpaceOf reports nothing.
func (BasePlan) SpaceOf(int, int) (Space, bool) { return Space{}, false }

// AutoTerm says the phase has no rule to end early.
func (BasePlan) AutoTerm() (record.AutoTerm, Phase, bool) { return record.AutoTerm{}, Phase{}, false }

// Headline chooses none.
func (BasePlan) Headline(map[string]string) model.Headline { return "" }

// Probe cannot probe.
func (BasePlan) Probe(context.Context, Env) (*model.Probe, error) { return nil, nil }

// Endpoint says the phase talks to no object service.
func (BasePlan) Endpoint() (model.Endpoint, bool) { return model.Endpoint{}, false }

// Base is an engine with no static facts whose phases' plans are BasePlan:
// test engines embed it and state only what they have.
type Base struct{}

// Info says nothing.
func (Base) Info() Info { return Info{} }

// Plan is a BasePlan for every phase.
func (Base) Plan(Phase) (Plan, error) { return BasePlan{}, nil }

// Plan decodes p with its engine. An unknown engine, a phase name that
// cannot name its directories, or settings that do not decode are an
// error.
func (r Registry) Plan(p Phase) (Plan, error) {
	e, err := r.Lookup(p.Engine)
	if err != nil {
		return nil, err
	}
	if err := CheckPhaseName(p.Name); err != nil {
		return nil, err
	}
	return e.Plan(p)
}

// Redacted returns p without the secrets its engine declares (Info.Secrets):
// each given one is "REDACTED". Params that are not an object, when the
// engine has secrets, are dropped whole rather than risk one.
func (r Registry) Redacted(p Phase) Phase {
	secrets := r.Info(p.Engine).Secrets
	if len(secrets) == 0 {
		return p
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(p.Params, &m) != nil {
		p.Params = json.RawMessage(`{}`)
		return p
	}
	changed := false
	for _, k := range secrets {
		if _, ok := m[k]; ok {
			m[k] = json.RawMessage(`"REDACTED"`)
			changed = true
		}
	}
	if changed {
		p.Params, _ = json.Marshal(m)
	}
	return p
}

// Advice asks p's plan for its notes on running p on hosts hosts.
func (r Registry) Advice(p Phase, hosts int) []string {
	if pl, err := r.Plan(p); err == nil {
		return pl.Advice(hosts)
	}
	return nil
}

// StartsTogether says whether phase p is ready to start on its hosts once
// they prepared it (Plan.StartsTogether).
func (r Registry) StartsTogether(p Phase) bool {
	pl, err := r.Plan(p)
	return err == nil && pl.StartsTogether()
}

// MatchOps returns whether p may record an operation of a name, and
// whether its engine can tell.
func (r Registry) MatchOps(p Phase) (func(op string) bool, bool) {
	if pl, err := r.Plan(p); err == nil {
		if f := pl.MatchOps(); f != nil {
			return f, true
		}
	}
	return nil, false
}

// OpNames returns the operations p records, and whether its engine can
// tell.
func (r Registry) OpNames(p Phase) ([]string, bool) {
	if pl, err := r.Plan(p); err == nil {
		if names := pl.OpNames(); names != nil {
			return names, true
		}
	}
	return nil, false
}

// ResultBytes is what p's plan says its host results add (nothing when
// p does not decode).
func (r Registry) ResultBytes(p Phase) (fixed, perSecond int64) {
	if pl, err := r.Plan(p); err == nil {
		return pl.ResultBytes()
	}
	return 0, 0
}

// Locate asks p's plan where host's phase puts what it creates.
func (r Registry) Locate(p Phase, runID, host string) (what, where string, ok bool) {
	if pl, err := r.Plan(p); err == nil {
		return pl.Location(runID, host)
	}
	return "", "", false
}

// SharedDir is the target directory whose shared area p, run on hosts
// hosts, works in (Plan.SharedDir).
func (r Registry) SharedDir(p Phase, hosts int) (string, bool) {
	if pl, err := r.Plan(p); err == nil {
		return pl.SharedDir(hosts)
	}
	return "", false
}

// FirstEndpoint is the object service of the first phase among phases
// that talks to one (Plan.Endpoint).
func (r Registry) FirstEndpoint(phases []Phase) (model.Endpoint, bool) {
	for _, p := range phases {
		if pl, err := r.Plan(p); err == nil {
			if ep, ok := pl.Endpoint(); ok {
				return ep, true
			}
		}
	}
	return model.Endpoint{}, false
}

// LogRequestsIn returns p writing its requests into dir (Plan.LogRequestsIn;
// its engine's Info.LogsRequests).
func (r Registry) LogRequestsIn(p Phase, dir string) (Phase, error) {
	pl, err := r.Plan(p)
	if err != nil {
		return p, err
	}
	return pl.LogRequestsIn(dir)
}

// SpaceOf is the space p needs on this host, rank of hosts (Plan.SpaceOf;
// ok false when it lays out nothing of a known size).
func (r Registry) SpaceOf(p Phase, hosts, rank int) (Space, bool) {
	if pl, err := r.Plan(p); err == nil {
		return pl.SpaceOf(hosts, rank)
	}
	return Space{}, false
}

// Info is name's static facts (none for an unknown engine).
func (r Registry) Info(name model.EngineName) Info {
	if e, ok := r[name]; ok {
		return e.Info()
	}
	return Info{}
}
