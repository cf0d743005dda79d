package engine

// Adviser is implemented by engines that have something to say about a
// phase before it runs on hosts hosts: a setting that does not do what
// it usually does there (md's stride mapping every worker to itself). The
// run prints each line as a note; the phase runs all the same.
type Adviser interface {
	Advice(p Phase, hosts int) []string
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
