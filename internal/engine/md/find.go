package md

import (
	"encoding/binary"
	"path/filepath"
	"syscall"
	"time"
)

// Where find walks (Params.FindIn).
const (
	// FindInTree walks the phase's own trees, directories dealt out over
	// the workers.
	FindInTree = "tree"
	// FindInData walks the run's whole data directory,
	// <dir>/storbench/<run id>/ (every phase's files and trees, fio's
	// included), as IO500's find walks its whole data directory.
	FindInData = "data"
)

// find is this worker's share of the find operation, as IO500's find
// phase runs pfind (-newer <start> -name "*01*" -size 3901c): every entry
// is checked once, by one worker of all hosts (when the hosts share the
// directory): its name against FindName, and for a regular file whose name
// matches, its size (fstatat) against FindSize and its modification time
// against the run's start (-newer). Each entry is one operation, so find's
// rate is entries checked per second, IO500's total-files over runtime.
// The entries matched are counted (found).
//
// In the phase's trees (FindInTree), tree directories are dealt out over
// the workers when there are at least as many as workers; otherwise (a
// one-directory tree, as mdtest-hard's) every worker reads every
// directory and the entries are dealt out, by a hash of their path, so
// that no tree is walked by one worker alone. Item directories are
// checked but not entered (md makes them empty). In the data directory
// (FindInData) every worker reads every directory that holds
// subdirectories, descending into them, and checks the entries dealt to
// it; a leaf directory is dealt out whole, as pfind deals out directories,
// and read by its worker alone (listing it on every worker cost each as
// much as the whole walk: find on 2 hosts was 0.3-0.65x IO500's).
func (w *worker) find() {
	r := w.r
	p := r.pr.p
	o := w.rec.Op(w.recIdx[opFind])
	w.findT0 = mono()
	if p.FindIn == FindInData {
		root := []byte(filepath.Join(p.Dir, "storbench", r.pr.env.RunID) + "\x00")
		fd, e := openat(w.raw, atFdcwd, &root[0], syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if e != 0 {
			w.fail(o, e)
			return
		}
		w.scanDir(fd, fnvOffset, 0, true, true)
		closeFd(w.raw, fd)
		return
	}
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
	dirs := trees * nodes
	byEntry := dirs < int64(w.findSpace)
	for d := int64(0); d < dirs; d++ {
		if !byEntry && d%int64(w.findSpace) != int64(w.findRank) {
			continue
		}
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
		ok := w.scanDir(fd, hashName(fnvOffset, w.path[:len(w.path)-1]), 0, byEntry, false)
		closeFd(w.raw, fd)
		if !ok || r.stop.Load() {
			return
		}
	}
}

// scanDir checks the entries of directory fd dealt to this worker (all of
// them unless split: those whose path hashes to it), descending into
// subdirectories when descend is set; dirHash is the hash of the
// directory's path, depth its depth below where the walk began. It returns
// false when the walk must end: an error, or the run stopped.
func (w *worker) scanDir(fd int, dirHash uint64, depth int, split, descend bool) bool {
	r := w.r
	p := r.pr.p
	o := w.rec.Op(w.recIdx[opFind])
	buf := w.dentsAt(depth)
	want := p.findSize()
	for {
		n, e := getdents(fd, buf)
		if e != 0 {
			w.fail(o, e)
			return false
		}
		if n <= 0 {
			return true
		}
		// struct linux_dirent64: inode (8), offset (8), record length (2),
		// type (1), NUL-terminated name.
		for off := 0; off < n; {
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			typ := buf[off+18]
			name := buf[off+19 : off+reclen]
			for j, c := range name {
				if c == 0 {
					name = name[:j]
					break
				}
			}
			nameAt := &buf[off+19]
			off += reclen
			if len(name) == 0 || len(name) <= 2 && name[0] == '.' && (len(name) == 1 || name[1] == '.') {
				continue
			}
			w.listed++
			h := hashName(dirHash, name)
			if descend && (typ == dtDir || typ == dtUnknown) && depth < maxFindDepth {
				// A leaf directory (no subdirectory in it) is read by the
				// worker it is dealt to alone, who checks all of it: the
				// others need not list it to find more directories.
				subSplit := split
				if split {
					leaf, mine := w.leafDealt(fd, nameAt, h)
					if leaf && !mine {
						goto check
					}
					subSplit = !leaf
				}
				sub, e := openat(w.raw, fd, nameAt, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
				switch {
				case e == 0:
					ok := w.scanDir(sub, h, depth+1, subSplit, true)
					closeFd(w.raw, sub)
					if !ok {
						return false
					}
				case e != syscall.ENOTDIR && e != syscall.ELOOP && e != syscall.ENOENT:
					w.fail(o, e)
					return false
				}
			}
		check:
			if split && h%uint64(w.findSpace) != uint64(w.findRank) {
				continue
			}
			if (typ == dtReg || typ == dtUnknown) && match(p.FindName, name) &&
				fstatat(w.raw, fd, nameAt, &w.st) == 0 && w.st.Mode&syscall.S_IFMT == syscall.S_IFREG && w.st.Size == want &&
				w.newer() {
				w.found++
			}
			t1 := mono()
			o.Record(t1-w.findT0, 0)
			w.findT0 = t1
			w.items++
		}
		if r.stop.Load() {
			return false
		}
	}
}

// leafDealt says whether the directory name (in directory fd, its path
// hashing to h) is a leaf, holding no subdirectory, and whether it is
// dealt to this worker. A directory's link count is 2 plus its
// subdirectories on the file systems that keep it (ext4, XFS, Lustre,
// NFS from them); one that reports another count (btrfs: 1) is no leaf
// here and every worker reads it, as before. A leaf that holds a
// subdirectory after all is still walked whole, by its worker alone.
func (w *worker) leafDealt(fd int, name *byte, h uint64) (leaf, mine bool) {
	if fstatat(w.raw, fd, name, &w.st) != 0 || w.st.Mode&syscall.S_IFMT != syscall.S_IFDIR || w.st.Nlink != 2 {
		return false, true
	}
	return true, h%uint64(w.findSpace) == uint64(w.findRank)
}

// newer says whether the file just stat'ed (w.st) was modified after the
// run began, as find -newer does with IO500's timestamp file; with no
// start known (a run id that names none), every file is.
func (w *worker) newer() bool {
	ref := w.r.findNewer
	return ref == 0 || w.st.Mtim.Nano() > ref
}

// runStart is when the run began, in Unix ns, from its id
// ("20261121T051502Z-3fa9", to the second: a file made in the run's first
// second is still newer), or 0 when the id names no time.
func runStart(runID string) int64 {
	const layout = "20060102T150405Z"
	if len(runID) < len(layout) {
		return 0
	}
	t, err := time.Parse(layout, runID[:len(layout)])
	if err != nil {
		return 0
	}
	return t.UnixNano() - 1
}

// maxFindDepth bounds how deep the data directory walk descends (a loop
// of bind mounts would otherwise never end); each level holds a buffer.
const maxFindDepth = 2 * MaxDepth

// dentsAt is the directory entry buffer for depth d, made on first use:
// a walk descends while its parent's entries are still being read.
func (w *worker) dentsAt(d int) []byte {
	for len(w.dents) <= d {
		w.dents = append(w.dents, make([]byte, 32<<10))
	}
	return w.dents[d]
}

// FNV-1a, 64 bits: hashName deals out entries by their path, the same on
// every host.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// hashName extends the hash of a directory's path by one name.
func hashName(h uint64, name []byte) uint64 {
	h = (h ^ '/') * fnvPrime
	for _, c := range name {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

// Directory entry types (d_type) find looks at.
const (
	dtUnknown = 0
	dtDir     = 4
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
