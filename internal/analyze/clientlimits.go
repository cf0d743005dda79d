package analyze

import (
	"slices"
	"sort"

	"github.com/storbench/storbench/internal/results"
)

// ClientLimitChange is a host whose limits of its own (its CPU, its
// link, its disk, starved: results.HostVerdict) differ between the two
// runs in a phase: the figures compared may be a client's in one run and
// the storage's in the other.
type ClientLimitChange struct {
	Phase string `json:"phase"`
	Host  string `json:"host"`
	// Before and After are the host's verdicts in each run, in words;
	// empty where it reached none.
	Before []string `json:"before"`
	After  []string `json:"after"`
}

// clientLimitChanges compares the verdicts of a phase's hosts, by kind,
// where both runs sampled their hosts (a run from before the samples
// says nothing either way). Iterations add their verdicts.
func clientLimitChanges(name string, a, b []PhaseData) []ClientLimitChange {
	if !sampled(a) || !sampled(b) {
		return nil
	}
	va, vb := verdictsByHost(a), verdictsByHost(b)
	hosts := map[string]bool{}
	for h := range va {
		hosts[h] = true
	}
	for h := range vb {
		hosts[h] = true
	}
	var out []ClientLimitChange
	for h := range hosts {
		if !slices.Equal(kinds(va[h]), kinds(vb[h])) {
			out = append(out, ClientLimitChange{Phase: name, Host: h, Before: texts(va[h]), After: texts(vb[h])})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out
}

func sampled(ps []PhaseData) bool {
	for _, p := range ps {
		if p.Summary.Sampled() {
			return true
		}
	}
	return false
}

func verdictsByHost(ps []PhaseData) map[string][]results.HostVerdict {
	m := map[string][]results.HostVerdict{}
	for _, p := range ps {
		for _, v := range p.Summary.ClientLimits {
			m[v.Host] = append(m[v.Host], v)
		}
	}
	return m
}

func kinds(vs []results.HostVerdict) []string {
	var out []string
	for _, v := range vs {
		if !slices.Contains(out, v.Kind) {
			out = append(out, v.Kind)
		}
	}
	slices.Sort(out)
	return out
}

func texts(vs []results.HostVerdict) []string {
	out := []string{}
	for _, v := range vs {
		if !slices.Contains(out, v.Text) {
			out = append(out, v.Text)
		}
	}
	return out
}
