package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/units"
)

// Resources is one host's answer to the check of a phase's resources,
// made on that host before the phase is prepared: what the phase needs of
// its directory's file system there (engine.Plan.SpaceOf), or what the
// host's own check (engine.Plan.CheckResources: memory) says.
type Resources struct {
	Space *engine.Space `json:"space,omitempty"`
	// Note says what could not be checked.
	Note string `json:"note,omitempty"`
	// Refusal says why this host cannot hold the phase (bad input).
	Refusal string `json:"refusal,omitempty"`
}

// resourcesBody is the body of POST /v1/resources.
type resourcesBody struct {
	Phase engine.Phase `json:"phase"`
	Hosts int          `json:"hosts"`
	Rank  int          `json:"rank"`
}

// resourceAgent is an agent that checks a phase's resources on its host.
type resourceAgent interface {
	Resources(ctx context.Context, p engine.Phase, hosts, rank int) (Resources, error)
}

var (
	_ resourceAgent = (*LocalAgent)(nil)
	_ resourceAgent = (*RemoteAgent)(nil)
)

// Resources checks p's resources on this machine, rank of hosts, with its
// directory where this machine has it (HostDir). A phase of an engine it
// does not know is Prepare's to refuse.
func (a *LocalAgent) Resources(_ context.Context, p engine.Phase, hosts, rank int) (Resources, error) {
	p.Params = a.Dir.apply(p.Params)
	e, err := a.Engines.Lookup(p.Engine)
	if err != nil {
		return Resources{}, nil
	}
	var out Resources
	pl, err := e.Plan(p)
	if err != nil {
		return out, nil // Prepare's to refuse
	}
	if e.Info().ReportsSpace {
		if sp, ok := pl.SpaceOf(hosts, rank); ok {
			out.Space = &sp
		}
		return out, nil
	}
	note, err := pl.CheckResources()
	out.Note = note
	if err != nil {
		out.Refusal = err.Error()
	}
	return out, nil
}

// resources answers POST /v1/resources: a check that reads (statfs, the
// memory available) and needs no session, so a controller may ask a busy
// agent, or ask before a dry run.
func (s *Server) resources(w http.ResponseWriter, r *http.Request) {
	var body resourcesBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeErr(w, http.StatusBadRequest, "%s", bodyErr("resources", err))
		return
	}
	res, err := s.Agent.Resources(r.Context(), body.Phase, body.Hosts, body.Rank)
	l := line{Done: true, Resources: &res}
	if err != nil {
		l = line{Done: true, Error: err.Error()}
	}
	writeJSON(w, http.StatusOK, l)
}

// Resources asks the agent to check p's resources on its host.
func (a *RemoteAgent) Resources(ctx context.Context, p engine.Phase, hosts, rank int) (Resources, error) {
	// Where this host has the directory, as Prepare sends it.
	p.Params = a.Dir.apply(p.Params)
	l, err := a.stream(ctx, "resources", resourcesBody{Phase: p, Hosts: hosts, Rank: rank}, nil, nil)
	if err != nil {
		return Resources{}, err
	}
	if l.Error != "" || l.Resources == nil {
		return Resources{}, fmt.Errorf("agent %s: resources: %s", a.Name(), l.Error)
	}
	return *l.Resources, nil
}

// CheckResources checks, before p is prepared, that its hosts (c.Agents
// not lost) can hold it, each asked on its own machine: a host's own
// refusal (memory), and the files of all hosts that share one file
// system against its one free space. Space held by earlier phases' files
// still being removed in the background, on any host of the run, is free
// before the phase starts but counts only once it is: when the plan does
// not fit, CheckResources awaits every agent's removals (c.All, whose
// records the next Settle returns) and asks again, so a removal pending
// on another host causes neither a false refusal (its space counts once
// freed) nor a false pass (it never counts before). notes say what a host
// could not check. A refusal is bad input (engine.ErrUnsupported) naming
// the hosts.
func (c *Controller) CheckResources(ctx context.Context, runID string, p engine.Phase) (notes []string, err error) {
	if p.Engine == AreaEngine {
		return nil, nil // the shared area's own steps lay out nothing
	}
	agents := c.answering(&Outcome{Errors: map[string]error{}})
	notes, err = c.checkResources(ctx, p, agents)
	if err == nil || !errorsIsSpace(err) {
		return notes, err
	}
	all := c.All
	if all == nil {
		all = c.Agents
	}
	recs := c.Settle(ctx, runID, all)
	c.mu.Lock()
	c.awaited = append(c.awaited, recs...)
	c.mu.Unlock()
	return c.checkResources(ctx, p, agents)
}

