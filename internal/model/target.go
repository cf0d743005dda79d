package model

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Mount is one line of a mountinfo file: where, what file system, from
// which source, with the mount's options then the file system's.
type Mount struct {
	Point, FSType, Source, Options string
}

// ReadMounts reads a mountinfo file (/proc/self/mountinfo); nil when it
// cannot be read.
func ReadMounts(path string) []Mount {
	fh, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer fh.Close()
	var out []Mount
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		// id parent major:minor root mountpoint opts ... - fstype source superopts
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		a, b := strings.Fields(pre), strings.Fields(post)
		if len(a) < 6 || len(b) < 2 {
			continue
		}
		m := Mount{Point: unescape(a[4]), FSType: b[0], Source: unescape(b[1]), Options: a[5]}
		if len(b) > 2 {
			m.Options += "," + b[2]
		}
		out = append(out, m)
	}
	return out
}

// MountOf is the mount of mounts that holds the absolute path abs: the
// longest mount point that is a prefix of it, the last mounted winning;
// ok false when none does.
func MountOf(abs string, mounts []Mount) (m Mount, ok bool) {
	best := -1
	for i, mt := range mounts {
		if abs == mt.Point || strings.HasPrefix(abs, strings.TrimSuffix(mt.Point, "/")+"/") {
			if best < 0 || len(mt.Point) >= len(mounts[best].Point) {
				best = i
			}
		}
	}
	if best < 0 {
		return Mount{}, false
	}
	return mounts[best], true
}

// TargetOf finds the mount that holds dir in /proc/self/mountinfo.
func TargetOf(dir string) Target {
	t := Target{Dir: dir, FSType: "unknown"}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return t
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	t.Dir = abs
	if m, ok := MountOf(abs, ReadMounts("/proc/self/mountinfo")); ok {
		t.Mount, t.FSType, t.Source, t.Options = m.Point, m.FSType, m.Source, m.Options
	}
	return t
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%o", &v); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
