package md

import (
	"bytes"
	"strconv"
)

// Full paths (Params.FullPaths): mdtest names every item by its whole path
// from its -d directory, so on every call the file system client resolves
// each directory on the way (a lookup of each component, revalidated on a
// network file system as its cache rules say), while by default storbench
// names an item from the open tree directory that holds it (one component).
// With FullPaths each call names its item from DIR, as mdtest does.

// treePaths returns, per tree directory of a tree, the path calls name its
// items under: the workspace, the iteration directory, the tree's root and
// the directory's place in the tree, each with a trailing '/'.
func (r *run) treePaths(root string) [][]byte {
	out := make([][]byte, r.pr.nodes)
	prefix := r.pr.ws.Path + "/it" + strconv.Itoa(r.iter) + "/"
	for k := range out {
		p := nodePath([]byte(prefix), root, int64(k), r.pr.p.Branch)
		out[k] = append(p, '/')
	}
	return out
}

// sizeFullNames gives every worker buffers that hold the longest path an
// item gets under paths, so that naming an item allocates nothing. It runs
// in a barrier action, while the workers wait.
func (r *run) sizeFullNames(paths [][][]byte) {
	longest := 0
	for _, tree := range paths {
		for _, p := range tree {
			longest = max(longest, len(p))
		}
	}
	for _, w := range r.workers {
		if cap(w.full) < longest+nameLen {
			w.full = make([]byte, 0, longest+nameLen)
			w.full2 = make([]byte, 0, longest+nameLen)
		}
	}
}

// fullName writes dir and the NUL-terminated name into buf and returns the
// path's first byte, for a call relative to the current directory (an
// absolute path when DIR is one, as mdtest's -d).
func fullName(buf *[]byte, dir []byte, name *[nameLen]byte) *byte {
	n := bytes.IndexByte(name[:], 0)
	b := append(append((*buf)[:0], dir...), name[:n+1]...)
	*buf = b
	return &b[0]
}

// nodeOf is the tree directory (its index in the tree) that holds item i
// of a rank's items, of which each directory holds an even share (the
// first ones one more).
func nodeOf(nodes, i, items int64) int64 {
	if nodes == 1 {
		return 0
	}
	per, extra := items/nodes, items%nodes
	if big := extra * (per + 1); i < big {
		return i / (per + 1)
	}
	return extra + (i-extra*(per+1))/per
}
