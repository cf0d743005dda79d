package md

import (
	"encoding/binary"
	"syscall"
)

// find is this worker's share of the find operation, as IO500's find phase
// runs pfind over its tree (-name "*01*" -size 3901c): the tree
// directories are dealt out over the workers (of all hosts when the tree
// is shared), and a worker reads each of its directories to the end and
// checks every entry: its name against FindName, and for a regular file
// whose name matches, its size (fstatat) against FindSize. Each entry is
// one operation, so find's rate is entries checked per second, IO500's
// total-files over runtime. Tree directories are walked as units of their
// own; item directories are checked by name but not entered (md makes them
// empty). The entries matched are counted (found).
func (w *worker) find() {
	r := w.r
	p := r.pr.p
	o := w.rec.Op(w.recIdx[opFind])
	nodes := r.pr.nodes
	// Trees: the one shared tree (-1), or one per rank: all ranks' when
	// the hosts share the tree's directory, this host's otherwise.
	trees, base := int64(1), -1
	if p.UniqueDir {
		trees, base = int64(len(r.workers)), r.first
		if r.pr.shared {
			trees, base = int64(r.total), 0
		}
	}
	want := p.findSize()
	pat := p.FindName
	t0 := mono()
	for d := int64(w.findRank); d < trees*nodes; d += int64(w.findSpace) {
		tree := -1
		if base >= 0 {
			tree = base + int(d/nodes)
		}
		w.path = appendRoot(w.path[:0], tree)
		w.path = nodePath(w.path, "", d%nodes, p.Branch)
		w.path = append(w.path, 0)
		fd, e := openat(w.raw, r.iterFd, &w.path[0], syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if e != 0 {
			w.fail(o, e)
			return
		}
		for {
			n, e := getdents(fd, w.dents)
			if e != 0 {
				closeFd(w.raw, fd)
				w.fail(o, e)
				return
			}
			if n <= 0 {
				break
			}
			// struct linux_dirent64: inode (8), offset (8), record
			// length (2), type (1), NUL-terminated name.
			for off := 0; off < n; {
				reclen := int(binary.NativeEndian.Uint16(w.dents[off+16:]))
				typ := w.dents[off+18]
				name := w.dents[off+19 : off+reclen]
				for j, c := range name {
					if c == 0 {
						name = name[:j]
						break
					}
				}
				nameAt := &w.dents[off+19]
				off += reclen
				if len(name) == 0 || len(name) <= 2 && name[0] == '.' && (len(name) == 1 || name[1] == '.') {
					continue
				}
				if (typ == dtReg || typ == dtUnknown) && match(pat, name) &&
					fstatat(w.raw, fd, nameAt, &w.st) == 0 && w.st.Mode&syscall.S_IFMT == syscall.S_IFREG && w.st.Size == want {
					w.found++
				}
				t1 := mono()
				o.Record(t1-t0, 0)
				t0 = t1
				w.items++
			}
			if r.stop.Load() {
				break
			}
		}
		closeFd(w.raw, fd)
		if r.stop.Load() {
			return
		}
	}
}

// Directory entry types (d_type) find looks at.
const (
	dtUnknown = 0
	dtReg     = 8
)

// match reports whether name matches the shell pattern pat, where "*"
// matches any run of bytes and "?" any one byte, as find -name does for
// names without brackets or escapes. It allocates nothing.
func match(pat string, name []byte) bool {
	p, n := 0, 0
	star, from := -1, 0
	for n < len(name) {
		switch {
		case p < len(pat) && (pat[p] == '?' || pat[p] == name[n]):
			p++
			n++
		case p < len(pat) && pat[p] == '*':
			star, from = p, n
			p++
		case star >= 0:
			// Let the last star take one more byte.
			from++
			p, n = star+1, from
		default:
			return false
		}
	}
	for p < len(pat) && pat[p] == '*' {
		p++
	}
	return p == len(pat)
}
