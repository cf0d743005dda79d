package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/testutil"
	"github.com/storbench/storbench/internal/testutil/fieldparse"
)

func fieldFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "report", "testdata", "field", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fieldRun runs storbench with args and returns what it printed on
// stdout (its own text goes to stderr).
func fieldRun(t *testing.T, args ...string) string {
	t.Helper()
	st, _ := testState()
	out := &testutil.Buffer{}
	st.Stdout = out
	if err := Execute(context.Background(), st, append(args, "--results", t.TempDir())); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// --output-format ior prints IOR's whole report, and a script that walks
// IOR 4.1.0's (its header, Options block, Results table per iteration and
// summary) reads the same fields from storbench's for the same shape:
// `mpiexec -n 2 ior -a POSIX -b 4m -t 1m -w -r -F -i 2` against a fio job
// of 2 jobs writing then reading 4 MiB in 1 MiB blocks, twice. IOR's API
// is fio's ioengine.
func TestOutputFormatIORReadsAsIOR(t *testing.T) {
	t.Parallel()
	needFio(t)
	want, err := fieldparse.ParseIOR(fieldFixture(t, "ior-4.1.0-2tasks-F.txt"))
	if err != nil {
		t.Fatal(err)
	}
	jobs := workloadDir(t, map[string]string{"wr": "[global]\nsize=4M\nbs=1M\nnumjobs=2\ngroup_reporting\n[w]\nrw=write\n[r]\nstonewall\nrw=read\n"})
	suite := writeSuite(t, "name: ior\ndir: "+t.TempDir()+"\nphases:\n  - fio: {workload: "+jobs+"}\n    iterations: 2\n")
	text := fieldRun(t, "run", suite, "--output-format", "ior")
	got, err := fieldparse.ParseIOR(text)
	if err != nil {
		t.Fatalf("%v:\n%s", err, text)
	}
	if !strings.HasPrefix(got.Version, "storbench-") || got.Header["Command line"] == "" {
		t.Errorf("header %q %q", got.Version, got.Header)
	}
	for _, k := range []string{"Began", "Machine", "Finished"} {
		if got.Header[k] == "" {
			t.Errorf("no %s in the header", k)
		}
	}
	if len(got.Tests) != 1 {
		t.Fatalf("%d tests, want 1:\n%s", len(got.Tests), text)
	}
	same := func(what string, gotv, wantv map[string]string, keys ...string) {
		for _, k := range keys {
			w := wantv[k]
			if w == "POSIX" {
				w = "psync"
			}
			if gotv[k] != w {
				t.Errorf("%s %s: storbench %q, IOR %q", what, k, gotv[k], w)
			}
		}
	}
	same("Options", got.Tests[0].Options, want.Tests[0].Options, "api", "access", "type", "segments", "ordering in a file",
		"ordering inter file", "nodes", "tasks", "clients per node", "repetitions", "xfersize", "blocksize", "aggregate filesize")
	var rows, wantRows []string
	for _, r := range got.Tests[0].Results {
		rows = append(rows, r["access"]+r["iter"]+" "+r["block(KiB)"]+" "+r["xfer(KiB)"])
	}
	for _, r := range want.Tests[0].Results {
		wantRows = append(wantRows, r["access"]+r["iter"]+" "+r["block(KiB)"]+" "+r["xfer(KiB)"])
	}
	if strings.Join(rows, ",") != strings.Join(wantRows, ",") {
		t.Errorf("Results rows %v, IOR's %v", rows, wantRows)
	}
	if len(got.Summary) != len(want.Summary) {
		t.Fatalf("%d summary rows, IOR %d:\n%s", len(got.Summary), len(want.Summary), text)
	}
	for i := range got.Summary {
		same("summary", got.Summary[i], want.Summary[i], "Operation", "Test#", "#Tasks", "tPN", "reps", "fPP", "reord",
			"reordoff", "reordrand", "seed", "segcnt", "blksiz", "xsize", "aggs(MiB)", "API", "RefNum")
	}
}

// --output-format mdtest reads as mdtest 4.1.0's text for the same
// shape, 2 tasks -n 100 -i 2: the geometry line ("files" with -F), and
// every row of the table, 0.000 for an operation that did not run (mdtest's
// -C -T, storbench's --only create,stat or -C -T).
func TestOutputFormatMdtestReadsAsMdtest(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		fixture string
		args    []string
	}{
		{"mdtest-4.1.0-2tasks.txt", nil},
		{"mdtest-4.1.0-2tasks-F.txt", []string{"-F"}},
		{"mdtest-4.1.0-2tasks-CT.txt", []string{"--only", "create,stat"}},
		{"mdtest-4.1.0-2tasks-CT.txt", []string{"-C", "-T"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			want, err := fieldparse.ParseMdtest(fieldFixture(t, c.fixture))
			if err != nil {
				t.Fatal(err)
			}
			args := append([]string{"md", "-d", t.TempDir(), "-n", "100", "-i", "2", "-t", "2", "--output-format", "mdtest"}, c.args...)
			text := fieldRun(t, args...)
			got, err := fieldparse.ParseMdtest(text)
			if err != nil {
				t.Fatalf("%v:\n%s", err, text)
			}
			if got.Tasks != want.Tasks || got.Nodes != want.Nodes || got.GeoTasks != want.GeoTasks || got.Items != want.Items ||
				got.What != want.What || got.Iterations != want.Iterations {
				t.Errorf("storbench %+v\nmdtest    %+v", got, want)
			}
			rows := func(m *fieldparse.Mdtest) string {
				var out []string
				for _, r := range m.Rows {
					out = append(out, r.Op+map[bool]string{true: " 0.000", false: ""}[r.Max == 0])
				}
				return strings.Join(out, "\n")
			}
			if rows(got) != rows(want) {
				t.Errorf("storbench's rows:\n%s\nmdtest's:\n%s", rows(got), rows(want))
			}
		})
	}
}
