package engine

// Sharer is implemented by engines whose phase may need every host to see
// one directory as one namespace: md with one tree for all hosts, or with a
// stride (-N), where a worker reads back what a worker of another host
// created. The run proves the namespace shared before such a phase (its
// shared-area probe), refusing the phase otherwise with the hosts that do
// not share it; the engine itself does not check. A phase that shares a
// directory keeps its entries in SharedWorkspace(Dir, run id, Name), which
// the run removes at its end if the phase could not (a run stopped before
// the phase that removes a tree several phases share).
type Sharer interface {
	// Shared says what p, run on hosts hosts, needs shared: the target
	// directory every host must see as one namespace (Dir, "" for none)
	// and the name of its entry under <Dir>/storbench/<run id>/shared/.
	Shared(p Phase, hosts int) (SharedArea, error)
}

// SharedArea is a directory the hosts of a phase share, and the entry the
// phase keeps there.
type SharedArea struct {
	// Dir is the target directory the hosts must see as one; "" when the
	// phase needs nothing shared.
	Dir string
	// Name is the phase's entry: <Dir>/storbench/<run id>/shared/<Name>.
	Name string
	// Hosts says the hosts must share Dir: false when only the phases of
	// the run share Name (one host, a tree kept from phase to phase), so no
	// probe is needed but the entry is still the run's to remove.
	Hosts bool
	// Kept says the phase leaves its entry for a later phase of the run
	// (md: a tree created and not removed): if the run stops before that
	// phase, the entry is left behind unless the run removes it.
	Kept bool
}

// Adviser is implemented by engines that have something to say about a
// phase before it runs on hosts hosts: a setting that does not do what
// it usually does there (md's stride mapping every worker to itself). The
// run prints each line as a note; the phase runs all the same.
type Adviser interface {
	Advice(p Phase, hosts int) []string
}

// Shared asks p's engine what p needs shared on hosts hosts; a zero
// SharedArea when the engine never shares.
func (r Registry) Shared(p Phase, hosts int) (SharedArea, error) {
	e, err := r.Lookup(p.Engine)
	if err != nil {
		return SharedArea{}, err
	}
	if s, ok := e.(Sharer); ok {
		return s.Shared(p, hosts)
	}
	return SharedArea{}, nil
}

// Advice asks p's engine for its notes on running p on hosts hosts.
func (r Registry) Advice(p Phase, hosts int) []string {
	if e, err := r.Lookup(p.Engine); err == nil {
		if a, ok := e.(Adviser); ok {
			return a.Advice(p, hosts)
		}
	}
	return nil
}
