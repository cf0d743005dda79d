package md

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
)

// setRanks learns every host's workers at a first barrier between hosts
// and gives each worker its global rank, and the rank whose items it works
// on after the creates: (rank + stride) mod all workers. A phase on a tree
// an earlier phase made reads that tree's counts now, before any load.
func (r *run) setRanks() error {
	pr := r.pr
	n := len(r.workers)
	r.hostFirst = []int{0, n}
	if b := pr.env.Barrier; b != nil {
		rel, err := b.Wait(r.ctx, "ranks", binary.AppendUvarint(nil, uint64(n)))
		if err != nil {
			return fmt.Errorf("ranks: %v", err)
		}
		r.hostFirst = make([]int, len(rel.Hosts)+1)
		for h, a := range rel.Hosts {
			w := uint64(0)
			if !a.Left {
				var k int
				if w, k = binary.Uvarint(a.Data); k <= 0 {
					return fmt.Errorf("ranks: host %s sent no worker count", a.Host)
				}
			}
			r.hostFirst[h+1] = r.hostFirst[h] + int(w)
		}
		r.hostRank = pr.env.Rank
		if r.hostRank >= len(rel.Hosts) || r.hostFirst[r.hostRank+1]-r.hostFirst[r.hostRank] != n {
			return fmt.Errorf("ranks: host %d of %d does not see its own %d workers", r.hostRank, len(rel.Hosts), n)
		}
	}
	r.first, r.total = r.hostFirst[r.hostRank], r.hostFirst[len(r.hostFirst)-1]
	r.dirsOf, r.filesOf, r.renamedOf = make([]int64, r.total), make([]int64, r.total), make([]int64, r.total)
	if pr.p.Tree != "" && !pr.makesTree {
		if err := r.loadState(); err != nil {
			return err
		}
	}
	shift, err := r.shiftRanks()
	if err != nil {
		return err
	}
	r.shift = shift
	p := pr.p
	r.roots, r.slotOf = nil, map[int]int{}
	for i, w := range r.workers {
		w.g = r.first + i
		for c := range w.tgt {
			t := w.g
			switch {
			case p.RankStride > 0 && c != shiftOwn:
				t = (w.g + p.RankStride) % r.total
			case p.Stride > 0:
				t = (w.g + c*shift) % r.total
			}
			w.tgt[c] = r.itemsOf(t)
		}
		w.own = &w.tgt[shiftOwn]
		w.ownsTree = p.UniqueDir || w.g == 0
		w.findRank, w.findSpace = i, n
		if pr.shared {
			w.findRank, w.findSpace = w.g, r.total
		}
	}
	return nil
}

// shiftRanks is -N's shift in ranks: Stride hosts' worth of workers on
// several hosts (mdtest 3.3+ multiplies -N by the tasks per node when
// ranks are placed node by node, as storbench places them), Stride ranks
// on one host (mdtest on one node). It needs the same workers on every
// host, so that a shift of whole hosts maps workers one to one.
func (r *run) shiftRanks() (int, error) {
	p := r.pr.p
	hosts := len(r.hostFirst) - 1
	if p.Stride == 0 || hosts == 1 {
		return p.Stride, nil
	}
	per := r.hostFirst[1] - r.hostFirst[0]
	for h := 1; h < hosts; h++ {
		if n := r.hostFirst[h+1] - r.hostFirst[h]; n != per {
			return 0, fmt.Errorf("stride (-N) shifts by whole hosts, and the hosts run different numbers of workers (%d and %d): give the same workers to every host (-t)", per, n)
		}
	}
	return p.Stride * per, nil
}

// Shift classes: whose items an operation works on, as mdtest names them
// (mk, stat, read and rm names): the worker's own, or with -N those of the
// rank S, 2S or 3S further on.
const (
	shiftOwn = iota
	shiftStat
	shiftRead
	shiftRemove
	numShifts
)

// shiftOf is operation k's shift class. Renames go with the stat, as
// mdtest's directory rename works on the stat names.
func shiftOf(k opKind) int {
	switch k {
	case opDirStat, opFileStat, opDirRename, opFileRename:
		return shiftStat
	case opFileRead:
		return shiftRead
	case opFileRemove, opDirRemove:
		return shiftRemove
	}
	return shiftOwn
}

// itemsOf names the items of global rank g: in a tree per worker (-u)
// they are "d.<n>", "f.<n>" in tree "w<g>", in the one shared tree
// "d.<g>.<n>", "f.<g>.<n>". The tree's slot in treeFds is given on first
// use.
func (r *run) itemsOf(g int) items {
	if r.pr.p.UniqueDir {
		root := "w" + strconv.Itoa(g)
		slot, ok := r.slotOf[g]
		if !ok {
			slot = len(r.roots)
			r.slotOf[g] = slot
			r.roots = append(r.roots, root)
		}
		return items{rank: g, slot: slot, root: root, dirPfx: []byte("d."), filePfx: []byte("f."), renPfx: []byte("r."), sparePfx: []byte("x.d.")}
	}
	if len(r.roots) == 0 {
		r.roots = []string{"shared"}
	}
	tag := strconv.Itoa(g) + "."
	return items{rank: g, root: "shared", dirPfx: []byte("d." + tag), filePfx: []byte("f." + tag), renPfx: []byte("r." + tag), sparePfx: []byte("x.d." + tag)}
}

// hostOf returns the host (its engine.Env.Rank) of global rank g.
func (r *run) hostOf(g int) int {
	return sort.Search(len(r.hostFirst)-1, func(h int) bool { return r.hostFirst[h+1] > g })
}
