package md

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/storbench/storbench/internal/engine"
)

// treeState is stateFile: a kept tree's shape, and how many items of each
// rank it holds.
type treeState struct {
	Layout  string  `json:"layout"`
	Ranks   int     `json:"ranks"`
	Dirs    []int64 `json:"dirs"`
	Files   []int64 `json:"files"`
	Renamed []int64 `json:"renamed"`
}

// layout is what phases sharing a tree must agree on.
func (p Params) layout() string {
	return fmt.Sprintf("items %d, depth %d, branch %d, files_only %t, dirs_only %t, unique_dir %t, write_bytes %d",
		p.Items, p.Depth, p.Branch, p.FilesOnly, p.DirsOnly, p.UniqueDir, int64(p.WriteBytes))
}

// loadState reads the counts of a tree an earlier phase made, refusing a
// tree of another shape or rank count.
func (r *run) loadState() error {
	p := r.pr.p
	st, err := readState(r.pr.ws.Path)
	if err != nil {
		return fmt.Errorf("tree %s: %v", p.Tree, err)
	}
	switch {
	case st.Layout != p.layout():
		return fmt.Errorf("tree %s was made with %s; this phase says %s: give the phases that share a tree the same shape", p.Tree, st.Layout, p.layout())
	case st.Ranks != r.total || len(st.Dirs) != r.total || len(st.Files) != r.total || len(st.Renamed) != r.total:
		return fmt.Errorf("tree %s was made by %d workers of all hosts; this phase has %d: give the phases that share a tree the same hosts and workers", p.Tree, st.Ranks, r.total)
	}
	copy(r.dirsOf, st.Dirs)
	copy(r.filesOf, st.Files)
	copy(r.renamedOf, st.Renamed)
	return nil
}

// readState reads the counts kept beside a tree in dir.
func readState(dir string) (treeState, error) {
	var st treeState
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("%s: %v", stateFile, err)
	}
	return st, nil
}

// finish ends a phase that keeps its tree for a later one: the hosts meet
// once more, to learn the last counts and whether any failed, and the
// first host writes the counts beside the tree.
func (r *run) finish() {
	pr := r.pr
	failed := r.aborted || len(r.errs) > 0
	if !pr.keepsTree || r.aborted {
		pr.failed = failed
		return
	}
	if b := pr.env.Barrier; b != nil {
		rel, err := b.Wait(r.ctx, "end", r.payload(failed))
		if err != nil {
			if r.ctx.Err() == nil {
				r.errs = append(r.errs, fmt.Sprintf("end: %v", err))
			}
			pr.failed = true
			return
		}
		failed = r.merge(rel) || failed
	}
	pr.failed = failed
	if failed || r.hostRank != 0 {
		return
	}
	st := treeState{Layout: pr.p.layout(), Ranks: r.total, Dirs: r.dirsOf, Files: r.filesOf, Renamed: r.renamedOf}
	b, _ := json.Marshal(st)
	if pr.ws.WriteFile(stateFile, b) == nil {
		return
	}
	r.errs = append(r.errs, fmt.Sprintf("tree %s: cannot write %s; later phases cannot use the tree", pr.p.Tree, stateFile))
	pr.failed = true
}

// payload is what this host brings to a barrier between hosts: whether it
// failed, and the counts of the ranks it changed since the last barrier
// (rank, directories, files, renamed files).
func (r *run) payload(failed bool) []byte {
	if !r.pr.shared {
		return nil
	}
	flag := uint64(0)
	if failed {
		flag = 1
	}
	b := binary.AppendUvarint(nil, flag)
	for _, g := range r.updated {
		b = binary.AppendUvarint(b, uint64(g))
		b = binary.AppendUvarint(b, uint64(r.dirsOf[g]))
		b = binary.AppendUvarint(b, uint64(r.filesOf[g]))
		b = binary.AppendUvarint(b, uint64(r.renamedOf[g]))
	}
	r.updated = r.updated[:0]
	return b
}

// merge takes the other hosts' counts from a barrier's release and says
// whether any host failed or left.
func (r *run) merge(rel engine.Release) (failed bool) {
	for h, a := range rel.Hosts {
		if a.Left {
			failed = true
			continue
		}
		if h == r.hostRank || len(a.Data) == 0 {
			continue
		}
		d := a.Data
		next := func() (int64, bool) {
			v, k := binary.Uvarint(d)
			if k <= 0 {
				return 0, false
			}
			d = d[k:]
			return int64(v), true
		}
		flag, _ := next()
		failed = failed || flag&1 != 0
		for len(d) > 0 {
			g, ok1 := next()
			dirs, ok2 := next()
			files, ok3 := next()
			ren, ok4 := next()
			if !ok1 || !ok2 || !ok3 || !ok4 || g < 0 || g >= int64(r.total) {
				break
			}
			r.dirsOf[g], r.filesOf[g], r.renamedOf[g] = dirs, files, ren
		}
	}
	return failed
}
