package md

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
)

// SharedDir names the target directory whose shared area a phase on hosts
// hosts works in: with one tree for all hosts (no -u) or a stride (-N) on
// several hosts, which must then see it as one namespace (the run proves
// it), and with a tree that phases share, even on one host, so that the
// run removes it at its end if the phase that removes it never ran.
func (pl plan) SharedDir(hosts int) (string, bool) {
	if !pl.ps.shared(hosts) {
		return "", false
	}
	return pl.ps.Dir, true
}

// Advice warns of a stride that does not make reads cross hosts: -N on
// one host, -N that leads stat, read or remove back to the host's own
// items, and a rank stride that leads only some workers to another host.
func (pl plan) Advice(hosts int) []string {
	p, name := pl.ps, pl.name
	if !p.strided() {
		return nil
	}
	hosts = max(hosts, 1)
	if p.RankStride > 0 {
		return rankStrideAdvice(name, p, hosts)
	}
	if hosts == 1 {
		return []string{fmt.Sprintf("phase %s: stride (-N) %d on one host: workers work on each other's items (a shift of %d ranks, as mdtest on one node), but no stat, read or remove crosses hosts", name, p.Stride, p.Stride)}
	}
	var own []string
	for c, name := range []string{"stat", "read", "remove"} {
		if (c+1)*p.Stride%hosts == 0 {
			own = append(own, name)
		}
	}
	switch {
	case len(own) == 3:
		return []string{fmt.Sprintf("phase %s: stride (-N) %d is a multiple of the %d hosts: every worker works on its own host's items, and no stat, read or remove crosses hosts", name, p.Stride, hosts)}
	case len(own) > 0:
		return []string{fmt.Sprintf("phase %s: stride (-N) %d on %d hosts: %s shifted by %s hosts work on the host's own items, as in mdtest (stat, read and remove shift by 1, 2 and 3 times -N hosts)",
			name, p.Stride, hosts, strings.Join(own, ", "), strings.Join(ownShifts(p.Stride, own), ", "))}
	}
	return nil
}

// ownShifts names the shifts, in hosts, of the operations own lists.
func ownShifts(stride int, own []string) []string {
	mult := map[string]int{"stat": 1, "read": 2, "remove": 3}
	out := make([]string, len(own))
	for i, o := range own {
		out[i] = strconv.Itoa(mult[o] * stride)
	}
	return out
}

// rankStrideAdvice warns of a rank stride (--rank-stride) that maps every
// worker to itself, one on one host, and one that leads only some workers
// to another host's items.
func rankStrideAdvice(name string, p Params, hosts int) []string {
	if p.Workers > 0 && p.RankStride%(hosts*p.Workers) == 0 {
		total := hosts * p.Workers
		return []string{fmt.Sprintf("phase %s: rank stride %d is a multiple of the %d workers of all hosts (%d x %d): every worker works on its own items, and no stat, read or remove crosses hosts",
			name, p.RankStride, total, hosts, p.Workers)}
	}
	if hosts == 1 {
		return []string{fmt.Sprintf("phase %s: rank stride %d on one host: workers work on each other's items, but no stat, read or remove crosses hosts", name, p.RankStride)}
	}
	if p.Workers == 0 {
		return nil // one per CPU on each host: the hosts' counts say it in the results
	}
	total := hosts * p.Workers
	crossing := 0
	for g := range total {
		if (g+p.RankStride)%total/p.Workers != g/p.Workers {
			crossing++
		}
	}
	if crossing < total {
		return []string{fmt.Sprintf("phase %s: rank stride %d on %d hosts x %d workers: %d of %d workers work on items another host created (-N 1 makes stat and read cross hosts)",
			name, p.RankStride, hosts, p.Workers, crossing, total)}
	}
	return nil
}

// CheckTrees refuses a plan whose phases share a tree in an order that
// cannot work: a phase working on a tree before one creates it, a second
// creation, or a tree created and never removed by a later phase (unless
// the run keeps its files). Phases of other engines are skipped; phases md
// refuses are left to its own check.
func CheckTrees(phases []engine.Phase, keep bool) error {
	type tree struct {
		made, removed bool
		by            string
	}
	trees := map[string]*tree{}
	var order []string
	for _, ph := range phases {
		if ph.Engine != model.EngineMD {
			continue
		}
		p, err := phaseParams(ph)
		if err != nil || p.Tree == "" {
			continue
		}
		t := trees[p.Tree]
		if t == nil {
			t = &tree{}
			trees[p.Tree] = t
			order = append(order, p.Tree)
		}
		ops := p.ops()
		makes, removes := slices.Contains(ops, opTreeCreate), slices.Contains(ops, opTreeRemove)
		switch {
		case makes && t.made && !t.removed:
			return fmt.Errorf("phase %s creates tree %s, which phase %s created already", ph.Name, p.Tree, t.by)
		case makes && t.removed:
			return fmt.Errorf("phase %s creates tree %s again after a phase removed it: give the new tree another name", ph.Name, p.Tree)
		case !makes && !t.made:
			return fmt.Errorf("phase %s works on tree %s before any phase creates it (only: [create], tree: %s, comes first)", ph.Name, p.Tree, p.Tree)
		case !makes && t.removed:
			return fmt.Errorf("phase %s works on tree %s after a phase removed it", ph.Name, p.Tree)
		}
		if makes {
			t.made, t.by = true, ph.Name
		}
		t.removed = t.removed || removes
	}
	if keep {
		return nil
	}
	for _, name := range order {
		if t := trees[name]; !t.removed {
			return fmt.Errorf("phase %s creates tree %s and no later phase removes it: add a phase with only: [remove] and tree: %s (or keep the files with --keep)", t.by, name, name)
		}
	}
	return nil
}
