package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fieldShape reduces a text to what scripts parsing it rely on: each line
// with its numbers replaced by "#", and the tool's name and version, times,
// paths and command lines, which differ between any two runs, dropped.
// Lines storbench does not print (mdtest's FS line, warnings, IOR's
// per-iteration table and options, which -v scripts do not parse) are
// left out of both sides by keep.
func fieldShape(text string, keep func(string) bool) []string {
	num := regexp.MustCompile(`-?\d+(\.\d+)?`)
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" || !keep(line) {
			continue
		}
		switch {
		case strings.HasPrefix(line, "-- started at"), strings.HasPrefix(line, "-- finished at"):
			line = line[:strings.Index(line, " at")]
		case strings.Contains(line, " was launched with "):
			line = line[strings.Index(line, " was launched"):]
		}
		out = append(out, strings.Join(strings.Fields(num.ReplaceAllString(line, "#")), " "))
	}
	return out
}

// --output-format mdtest and ior print the lines, fields and order that a
// real mdtest and IOR print for a run of the same shape (3 tasks on one
// node, -n 200 -i 2; 3 tasks writing 16 MiB each in 1 MiB transfers), as
// the committed fixtures recorded from mdtest and IOR 4.1.0 show.
func TestOutputFormatAsTheFieldsTools(t *testing.T) {
	needFio(t)
	fixtures := map[string]string{}
	for _, name := range []string{"mdtest-4.1.0-3tasks.txt", "ior-4.1.0-3tasks.txt"} {
		b, err := os.ReadFile(filepath.Join("..", "report", "testdata", "field", name))
		if err != nil {
			t.Fatal(err)
		}
		fixtures[name] = string(b)
	}
	fixture := func(name string) string { return fixtures[name] }
	t.Run("mdtest", func(t *testing.T) {
		keep := func(l string) bool {
			for _, p := range []string{"-- ", " was launched with ", " tasks, ", "SUMMARY rate", "   Operation", "   ---------", "   Directory", "   File", "   Tree"} {
				if strings.HasPrefix(l, p) || strings.Contains(l, p) && p[0] == ' ' && !strings.HasPrefix(l, "   ") {
					return true
				}
			}
			return false
		}
		t.Chdir(t.TempDir())
		st, out := testState()
		res := t.TempDir()
		if err := Execute(context.Background(), st, []string{"md", "-n", "200", "-i", "2", "-t", "3", "--results", res, "--output-format", "mdtest"}); err != nil {
			t.Fatal(err)
		}
		got, want := fieldShape(out.String(), keep), fieldShape(fixture("mdtest-4.1.0-3tasks.txt"), keep)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("storbench md --output-format mdtest:\n%s\n\nmdtest 4.1.0 prints:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
	t.Run("ior", func(t *testing.T) {
		inSummary := false
		keep := func(l string) bool {
			if strings.HasPrefix(l, "Summary of all tests:") {
				inSummary = true
			}
			return inSummary && !strings.HasPrefix(l, "Finished")
		}
		jobs := workloadDir(t, map[string]string{"wr": "[global]\nsize=16M\nbs=1M\nioengine=psync\nnumjobs=3\ngroup_reporting\n[w]\nrw=write\n[r]\nstonewall\nrw=read\n"})
		st, out := testState()
		if err := Execute(context.Background(), st, []string{"fio", "-d", t.TempDir(), "-w", jobs, "--results", t.TempDir(), "--output-format", "ior"}); err != nil {
			t.Fatal(err)
		}
		got := fieldShape(out.String(), keep)
		inSummary = false
		want := fieldShape(fixture("ior-4.1.0-3tasks.txt"), keep)
		// IOR knows its tasks, file per process and block size; storbench
		// says NA where a fio job does not tell it: the same field, another
		// word.
		na := regexp.MustCompile(`\bNA\b`)
		for i := range got {
			got[i] = na.ReplaceAllString(got[i], "#")
		}
		for i := range want {
			want[i] = strings.Replace(na.ReplaceAllString(want[i], "#"), "POSIX", "psync", 1)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("storbench fio --output-format ior:\n%s\n\nIOR 4.1.0 prints:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// An --output-format storbench has no renderer for, or one that wants
// stdout with --json, is refused before anything runs; one that does not
// fit the run says so.
func TestOutputFormatBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"md", "-n", "5", "--output-format", "elbencho"}, `--output-format "elbencho": want ior, json, json+, mdtest`},
		{[]string{"md", "-n", "5", "--output-format", ""}, "--output-format"},
		{[]string{"fio", "--output-format", "normal"}, "drop it"},
		{[]string{"fio", "--output-format=terse"}, "give json or json+"},
		{[]string{"md", "-n", "5", "--output-format", "mdtest", "--json"}, "--output-format and --json"},
		{[]string{"analyze", "--output-format", "ior", "--json", "."}, "drop --json"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Chdir(t.TempDir())
			st, _ := testState()
			res := t.TempDir()
			args := c.args
			if args[0] != "analyze" {
				args = append(args, "--results", res)
			}
			err := Execute(context.Background(), st, args)
			if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("exit %d, %v; want exit 2 with %q", ExitCode(err), err, c.want)
			}
			if ents, _ := os.ReadDir(res); len(ents) != 0 {
				t.Errorf("bad input wrote %d entries", len(ents))
			}
		})
	}
}
