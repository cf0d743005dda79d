package cli

import (
	"context"
	"os"
	"strings"
	"testing"
)

// The first command on a machine that is not a WEKA client works: fio and
// md without -d measure ./storbench-data, as `storbench run` does, and
// write a results folder; with agents and no -d, one line says to give it.
func TestDefaultDirectoryWorksAnywhere(t *testing.T) {
	needFio(t)
	jobs := workloadDir(t, map[string]string{"a": quickJob("write", "")})
	for _, args := range [][]string{
		{"md", "-n", "20", "-t", "1"},
		{"fio", "-w", jobs},
	} {
		t.Run(args[0], func(t *testing.T) {
			t.Chdir(t.TempDir())
			st, out := testState()
			res := t.TempDir()
			if err := Execute(context.Background(), st, append(args, "--results", res)); err != nil {
				t.Fatalf("storbench %s without -d: %v\n%s", strings.Join(args, " "), err, out)
			}
			if fi, err := os.Stat(defaultDir); err != nil || !fi.IsDir() {
				t.Errorf("./%s was not made: %v", defaultDir, err)
			}
			if ents, _ := os.ReadDir(res); len(ents) != 1 {
				t.Errorf("want one results folder, found %d", len(ents))
			}
		})
		t.Run(args[0]+" with agents", func(t *testing.T) {
			t.Chdir(t.TempDir())
			st, _ := testState()
			err := Execute(context.Background(), st, append(args, "--results", t.TempDir(), "127.0.0.1:1"))
			if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "-d: name the directory to measure on the agents' hosts") {
				t.Fatalf("exit %d, %v: want exit 2 asking for -d", ExitCode(err), err)
			}
			if _, err := os.Stat(defaultDir); err == nil {
				t.Errorf("./%s was made for a run on agents", defaultDir)
			}
		})
	}
}
