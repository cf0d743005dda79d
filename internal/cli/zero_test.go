package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// numericStrings are string flags that hold a number (a size or a
// duration); with the numeric flag types they are every numeric flag.
var numericStrings = map[string]bool{
	"runtime": true, "size": true, "duration": true, "obj.size": true, "part.size": true, "autoterm.dur": true,
	"max-duration": true, "stonewall": true, "write-bytes": true, "read-bytes": true, "find-size": true,
}

func isNumericFlag(f *pflag.Flag) bool {
	switch f.Value.Type() {
	case "int", "int64", "int32", "uint", "uint64", "float64", "float32", "duration":
		return true
	}
	return numericStrings[f.Name]
}

// Every numeric flag of fio, md, s3, run and agent given as 0 is refused
// with one line naming it (exit 2, no results folder), unless 0 is a real
// setting of that flag and the flag says what it means. Before, 0 silently
// meant the default: --duration 0s ran 5 minutes, --numjobs 0 the job
// files' 32 jobs.
func TestZeroFlagsRefused(t *testing.T) {
	t.Parallel()
	needFio(t)
	tmp := t.TempDir()
	work := workloadDir(t, map[string]string{"a": quickJob("read", "")})
	mdSuite := writeSuite(t, "phases:\n  - md: {dir: "+tmp+", items: 10, workers: 1}\n")
	token := filepath.Join(tmp, "token")
	_ = os.WriteFile(token, []byte("t0ken-0123456789abcdef-zero\n"), 0o600)
	base := func(cmd *cobra.Command, results string) []string {
		path := strings.Fields(cmd.CommandPath())[1:]
		switch path[0] {
		case "fio":
			return append(path, "-d", tmp, "-w", work, "--runtime", "1s", "--size", "64k", "--results", results)
		case "md":
			return append(path, "-d", tmp, "-n", "10", "-t", "1", "--results", results)
		case "s3":
			// An endpoint nothing listens on: a zero taken for a default
			// fails there, with exit 1.
			return append(path, "--host", "127.0.0.1:1", "--access-key", "a", "--secret-key", "b", "--duration", "1s", "--results", results)
		case "run":
			return append(path, mdSuite, "--results", results)
		case "agent":
			return append(path, "--listen", "127.0.0.1:0", "--token-file", token)
		}
		return nil
	}
	st, _ := testState()
	root := NewRoot(st)
	var cmds []*cobra.Command
	for _, c := range root.Commands() {
		switch c.Name() {
		case "fio", "md", "run", "agent":
			cmds = append(cmds, c)
		case "s3":
			cmds = append(cmds, c.Commands()...)
		}
	}
	tested := 0
	for _, c := range cmds {
		c.NonInheritedFlags().VisitAll(func(f *pflag.Flag) {
			if !isNumericFlag(f) {
				return
			}
			if m := f.Annotations[annZero]; len(m) == 1 && m[0] != zeroRefused {
				return // 0 is a real setting of this flag (m[0] says which)
			}
			if f.Hidden {
				return
			}
			tested++
			name := c.CommandPath() + " --" + f.Name
			t.Run(name, func(t *testing.T) {
				results := t.TempDir()
				// The base's own value of the flag goes: a flag given
				// twice is refused for that.
				var args []string
				b := base(c, results)
				for i := 0; i < len(b); i++ {
					if b[i] == "--"+f.Name || f.Shorthand != "" && b[i] == "-"+f.Shorthand {
						i++
						continue
					}
					args = append(args, b[i])
				}
				args = append(args, "--"+f.Name, "0")
				st, out := testState()
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				err := Execute(ctx, st, args)
				if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "--"+f.Name+" 0") || !strings.Contains(err.Error(), "leave the flag out") {
					t.Fatalf("%s: exit %d: %v\n%s", strings.Join(args, " "), ExitCode(err), err, out)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("not one line: %q", err)
				}
				if ents, _ := os.ReadDir(results); len(ents) != 0 {
					t.Error("a results folder was made")
				}
			})
		})
	}
	if tested < 25 {
		t.Errorf("only %d numeric flags tested", tested)
	}
}

// Every numeric flag says whether 0 is refused or what 0 means, so a new
// flag cannot silently read 0 as "the default".
func TestNumericFlagsDecideZero(t *testing.T) {
	t.Parallel()
	st, _ := testState()
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		c.NonInheritedFlags().VisitAll(func(f *pflag.Flag) {
			if c.Name() != "fio" && c.Name() != "md" && c.Name() != "run" && c.Name() != "agent" && (c.Parent() == nil || c.Parent().Name() != "s3") {
				return
			}
			if isNumericFlag(f) && len(f.Annotations[annZero]) != 1 {
				t.Errorf("%s --%s: numeric flag without a rule for 0 (nonZero or zeroMeans)", c.CommandPath(), f.Name)
			}
		})
		for _, s := range c.Commands() {
			visit(s)
		}
	}
	visit(NewRoot(st))
}

// A suite's settings given as 0 are refused where 0 makes no sense, as the
// flags are, instead of running the default.
func TestZeroSuiteKeysRefused(t *testing.T) {
	t.Parallel()
	needFio(t)
	dir := t.TempDir()
	work := workloadDir(t, map[string]string{"a": quickJob("read", "")})
	s3 := "s3: {host: '127.0.0.1:1', access_key: a, secret_key: b}\n"
	for _, c := range []struct{ name, phase, want string }{
		{"fio numjobs", "fio: {workload: " + work + ", numjobs: 0}", "numjobs 0"},
		{"fio matrix numjobs", "fio: {workload: " + work + "}\n    matrix: {numjobs: [1, 0]}", "numjobs 0"},
		{"md workers", "md: {items: 10, workers: 0}", "workers 0"},
		{"md stonewall", "md: {items: 10, stonewall: 0s}", "stonewall 0"},
		{"md seed", "md: {items: 10, seed: 0}", "seed 0"},
		{"s3 concurrent", "s3: {op: get, concurrent: 0}", "concurrent 0"},
		{"s3 objects", "s3: {op: get, objects: 0}", "objects 0"},
		{"s3 duration", "s3: {op: get, duration: 0s}", "duration 0"},
		{"s3 host_limit", "s3: {op: get, host_limit: 0}", "host_limit 0"},
		{"s3 autoterm_pct", "s3: {op: get, autoterm: true, autoterm_pct: 0}", "autoterm_pct 0"},
		{"s3 autoterm_dur", "s3: {op: get, autoterm: true, autoterm_dur: 0}", "autoterm_dur 0"},
		{"s3 rate", "s3: {op: get, rate: 0}", "rate 0"},
		{"s3 batch", "s3: {op: delete, batch: 0}", "batch 0"},
		{"s3 parts", "s3: {op: multipart, parts: 0}", "parts 0"},
		{"s3 part_size", "s3: {op: multipart, part_size: 0}", "part_size 0"},
		{"s3 part_concurrency", "s3: {op: multipart, part_concurrency: 0}", "part_concurrency 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, out := testState()
			suite := writeSuite(t, "dir: "+dir+"\n"+s3+"phases:\n  - "+c.phase+"\n")
			_, err := runSuite(context.Background(), st, RunOptions{DryRun: true, CoVWarn: 5}, suite)
			if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want a usage error naming %q, got exit %d: %v\n%s", c.want, ExitCode(err), err, out)
			}
		})
	}
}
