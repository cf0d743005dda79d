package dfs

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Tails is the last 20 lines of every file matching the globs, each
// under its name: the servers' and clients' logs, for a failed test.
func Tails(globs ...string) string {
	var b strings.Builder
	for _, g := range globs {
		files, _ := filepath.Glob(g)
		for _, f := range files {
			fmt.Fprintf(&b, "== %s\n%s\n", filepath.Base(f), tail(f, 20))
		}
	}
	return b.String()
}

func tail(file string, n int) string {
	fh, err := os.Open(file)
	if err != nil {
		return err.Error()
	}
	defer fh.Close()
	var lines []string
	sc := bufio.NewScanner(io.LimitReader(fh, 8<<20))
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}
