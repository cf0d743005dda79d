package md

import (
	"fmt"
	"path/filepath"
	"syscall"

	"github.com/storbench/storbench/internal/record"
)

// pass is what eachItem's operation needs of every item, looked up once
// before the first: the tree directories the items are spread over, the
// prefixes of their names, and the bytes a file operation moves.
type pass struct {
	k     opKind
	fds   []int    // the tree directories, open
	paths [][]byte // with FullPaths: each directory's path
	nodes int64    // len(fds)
	items int64    // a rank's items, spread over the nodes (nodeOf)
	// pfx names the items; renPfx their renamed names, which file-remove
	// gives the first renamed of them.
	pfx, renPfx []byte
	renamed     int64
	wb, rb      int64 // write_bytes, read_bytes
	syncFile    bool
}

// newPass sets up operation k's pass over the items of s, the first
// renamed of them under their renamed names.
func (w *worker) newPass(k opKind, s *items, renamed int64) pass {
	r := w.r
	ps := pass{
		k: k, fds: r.treeFds[s.slot], items: r.pr.p.Items,
		pfx: s.filePfx, renPfx: s.renPfx, renamed: renamed,
		wb: int64(r.pr.p.WriteBytes), rb: int64(r.pr.p.ReadBytes), syncFile: r.pr.p.SyncFile,
	}
	ps.nodes = int64(len(ps.fds))
	if r.paths != nil {
		ps.paths = r.paths[s.slot]
	}
	switch k {
	case opDirCreate, opDirStat, opDirRemove:
		ps.pfx = s.dirPfx
	}
	return ps
}

// item names item i (in w.name) and runs the pass's operation on it: the
// bytes it moved and its error; made says a file create made the file,
// whether or not writing it then failed.
func (w *worker) item(ps *pass, i int64) (moved int64, e syscall.Errno, made bool) {
	node := nodeOf(ps.nodes, i, ps.items)
	fd := ps.fds[node]
	if ps.k == opFileRemove && i < ps.renamed {
		setName(&w.name, ps.renPfx, i)
	} else {
		setName(&w.name, ps.pfx, i)
	}
	p := &w.name[0]
	if ps.paths != nil {
		fd, p = atFdcwd, fullName(&w.full, ps.paths[node], &w.name)
	}
	switch ps.k {
	case opDirCreate:
		e = mkdirat(w.raw, fd, p, 0o755)
	case opDirStat, opFileStat:
		e = fstatat(w.raw, fd, p, &w.st)
	case opDirRemove:
		if e = rmdirAt(w.raw, fd, p); e != 0 {
			e, _ = w.removeDir(fd, p, e) // as tree-remove: one item, one operation
		}
	case opFileRemove:
		e = unlinkat(w.raw, fd, p, 0)
	case opFileRename:
		setName(&w.name2, ps.renPfx, i)
		p2 := &w.name2[0]
		if ps.paths != nil {
			p2 = fullName(&w.full2, ps.paths[node], &w.name2)
		}
		e = renameat(w.raw, fd, p, fd, p2)
	case opFileCreate:
		return w.createFile(fd, p, ps.wb, ps.syncFile)
	case opFileRead:
		moved, e = w.readFile(fd, p, ps.rb)
	}
	return moved, e, false
}

// itemFailed counts error e of operation o and, the first time, names the
// item (w.name, of s) for the error line: on a shared file system a stale
// entry is one item another client made.
func (w *worker) itemFailed(o *record.OpRecorder, e syscall.Errno, s *items) {
	w.fail(o, e)
	if w.errItem == "" {
		w.errItem = fmt.Sprintf("%s, rank %d's", filepath.Join(s.root, cName(w.name[:])), s.rank)
	}
}
