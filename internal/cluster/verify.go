package cluster

import (
	"fmt"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/safetext"
)

// expect is what the controller asked every agent of a phase for: the
// phase, by name, and the operations its engine may record. An agent's
// snapshots and result are taken only when they are of that phase and
// name only those operations: an agent that is not storbench, or a proxy
// between the two, could otherwise put any name (an escape sequence) on
// the controller's terminal and into the results.
type expect struct {
	phase  string
	engine string
	// records says whether the phase may record an operation of a name;
	// nil when its engine cannot tell, and then any plain name is taken.
	records func(op string) bool
}

func (c *Controller) expected(p engine.Phase) expect {
	e := expect{phase: p.Name, engine: string(p.Engine)}
	e.records, _ = c.Engines.MatchOps(p)
	return e
}

// snapshot refuses a snapshot that host sent of another phase, under
// another host's name, or naming an operation the phase does not record.
func (e expect) snapshot(host string, s engine.Snapshot) error {
	if s.Phase != e.phase {
		return fmt.Errorf("host %s sent figures of phase %q while it ran phase %s: refused (is it a storbench agent of the controller's version?)", host, s.Phase, e.phase)
	}
	if err := e.host(host, s.Host); err != nil {
		return err
	}
	for _, c := range s.Ops {
		if err := e.op(host, c.Op); err != nil {
			return err
		}
	}
	for _, l := range s.Lat {
		if err := e.op(host, l.Op); err != nil {
			return err
		}
	}
	return nil
}

// result refuses a result under another host's name or naming an
// operation the phase does not record (in its totals, its object sizes'
// or its per-second series).
func (e expect) result(host string, r *engine.HostResult) error {
	if r == nil {
		return nil
	}
	if err := e.host(host, r.Host); err != nil {
		return err
	}
	for _, o := range r.Ops {
		if err := e.op(host, o.Op); err != nil {
			return err
		}
	}
	for _, o := range r.BySize {
		if err := e.op(host, o.Op); err != nil {
			return err
		}
	}
	for _, s := range r.Series {
		if err := e.op(host, s.Op); err != nil {
			return err
		}
	}
	return nil
}

func (e expect) host(host, said string) error {
	if said != "" && said != host {
		return fmt.Errorf("host %s sent figures as host %q of phase %s: refused", host, said, e.phase)
	}
	return nil
}

func (e expect) op(host, op string) error {
	if e.records != nil && !e.records(op) || e.records == nil && (op == "" || safetext.Check("", op) != nil) {
		return fmt.Errorf("host %s sent figures of an operation %q, which phase %s (%s) does not record: refused", host, op, e.phase, e.engine)
	}
	return nil
}
