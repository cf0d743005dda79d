package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/catalog"
	"github.com/storbench/storbench/internal/model"
)

// mdRun runs a small md benchmark in-process with extra flags and returns
// the error and the output.
func mdRun(t *testing.T, args ...string) (error, string) {
	t.Helper()
	st, out := testState()
	err := Execute(context.Background(), st, append([]string{"md", "-d", t.TempDir(), "-n", "30", "-q"}, args...))
	return err, out.String()
}

// cmdOut runs a command in-process and returns its exit code and output.
func cmdOut(t *testing.T, args ...string) (int, string) {
	t.Helper()
	st, out := testState()
	err := Execute(context.Background(), st, args)
	s := out.String()
	if err != nil {
		s += "\nerror: " + err.Error()
	}
	return ExitCode(err), s
}

// Runs are indexed at their end with their labels and fingerprint, and
// runs, trend, compare --a/--b and check answer from the catalog.
func TestCatalogEndToEnd(t *testing.T) {
	t.Parallel()
	res := t.TempDir()
	cat := filepath.Join(t.TempDir(), "catalog.db")
	for _, tuning := range []string{"default", "tuned", "default", "tuned", "default"} {
		if err, out := mdRun(t, "--results", res, "--catalog", cat, "--label", "tuning="+tuning, "--label", "raid=6"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	code, out := cmdOut(t, "runs", "--catalog", cat, "--json", "label=tuning=tuned")
	var runs []catalog.Run
	if code != 0 || json.Unmarshal([]byte(out), &runs) != nil {
		t.Fatalf("runs --json: exit %d\n%s", code, out)
	}
	if len(runs) != 2 || runs[0].Labels["raid"] != "6" || runs[0].FSType == "" || runs[0].Kernel == "" || runs[0].Hosts != 1 {
		t.Errorf("runs label=tuning=tuned: %+v, want 2 runs with their labels and fingerprint", runs)
	}
	b, _ := os.ReadFile(filepath.Join(runs[0].Path, "run.json"))
	if !strings.Contains(string(b), `"fingerprint"`) || !strings.Contains(string(b), `"tuning": "tuned"`) {
		t.Errorf("run.json lacks the fingerprint or the labels:\n%s", b)
	}
	if code, out := cmdOut(t, "runs", "--catalog", cat, "--csv", "fs="+runs[0].FSType); code != 0 || strings.Count(out, "\n") != 6 {
		t.Errorf("runs --csv fs=%s: exit %d, want a header and 5 lines:\n%s", runs[0].FSType, code, out)
	}
	code, out = cmdOut(t, "trend", "md/file-create/rate", "--by", "tuning", "--catalog", cat)
	if code != 0 || !strings.Contains(out, "md/file-create/rate (ops/s) by tuning") || !strings.Contains(out, "default  3") || !strings.Contains(out, "tuned    2") {
		t.Errorf("trend: exit %d\n%s", code, out)
	}
	// A figure no run measured (a typo'd operation) is bad input that
	// lists the figures there are (issue 36 item 5): it exited 0 saying
	// only that no run measured it.
	for _, args := range [][]string{{"md/file-craete/rate"}, {"md/file-craete/rate", "--json"}} {
		code, out = cmdOut(t, append([]string{"trend", "--catalog", cat}, args...)...)
		if code != ExitUsage || !strings.Contains(out, "the figures they measured are ") || !strings.Contains(out, "md/file-create/rate") || strings.Count(strings.TrimSpace(out), "\n") > 0 {
			t.Errorf("trend %v: exit %d, want 2 and one line listing md/file-create/rate among the figures measured\n%s", args, code, out)
		}
	}
	code, out = cmdOut(t, "compare", "--catalog", cat, "--a", "label=tuning=default", "--b", "label=tuning=tuned")
	if code != 0 || !strings.Contains(out, "label=tuning=default (3 runs) -> label=tuning=tuned (2 runs)") || !strings.Contains(out, "Student's t on 3 vs 2 runs (pooled spread, Bonferroni over ") {
		t.Errorf("compare --a --b: exit %d\n%s", code, out)
	}
	// The run checked is left out of its baseline: three tuned-less runs.
	// Runs this small on a loaded machine differ by any amount, so the
	// threshold is out of reach (the verdicts are check's own tests).
	code, out = cmdOut(t, "check", runs[1].Path, "--catalog", cat, "--baseline", "label=tuning=default", "--threshold", "1e12")
	if code != 0 || !strings.Contains(out, "against 3 baseline runs") || !strings.Contains(out, "no figure worse") {
		t.Errorf("check with a threshold out of reach: exit %d, want 0\n%s", code, out)
	}
}

// check exits 3 (or --fail-code) naming the worse figure and by how much
// when a run is beyond its baseline's noise and the threshold.
func TestCheckExitCodes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cat := filepath.Join(t.TempDir(), "catalog.db")
	c, err := catalog.Open(context.Background(), cat)
	if err != nil {
		t.Fatal(err)
	}
	put := func(id string, scale float64, tuning string) {
		t.Helper()
		rec := &catalog.Record{Run: catalog.Run{RunHead: model.RunHead{RunID: id, Name: "nightly", Status: "completed"}, Finished: true, Path: filepath.Join(root, id),
			Labels: map[string]string{"tuning": tuning}, Command: []string{}}}
		rec.Run.StartedAt = rec.Run.StartedAt.AddDate(2026, 0, len(id))
		rec.Figures = []catalog.Figure{{Phase: "seq-read", Op: "read", Name: catalog.FigBW, Value: 2e9 * scale}}
		if err := c.Put(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range []float64{1, 1.01, 0.99, 1.005, 0.995} {
		put("base"+strings.Repeat("x", i), s, "default")
	}
	put("slow", 0.8, "tuned")
	c.Close()
	code, out := cmdOut(t, "check", "slow", "--catalog", cat, "--baseline", "label=tuning=default")
	if code != ExitRegression || !strings.Contains(out, "seq-read/read/bw -20.0%") {
		t.Errorf("a run 20%% slower: exit %d, want %d naming seq-read/read/bw -20.0%%\n%s", code, ExitRegression, out)
	}
	if code, _ := cmdOut(t, "check", "slow", "--catalog", cat, "--baseline", "label=tuning=default", "--fail-code", "42"); code != 42 {
		t.Errorf("--fail-code 42: exit %d", code)
	}
	if code, out := cmdOut(t, "check", "slow", "--catalog", cat, "--baseline", "label=tuning=default", "--threshold", "25"); code != 0 {
		t.Errorf("a 20%% change under a 25%% threshold: exit %d, want 0\n%s", code, out)
	}
	code, out = cmdOut(t, "check", "slow", "--catalog", cat, "--baseline", "label=tuning=nothing")
	if code != ExitUsage || !strings.Contains(out, "baseline label=tuning=nothing matches no completed run") {
		t.Errorf("a baseline matching nothing: exit %d, want %d saying so\n%s", code, ExitUsage, out)
	}
}

// Bad input of the catalog's commands and flags: one line, exit 2, before
// any load (no results folder), and a refused catalog left as it was.
func TestCatalogBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.db")
	junk := []byte(strings.Repeat("junk that is no database\n", 300))
	os.WriteFile(corrupt, junk, 0o644)
	good := filepath.Join(dir, "good.db")
	if c, err := catalog.Open(context.Background(), good); err != nil {
		t.Fatal(err)
	} else {
		c.Close()
	}
	missing := filepath.Join(dir, "missing.db")
	res := filepath.Join(dir, "results")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"md", "-d", dir, "--results", res, "--catalog", good, "--label", "raid6"}, []string{`label "raid6" has no '='`}},
		{[]string{"md", "-d", dir, "--results", res, "--catalog", good, "--label", "r a=6"}, []string{"the key must be"}},
		{[]string{"md", "-d", dir, "--results", res, "--catalog", corrupt}, []string{corrupt, "not a storbench catalog or is damaged", "--no-catalog"}},
		{[]string{"runs", "--catalog", corrupt}, []string{"not a storbench catalog"}},
		{[]string{"runs", "--catalog", good, "tuning"}, []string{`query term "tuning"`, "KEY=VALUE"}},
		{[]string{"runs", "--catalog", good, "colour=red"}, []string{`unknown key "colour"`}},
		{[]string{"runs", "--catalog", good, "since=yesterday"}, []string{"want a date"}},
		{[]string{"trend", "--catalog", good, "seq-read/bw"}, []string{"PHASE/OP/FIGURE"}},
		{[]string{"trend", "--catalog", good, "seq-read/read/speed"}, []string{`unknown figure "speed"`}},
		{[]string{"catalog", "add", "--catalog", good, dir}, []string{"not a storbench results folder"}},
		{[]string{"check", "x", "--catalog", good}, []string{"--baseline"}},
		{[]string{"check", "nosuchrun", "--catalog", good, "--baseline", "name=x"}, []string{"neither a results folder nor a run id"}},
		{[]string{"compare", "--catalog", good, "--a", "name=x"}, []string{"both --a QUERY and --b QUERY"}},
		{[]string{"compare", "--catalog", good, "--a", "name=x", "--b", "name=y"}, []string{"--a name=x matches no completed run"}},
		{[]string{"runs", "--no-catalog"}, []string{"no catalog (--no-catalog)"}},
		// A query names a catalog that is not there: said so, not made.
		{[]string{"runs", "--catalog", missing}, []string{"no catalog at " + missing}},
		{[]string{"trend", "--catalog", missing, "seq-read/read/bw"}, []string{"no catalog at " + missing}},
		{[]string{"check", "x", "--catalog", missing, "--baseline", "name=x"}, []string{"no catalog at " + missing}},
		{[]string{"compare", "--catalog", missing, "--a", "name=x", "--b", "name=y"}, []string{"no catalog at " + missing}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			st, out := testState()
			refusedInOneLine(t, st, out, tc.args, tc.want)
		})
	}
	if _, err := os.Stat(res); err == nil {
		t.Errorf("a refused run left %s", res)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("a query made the catalog %s it was asked to read", missing)
	}
	if b, _ := os.ReadFile(corrupt); string(b) != string(junk) {
		t.Errorf("the corrupt catalog was changed")
	}
}

// A folder of results folders is added whole; added again, each run is
// there once; a catalog rebuilt from the folders answers the same.
func TestCatalogAddRebuilds(t *testing.T) {
	t.Parallel()
	res := t.TempDir()
	first := filepath.Join(t.TempDir(), "first.db")
	for range 3 {
		if err, out := mdRun(t, "--results", res, "--catalog", first, "--label", "a=b"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	second := filepath.Join(t.TempDir(), "second.db")
	for range 2 {
		if code, out := cmdOut(t, "catalog", "add", "--catalog", second, res); code != 0 || !strings.Contains(out, "3 of 3 results folders") {
			t.Fatalf("catalog add: exit %d\n%s", code, out)
		}
	}
	for _, q := range [][]string{{"runs", "--json"}, {"trend", "--json", "md/*/p99", "--by", "a"}, {"runs", "--csv", "label=a=b"}} {
		_, a := cmdOut(t, append(q, "--catalog", first)...)
		_, b := cmdOut(t, append(q, "--catalog", second)...)
		if a != b || len(a) < 100 {
			t.Errorf("%v differs between the catalog the runs filled and the one rebuilt from their folders:\n%s\n---\n%s", q, a, b)
		}
	}
}