// spaceErr is a refusal for space: it may pass once removals end.
type spaceErr struct{ error }

func (e spaceErr) Unwrap() error { return e.error }

func errorsIsSpace(err error) bool {
	var se spaceErr
	return errors.As(err, &se)
}

// checkResources asks every agent once and judges their answers.
func (c *Controller) checkResources(ctx context.Context, p engine.Phase, agents []Agent) ([]string, error) {
	ans := make([]Resources, len(agents))
	errs := make([]error, len(agents))
	c.fanOut(ctx, agents, func(ctx context.Context, i int, a Agent) {
		if ra, ok := a.(resourceAgent); ok {
			ans[i], errs[i] = ra.Resources(ctx, p, len(agents), i)
		}
	})
	var notes []string
	for i, a := range agents {
		switch {
		case errs[i] != nil:
			return nil, fmt.Errorf("phase %s: host %s: %w", p.Name, a.Name(), errs[i])
		case ans[i].Refusal != "":
			return nil, engine.Unsupported(fmt.Sprintf("phase %s: host %s: %s", p.Name, a.Name(), ans[i].Refusal))
		case ans[i].Note != "":
			notes = append(notes, fmt.Sprintf("host %s: %s", a.Name(), ans[i].Note))
		}
	}
	n, err := judgeSpace(p, agents, ans)
	return append(notes, n...), err
}

// fsGroup is the hosts whose phase directories are on one file system.
type fsGroup struct {
	hosts []string
	sp    engine.Space // the first host's, with FreeBytes the least seen
	need  float64
}

// judgeSpace adds up the needs of hosts that share a file system (the
// same engine.Space.FS) and refuses the first whose free space they
// exceed; a host whose file system does not tell gets a note.
func judgeSpace(p engine.Phase, agents []Agent, ans []Resources) (notes []string, err error) {
	var groups []*fsGroup
	byFS := map[string]*fsGroup{}
	for i, a := range agents {
		sp := ans[i].Space
		if sp == nil {
			continue
		}
		if !sp.Known {
			notes = append(notes, fmt.Sprintf("phase %s: the file system of %s on host %s does not tell its free space (statfs reports no blocks): %s (at least %s) are not checked against it",
				p.Name, sp.Dir, a.Name(), sp.What, units.Bytes(sp.NeedBytes)))
			continue
		}
		g := byFS[sp.FS]
		if g == nil || sp.FS == "" {
			g = &fsGroup{sp: *sp}
			groups = append(groups, g)
			if sp.FS != "" {
				byFS[sp.FS] = g
			}
		}
		g.hosts = append(g.hosts, a.Name())
		g.sp.FreeBytes = min(g.sp.FreeBytes, sp.FreeBytes)
		if sp.SharedFiles {
			// One set of files for all hosts.
			g.need = max(g.need, sp.NeedBytes)
		} else {
			g.need += sp.NeedBytes
		}
	}
	for _, g := range groups {
		if g.need <= float64(g.sp.FreeBytes) {
			continue
		}
		who := "host " + g.hosts[0]
		if len(g.hosts) > 1 {
			fs := g.sp.FSName
			if fs == "" {
				fs = "one"
			} else {
				fs = "one " + fs
			}
			who = fmt.Sprintf("hosts %s together, on %s file system", strings.Join(g.hosts, ", "), fs)
		}
		return notes, spaceErr{engine.Unsupported(fmt.Sprintf("phase %s: %s lays out at least %s of files (%s) on %s, which has %s free: %s",
			p.Name, g.sp.What, units.Bytes(g.need), who, g.sp.Dir, units.Bytes(float64(g.sp.FreeBytes)), g.sp.Fix))}
	}
	return notes, nil
}
