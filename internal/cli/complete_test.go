package cli

import (
	"context"
	"slices"
	"strings"
	"testing"

	fioengine "github.com/storbench/storbench/internal/engine/fio"
)

// Completion completes the values of every flag that takes one of a
// fixed set, as a shell asks for them (`storbench __complete ...`): fio's
// rw values and ioengines, the built-in workloads with the shell's own
// completion of job files (directive 0) after them, the output formats,
// md's operations and find's places; a value set offers no file names
// (directive 4).
func TestCompletionOfValues(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args      []string
		want      []string
		directive string
	}{
		{[]string{"fio", "--rw", ""}, sortedKeys(fioRW), ":4"},
		{[]string{"fio", "--rw", "rand"}, sortedKeys(fioRW), ":4"},
		{[]string{"fio", "--ioengine", ""}, []string{"psync", "libaio", "io_uring", "posixaio", "mmap", "null"}, ":4"},
		{[]string{"fio", "-w", ""}, fioengine.Workloads(), ":0"},
		{[]string{"fio", "--workload", ""}, fioengine.Workloads(), ":0"},
		{[]string{"fio", "--output-format", ""}, []string{"ior", "json", "json+", "mdtest"}, ":4"},
		{[]string{"md", "--output-format", ""}, []string{"ior", "json", "json+", "mdtest"}, ":4"},
		{[]string{"run", "--output-format", ""}, []string{"ior", "json", "json+", "mdtest"}, ":4"},
		{[]string{"analyze", "--output-format", ""}, []string{"ior", "json", "json+", "mdtest"}, ":4"},
		{[]string{"md", "--only", ""}, []string{"create", "stat", "find", "read", "rename", "remove"}, ":4"},
		{[]string{"md", "--find-in", ""}, []string{"tree", "data"}, ":4"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			st, out := testState()
			if err := Execute(context.Background(), st, append([]string{"__complete"}, c.args...)); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			var got []string
			for _, l := range lines {
				if l != "" && !strings.HasPrefix(l, ":") && !strings.HasPrefix(l, "Completion ended") {
					got = append(got, strings.SplitN(l, "\t", 2)[0])
				}
			}
			for _, w := range c.want {
				if !slices.Contains(got, w) {
					t.Errorf("%q not offered; offered %q", w, got)
				}
			}
			if !slices.Contains(lines, c.directive) {
				t.Errorf("directive %s not given: %q", c.directive, lines)
			}
		})
	}
}
