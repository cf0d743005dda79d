package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A spec's claims are shown as shares: report.html next to the figure,
// runs in a SPEC column (and in JSON).
func TestSpecShares(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	os.WriteFile(spec, []byte("name: Test array\nclaims:\n  seq_write_bw: 10GB/s\n  rand_read_iops: {value: 10k}\n"), 0o644)
	fioA := filepath.Join(testResults, "fio-a")
	out := filepath.Join(dir, "r.html")
	if code, s := cmdOut(t, "report", fioA, "-o", out, "--md", filepath.Join(dir, "s.md"), "--spec", spec); code != 0 {
		t.Fatalf("report --spec: exit %d\n%s", code, s)
	}
	page, _ := os.ReadFile(out)
	for _, want := range []string{"(53% of seq_write_bw 10GB/s)", "(37% of rand_read_iops 10k)"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html does not show %s", want)
		}
	}
	cat := filepath.Join(dir, "catalog.db")
	if code, s := cmdOut(t, "catalog", "add", "--catalog", cat, fioA); code != 0 {
		t.Fatalf("catalog add: %d\n%s", code, s)
	}
	code, s := cmdOut(t, "runs", "--catalog", cat, "--spec", spec)
	if code != 0 || !strings.Contains(s, "SPEC") || !strings.Contains(s, "seq_write_bw@seqwrite 53%") || !strings.Contains(s, "rand_read_iops@randrw 37%") {
		t.Errorf("runs --spec: exit %d, no SPEC column with the shares:\n%s", code, s)
	}
	code, s = cmdOut(t, "runs", "--catalog", cat, "--spec", spec, "--json")
	if code != 0 || !strings.Contains(s, `"spec_shares"`) || !strings.Contains(s, `"claim": "seq_write_bw"`) {
		t.Errorf("runs --spec --json: exit %d\n%s", code, s)
	}
}

// A bad spec is one line, exit 2, before anything is read or written.
func TestSpecBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	cat := filepath.Join(dir, "catalog.db")
	out := filepath.Join(dir, "r.html")
	fioA := filepath.Join(testResults, "fio-a")
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"malformed.yaml", "claims: [\n", []string{"malformed.yaml", "not a spec"}},
		{"unit.yaml", "claims:\n  seq_read_bw: 6 GB\n", []string{"unit.yaml", "seq_read_bw", `unknown unit "GB"`}},
		{"negative.yaml", "claims:\n  seq_read_bw: -6GB/s\n", []string{"negative.yaml", "more than 0"}},
		{"zero.yaml", "claims:\n  rand_read_iops: {bs: 4k, value: 0}\n", []string{"zero.yaml", "rand_read_iops", "more than 0"}},
		{"unknown.yaml", "claims:\n  fastness: 6GB/s\n", []string{"fastness", "unknown claim"}},
		{"empty.yaml", "", []string{"empty.yaml"}},
	} {
		spec := write(tc.name, tc.text)
		for _, args := range [][]string{
			{"runs", "--catalog", cat, "--spec", spec},
			{"report", fioA, "-o", out, "--md", "-", "--spec", spec},
			{"serve", "--catalog", cat, "--listen", "127.0.0.1:0", "--spec", spec},
		} {
			t.Run(tc.name+" "+args[0], func(t *testing.T) {
				st, o := testState()
				refusedInOneLine(t, st, o, args, tc.want)
			})
		}
	}
	t.Run("missing", func(t *testing.T) {
		st, o := testState()
		refusedInOneLine(t, st, o, []string{"runs", "--catalog", cat, "--spec", filepath.Join(dir, "none.yaml")}, []string{"--spec", "none.yaml"})
	})
	for _, p := range []string{cat, out} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("a refused spec left %s", p)
		}
	}
}
