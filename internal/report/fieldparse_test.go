package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/testutil/fieldparse"
)

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "field", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The parser the --output-format tests use reads the real tools' text:
// IOR 4.1.0's whole report (header, Options, Results per iteration,
// summary) and mdtest 4.1.0's SUMMARY, as printed by the tools built by
// hand from hpc/ior and run with 2 MPI tasks (the fixtures' command
// lines say how).
func TestParserReadsTheToolsText(t *testing.T) {
	for _, c := range []struct {
		name, access, fpp string
	}{{"ior-4.1.0-2tasks.txt", "single-shared-file", "0"}, {"ior-4.1.0-2tasks-F.txt", "file-per-process", "1"}} {
		r, err := fieldparse.ParseIOR(fixture(t, c.name))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if r.Version != "4.1.0+dev" || !strings.Contains(r.Header["Command line"], "-b 4m -t 1m") || r.Header["Finished"] == "" {
			t.Errorf("%s: header %q %q", c.name, r.Version, r.Header)
		}
		o := r.Tests[0].Options
		for k, want := range map[string]string{"api": "POSIX", "access": c.access, "tasks": "2", "clients per node": "2", "nodes": "1",
			"repetitions": "2", "xfersize": "1 MiB", "blocksize": "4 MiB", "aggregate filesize": "8 MiB", "segments": "1"} {
			if o[k] != want {
				t.Errorf("%s: Options %s = %q, want %q", c.name, k, o[k], want)
			}
		}
		var access []string
		for _, row := range r.Tests[0].Results {
			access = append(access, row["access"]+row["iter"])
		}
		if strings.Join(access, " ") != "write0 read0 write1 read1" {
			t.Errorf("%s: Results rows %v", c.name, access)
		}
		for i, dir := range []string{"write", "read"} {
			s := r.Summary[i]
			if s["Operation"] != dir || s["#Tasks"] != "2" || s["tPN"] != "2" || s["reps"] != "2" || s["fPP"] != c.fpp ||
				s["segcnt"] != "1" || s["blksiz"] != "4194304" || s["xsize"] != "1048576" || s["aggs(MiB)"] != "8.0" || s["API"] != "POSIX" {
				t.Errorf("%s: summary row %v", c.name, s)
			}
		}
	}
	all := []string{"Directory creation", "Directory stat", "Directory rename", "Directory removal", "File creation",
		"File stat", "File read", "File removal", "Tree creation", "Tree removal"}
	for _, c := range []struct {
		name, what string
		rows       []string
		zero       []string
	}{
		{"mdtest-4.1.0-2tasks.txt", "files/directories", all, nil},
		{"mdtest-4.1.0-2tasks-F.txt", "files", all[4:], nil},
		{"mdtest-4.1.0-2tasks-CT.txt", "files/directories", all, []string{"Directory rename", "Directory removal", "File read", "File removal", "Tree removal"}},
	} {
		m, err := fieldparse.ParseMdtest(fixture(t, c.name))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if m.Tasks != 2 || m.Nodes != 1 || m.GeoTasks != 2 || m.Items != 200 || m.What != c.what || m.Iterations != 2 {
			t.Errorf("%s: %+v", c.name, m)
		}
		var ops, zero []string
		for _, r := range m.Rows {
			ops = append(ops, r.Op)
			if r.Max == 0 && r.Mean == 0 {
				zero = append(zero, r.Op)
			}
		}
		if strings.Join(ops, ",") != strings.Join(c.rows, ",") || strings.Join(zero, ",") != strings.Join(c.zero, ",") {
			t.Errorf("%s: rows %v (0.000: %v), want %v (0.000: %v)", c.name, ops, zero, c.rows, c.zero)
		}
	}
}
