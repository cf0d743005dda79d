package cli

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/testutil"
)

// mdOps runs storbench md with args and --json and returns the operations
// the run recorded, with the bytes file-read read.
func mdOps(t *testing.T, args ...string) ([]string, uint64) {
	t.Helper()
	st, _ := testState()
	out := &testutil.Buffer{}
	st.Stdout = out
	if err := Execute(context.Background(), st, append(append([]string{"md", "-d", t.TempDir()}, args...), "--json", "--results", t.TempDir())); err != nil {
		t.Fatalf("storbench md %s: %v", strings.Join(args, " "), err)
	}
	var s struct {
		Phases []struct {
			Ops []struct {
				Op    string `json:"op"`
				Bytes uint64 `json:"bytes"`
			} `json:"ops"`
		} `json:"phases"`
	}
	if err := json.Unmarshal([]byte(out.String()), &s); err != nil || len(s.Phases) != 1 {
		t.Fatalf("summary.json: %v\n%s", err, out.String())
	}
	var ops []string
	var read uint64
	for _, o := range s.Phases[0].Ops {
		ops = append(ops, o.Op)
		if o.Op == "file-read" {
			read = o.Bytes
		}
	}
	slices.Sort(ops)
	return ops, read
}

// IO500's own mdtest lines run through storbench md: mdtest-easy-write's
// unchanged (-C: the creates alone; -L with the one directory of -z 0;
// -P), mdtest-hard's with its one documented substitution, -t dropped
// (storbench's -t is a number of workers: given as IO500 gives it, it is
// refused naming the clash). A common fio command line runs as fio's
// users type it: --name, --filename, --group_reporting, --rate, a bare
// --runtime=60, and --output-format=json prints fio's own JSON.
func TestFieldCommandLines(t *testing.T) {
	needFio(t)
	t.Chdir(t.TempDir())
	t.Run("io500 mdtest-easy-write", func(t *testing.T) {
		ops, _ := mdOps(t, strings.Fields("-C -n 40 -u -L -F -P -N 1")...)
		if want := []string{"file-create", "tree-create"}; !slices.Equal(ops, want) {
			t.Errorf("operations %v, want %v", ops, want)
		}
	})
	t.Run("io500 mdtest-hard", func(t *testing.T) {
		st, _ := testState()
		err := Execute(context.Background(), st, strings.Fields("md -d "+t.TempDir()+" -n 40 -t -w 3901 -e 3901 -F -N 1 --results "+t.TempDir()))
		if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "mdtest's -t") || !strings.Contains(err.Error(), "drop it") {
			t.Fatalf("as IO500 gives it: exit %d, %v; want exit 2 naming mdtest's -t", ExitCode(err), err)
		}
		ops, read := mdOps(t, strings.Fields("-n 40 -w 3901 -e 3901 -F -N 1")...)
		if want := []string{"file-create", "file-read", "file-remove", "file-stat", "tree-create", "tree-remove"}; !slices.Equal(ops, want) {
			t.Errorf("operations %v, want %v", ops, want)
		}
		if read == 0 || read%3901 != 0 {
			t.Errorf("file-read read %d bytes, want 3901 a file", read)
		}
	})
	t.Run("fio", func(t *testing.T) {
		st, _ := testState()
		out := &testutil.Buffer{}
		st.Stdout = out
		args := "fio -d " + t.TempDir() + " --name=seqwrite --filename=data --rw=write --bs=1m --size=4m --numjobs=2 --group_reporting --runtime=60 --rate=200m --ioengine=psync --output-format=json --results " + t.TempDir()
		if err := Execute(context.Background(), st, strings.Fields(args)); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Jobs []struct {
				Name    string            `json:"jobname"`
				Options map[string]string `json:"job options"`
				Write   struct {
					Bytes int64 `json:"io_bytes"`
				} `json:"write"`
			} `json:"jobs"`
		}
		if err := json.Unmarshal([]byte(out.String()), &doc); err != nil || len(doc.Jobs) == 0 {
			t.Fatalf("stdout is not fio's JSON: %v\n%s", err, out.String())
		}
		j := doc.Jobs[0]
		if j.Name != "seqwrite" || j.Options["filename"] != "data" || j.Options["rate"] != "200m" ||
			j.Options["runtime"] != "60" || j.Write.Bytes < 4<<20 {
			t.Errorf("fio ran job %q with %v, wrote %d bytes", j.Name, j.Options, j.Write.Bytes)
		}
	})
}

// mdtest's letters storbench cannot honour, and fio's values it cannot
// read, are refused in one line naming what to do, exit 2, before any
// load and with no results folder.
func TestFieldFlagsBadInput(t *testing.T) {
	for _, c := range []struct {
		args string
		want string
	}{
		{"md -n 5 -k", "drop -k"},
		{"md -n 5 -x status", "drop -x"},
		{"md -n 5 -a MPIIO", "POSIX calls only"},
		{"md -n 5 -z 1 -L", "drop -L"},
		{"md -n 5 -I 5", "give -n"},
		{"md -n 5 -t -F", "mdtest's -t"},
		{"md -n 5 -F -t", "mdtest's -t"},
		{"md -n 5 -t four", "want a whole number of workers"},
		{"md -n 5 -W 3", "mdtest's -W counts whole seconds"},
		{"fio --name x", "--name needs --rw"},
		{"fio --rw write --size 1m --name a/b", "--name"},
		{"fio --rw write --size 1m --filename /etc/passwd", "under DIR"},
		{"fio --rw write --size 1m --rate fast", "--rate fast: want"},
		{"fio --rw write --size 1m --rate_iops 0", "--rate_iops 0: want"},
		{"fio --rw write --size 1m --runtime 0.5", "at least 1 second"},
	} {
		t.Run(c.args, func(t *testing.T) {
			t.Chdir(t.TempDir())
			dir, res := t.TempDir(), t.TempDir()
			st, _ := testState()
			f := strings.Fields(c.args)
			err := Execute(context.Background(), st, append([]string{f[0], "-d", dir, "--results", res}, f[1:]...))
			if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("exit %d, %v; want one line, exit 2, with %q", ExitCode(err), err, c.want)
			}
			for _, d := range []string{dir, res} {
				if ents, _ := os.ReadDir(d); len(ents) != 0 {
					t.Errorf("bad input wrote %d entries in %s", len(ents), d)
				}
			}
		})
	}
}
