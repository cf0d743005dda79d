package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/results"
)

// writeFile writes text to a new file in a temporary directory.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fileCreates is how many files the md phase of a run created.
func fileCreates(t *testing.T, sum *results.Summary) uint64 {
	t.Helper()
	for _, o := range sum.Phases[0].Ops {
		if o.Op == "file-create" {
			return o.Ops
		}
	}
	t.Fatalf("no file-create in %+v", sum.Phases[0].Ops)
	return 0
}

// An MPI hostfile's slots become md's workers on each host when -t is not
// given, as mpiexec places one rank per slot: three slots, 20 files per
// worker, 60 files. -t wins over the slots, and says so.
func TestHostfileSlotsAreMdWorkers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		args  []string
		files uint64
		note  string
	}{
		{"MPICH host:slots", []string{"--hostfile", writeFile(t, "hosts", "# one client\nlocalhost:3\n")}, 60, "3 workers per host"},
		{"Open MPI slots=", []string{"--hostfile", writeFile(t, "hosts", "localhost slots=3 max_slots=4\n")}, 60, "3 workers per host"},
		{"agents file slots=", []string{"--agents-file", writeFile(t, "agents", "localhost slots=3\n")}, 60, "3 workers per host"},
		{"-t over slots", []string{"-t", "2", "--hostfile", writeFile(t, "hosts", "localhost:3\n")}, 40, "slots (3) are not used"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, res := t.TempDir(), t.TempDir()
			st, out := testState()
			err := Execute(context.Background(), st, append([]string{"md", "-d", dir, "-n", "20", "-i", "1", "-u", "-F", "--results", res}, c.args...))
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			folders, _ := filepath.Glob(filepath.Join(res, "*_md"))
			if len(folders) != 1 {
				t.Fatalf("results folders %v", folders)
			}
			sum, err := results.ReadSummary(folders[0])
			if err != nil {
				t.Fatal(err)
			}
			if got := fileCreates(t, sum); got != c.files {
				t.Errorf("%d files created, want %d", got, c.files)
			}
			if !strings.Contains(out.String(), c.note) {
				t.Errorf("output does not say %q:\n%s", c.note, out)
			}
			// run.json's plan holds what the agents received.
			b, _ := os.ReadFile(filepath.Join(folders[0], "run.json"))
			var run results.RunInfo
			var params struct{ Workers int }
			if err := json.Unmarshal(b, &run); err != nil || json.Unmarshal(run.Plan[0].Params, &params) != nil || params.Workers != int(c.files/20) {
				t.Errorf("run.json plan: %v %s", err, b)
			}
		})
	}
}

// Slurm lists reach --agents whole: the flag does not cut them at the
// commas inside brackets; hosts keep the order of the command line.
func TestAgentsFlagTakesSlurmLists(t *testing.T) {
	t.Parallel()
	var o AgentsOptions
	f := pflag.NewFlagSet("t", pflag.ContinueOnError)
	o.AddFlags(f)
	if err := f.Parse([]string{"--agents", "node[01-02,5]:7761", "--agents", "x,y[1-2]", "arg[1-2]"}); err != nil {
		t.Fatal(err)
	}
	ra, err := o.runAgents(&State{}, f.Args())
	if err != nil {
		t.Fatal(err)
	}
	es := ra.Hosts
	var got []string
	for _, e := range es {
		got = append(got, e.String())
	}
	if strings.Join(got, ",") != "node01:7761,node02:7761,node5:7761,x,y1,y2,arg1,arg2" {
		t.Errorf("entries %v", got)
	}
}

// Hosts from every source are gathered; one given twice with different
// slots is refused.
func TestHostEntriesFromEverySource(t *testing.T) {
	t.Parallel()
	o := AgentsOptions{Agents: []string{"a"}, AgentsFile: writeFile(t, "agents", "b:7762 slots=2\n"), Hostfile: writeFile(t, "hosts", "c[1-2]:2\n")}
	ra, err := o.runAgents(&State{}, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	es := ra.Hosts
	var got []string
	for _, e := range es {
		got = append(got, e.String()+"/"+string(rune('0'+e.Slots)))
	}
	if strings.Join(got, ",") != "a/0,b:7762/2,c1/2,c2/2" {
		t.Errorf("entries %v", got)
	}
	o = AgentsOptions{Agents: []string{"c1"}, Hostfile: o.Hostfile}
	if _, err := o.runAgents(&State{}, nil); err == nil || !strings.Contains(err.Error(), "c1") || !strings.Contains(err.Error(), "twice") {
		t.Errorf("c1 with and without slots: %v", err)
	}
}

// Bad host files and slots are one line, exit 2, and no results folder.
func TestHostfileBadInput(t *testing.T) {
	t.Parallel()
	token := writeFile(t, "token", "0123456789abcdef0123456789abcdef\n")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"malformed line", []string{"--hostfile", writeFile(t, "hosts", "node1:4\nnode2:4\nnode3 slots=x\n")}, []string{"--hostfile", "hosts:3:", "slots=x"}},
		{"MPI host:0", []string{"--hostfile", writeFile(t, "hosts", "node1:0\n")}, []string{"hosts:1:", "slots 0"}},
		{"agents file port", []string{"--agents-file", writeFile(t, "agents", "node1:0\n")}, []string{"--agents-file", "agents:1:", "port"}},
		{"unclosed bracket", []string{"--agents", "node[01-16"}, []string{"node[01-16", "'[' without ']'"}},
		{"reversed range", []string{"node[5-1]"}, []string{"node[5-1]", "backwards"}},
		{"over the limit", []string{"node[0-99999999]"}, []string{"node[0-99999999]", "over the limit of 1024"}},
		{"unequal slots", []string{"--token-file", token, "--hostfile", writeFile(t, "hosts", "node1:4\nnode2:8\n")}, []string{"slots differ", "node1", "node2", "-t"}},
		{"slots over md's workers", []string{"--hostfile", writeFile(t, "hosts", "localhost:2000\n")}, []string{"2000", "1024"}},
		{"missing hostfile", []string{"--hostfile", "/nonexistent/hosts"}, []string{"--hostfile", "/nonexistent/hosts"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, res := t.TempDir(), t.TempDir()
			st, out := testState()
			err := Execute(context.Background(), st, append([]string{"md", "-d", dir, "-n", "5", "--results", res}, c.args...))
			if ExitCode(err) != ExitUsage {
				t.Fatalf("exit %d (%v), want %d\n%s", ExitCode(err), err, ExitUsage, out)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("not one line: %q", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
			if ents, _ := os.ReadDir(res); len(ents) != 0 {
				t.Errorf("a results folder was made: %v", ents)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("the target was written: %v", ents)
			}
		})
	}
}
