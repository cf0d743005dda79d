package model

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

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
	fh, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return t
	}
	defer fh.Close()
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
		mp := unescape(a[4])
		if (abs == mp || strings.HasPrefix(abs, strings.TrimSuffix(mp, "/")+"/")) && len(mp) >= len(t.Mount) {
			t.Mount, t.FSType, t.Source = mp, b[0], unescape(b[1])
			t.Options = a[5]
			if len(b) > 2 {
				t.Options += "," + b[2]
			}
		}
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
