package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/catalog"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
)

// readOnlySummary reads the one results folder under root.
func readOnlySummary(t *testing.T, root string) (string, results.Summary) {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(root, "*", "summary.json"))
	if len(found) != 1 {
		t.Fatalf("summary.json under %s: %v", root, found)
	}
	var s results.Summary
	b, err := os.ReadFile(found[0])
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(found[0]), s
}

// A limit the run keeps exits 0; one it crosses exits 4, after the phase
// ran and with every file of the results folder written; summary.json
// carries each limit with its measured value and verdict, and the text
// says it.
func TestLimitsMetExit0CrossedExit4(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		limits []string
		code   int
		passed []bool
	}{
		{"met", []string{"md/file-create/rate>1", "md/file-stat/p99<10s", "md/file-create/errors<1"}, ExitOK, []bool{true, true, true}},
		{"crossed", []string{"md/file-create/rate>1", "md/file-stat/p99<1ns"}, ExitLimit, []bool{true, false}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, out := testState()
			dir, root := t.TempDir(), t.TempDir()
			args := []string{"md", "-d", dir, "-n", "20", "-t", "1", "--results", root}
			for _, l := range c.limits {
				args = append(args, "--limit", l)
			}
			err := Execute(context.Background(), st, args)
			if ExitCode(err) != c.code {
				t.Fatalf("exit %d (%v), want %d\n%s", ExitCode(err), err, c.code, out)
			}
			folder, s := readOnlySummary(t, root)
			if s.Status != results.StatusCompleted || len(s.Phases) != 1 {
				t.Fatalf("status %s, %d phases", s.Status, len(s.Phases))
			}
			for _, f := range []string{"run.json", "summary.md", "report.html"} {
				if _, err := os.Stat(filepath.Join(folder, f)); err != nil {
					t.Errorf("%s not written: %v", f, err)
				}
			}
			ls := s.Phases[0].Limits
			if len(ls) != len(c.limits) {
				t.Fatalf("limits in summary.json: %+v", ls)
			}
			for i, l := range ls {
				if l.Limit != c.limits[i] || l.Value == nil || l.Passed == nil || *l.Passed != c.passed[i] {
					t.Errorf("limit %d: %+v, want %s passed=%v with its value", i, l, c.limits[i], c.passed[i])
				}
			}
			if v := ls[0].Value; v == nil || *v <= 1 || ls[0].Unit != "ops/s" {
				t.Errorf("the rate's value: %+v", ls[0])
			}
			if !strings.Contains(out.String(), "limit md/file-create/rate>1: ") {
				t.Errorf("the text does not show the limit:\n%s", out)
			}
			if c.code == ExitLimit {
				for _, w := range []string{"limit md/file-stat/p99<1ns: ", "CROSSED"} {
					if !strings.Contains(out.String(), w) {
						t.Errorf("the text lacks %q:\n%s", w, out)
					}
				}
				if !strings.Contains(err.Error(), "md/file-stat/p99<1ns") || strings.Contains(err.Error(), "rate>1,") {
					t.Errorf("the error names not the crossed limit alone: %v", err)
				}
				md, _ := os.ReadFile(filepath.Join(folder, "summary.md"))
				if !strings.Contains(string(md), "| md/file-stat/p99<1ns |") {
					t.Errorf("summary.md lacks the limit:\n%s", md)
				}
			}
		})
	}
}

// A limit on a figure the run did not measure (md's creates move no
// bytes: no bw) is neither met nor crossed: no value or verdict in
// summary.json, "not measured" in the text, and the run exits 4, having
// not shown it met.
func TestLimitOnFigureNotMeasured(t *testing.T) {
	t.Parallel()
	st, out := testState()
	dir, root := t.TempDir(), t.TempDir()
	err := Execute(context.Background(), st, []string{"md", "-d", dir, "-n", "10", "-t", "1", "--results", root,
		"--limit", "md/file-create/bw>1MB/s", "--limit", "md/file-create/rate>1"})
	if ExitCode(err) != ExitLimit || !strings.Contains(fmt.Sprint(err), "not measured, so not shown met: md/file-create/bw>1MB/s") {
		t.Fatalf("exit %d (%v), want %d saying the figure was not measured\n%s", ExitCode(err), err, ExitLimit, out)
	}
	_, s := readOnlySummary(t, root)
	ls := s.Phases[0].Limits
	if len(ls) != 2 || ls[0].Value != nil || ls[0].Passed != nil || !ls[1].Met() {
		t.Fatalf("limits: %+v", ls)
	}
	if !strings.Contains(out.String(), "limit md/file-create/bw>1MB/s: -, not measured") {
		t.Errorf("the text does not say the figure was not measured:\n%s", out)
	}
}

// Every malformed limit, and every limit on a figure the run will not
// have, is one line, exit 2, before any load: no results folder, nothing
// in DIR.
func TestLimitBadInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		limits []string
		want   []string
	}{
		{[]string{""}, []string{`limit ""`, "PHASE/OP/FIGURE<VALUE"}},
		{[]string{"md/file-create/rate"}, []string{"PHASE/OP/FIGURE<VALUE"}},
		{[]string{"md/file-create/rate>"}, []string{"no value after >", "20k"}},
		{[]string{"md/file-create/rate>-5"}, []string{"rate is a rate", "negative"}},
		{[]string{"md/file-create/rate>NaN"}, []string{"rate is a rate", "digits"}},
		{[]string{"md/file-create/rate>5ms"}, []string{"rate is a rate", `unknown unit "ms"`}},
		{[]string{"md/file-stat/p99<5"}, []string{"p99 is a latency", "give a unit"}},
		{[]string{"md/file-stat/p99<5GiB/s"}, []string{"p99 is a latency", "unknown unit"}},
		{[]string{"md/file-stat/p99<0ms"}, []string{"cannot be met"}},
		{[]string{"md/file-stat/p99>=0ms"}, []string{"says nothing"}},
		{[]string{"md/file-create/rate>1e400"}, []string{"too large"}},
		{[]string{"md/file-create/rate=5"}, []string{"PHASE/OP/FIGURE<VALUE"}},
		{[]string{"md/file-create/rate<>5"}, []string{"one comparison"}},
		{[]string{"md/file-create/p98<5ms"}, []string{`unknown figure "p98"`, "p99.9"}},
		{[]string{"md/file-create/rate>1@client1"}, []string{"total across hosts", "@client1"}},
		{[]string{"md/file-create/knee>4"}, []string{`"knee" is a scale's figure`, "a limit takes rate, bw, mean, p50, p99, p99.9, errors"}},
		{[]string{"md/file-create/knee<=4"}, []string{`"knee" is a scale's figure`}},
		{[]string{"nosuch/file-create/rate>1"}, []string{"no phase nosuch", "its phases are md"}},
		{[]string{"md/create/rate>1"}, []string{"phase md records no create", "md/file-create/{rate,bw,mean,p50,p99,p99.9,errors}"}},
		{[]string{"md/file-rename/rate>1"}, []string{"records no file-rename"}},
		{[]string{"md/file-create/rate>1", "md/file-create/rate>1"}, []string{"given twice"}},
	} {
		t.Run(strings.Join(c.limits, " "), func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(t.TempDir(), "results")
			st, out := testState()
			args := []string{"md", "-d", dir, "-n", "5", "--results", root}
			for _, l := range c.limits {
				args = append(args, "--limit", l)
			}
			refusedInOneLine(t, st, out, args, c.want)
			noResults(t, root)
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("DIR was used: %v", ents)
			}
		})
	}
}

// A suite entry's limits are checked when the suite is read, --dry-run
// too, and --limit against the suite's phases, by entry or phase name.
func TestSuiteLimitsBadInput(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	for _, c := range []struct {
		name, limits string
		flags        []string
		want         []string
	}{
		{"not a list", "limits: read/p99<5ms", nil, []string{"limits: want a list of OP/FIGURE<VALUE"}},
		{"a whole figure's name", "limits: [meta/file-create/rate>1]", nil, []string{"write OP/FIGURE<VALUE in a phase's limits"}},
		{"a unit that does not fit", "limits: [file-create/rate>5ms]", nil, []string{"rate is a rate", `unknown unit "ms"`}},
		{"an operation the phase does not run", "limits: [file-rename/rate>1]", nil, []string{"phase meta records no file-rename", "meta/file-create/"}},
		{"--limit on no phase", "", []string{"--limit", "md/file-create/rate>1"}, []string{"no phase md", "its phases are meta"}},
	} {
		for _, dry := range []bool{false, true} {
			t.Run(c.name+map[bool]string{true: " dry-run"}[dry], func(t *testing.T) {
				suite := writeSuite(t, "name: lim\ndir: "+tmp+"\nphases:\n  - name: meta\n    md: {items: 5}\n    "+c.limits+"\n")
				root := filepath.Join(t.TempDir(), "results")
				args := append([]string{"run", "--results", root, suite}, c.flags...)
				if dry {
					args = append(args, "--dry-run")
				}
				st, out := testState()
				refusedInOneLine(t, st, out, args, c.want)
				noResults(t, root)
			})
		}
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("DIR was used: %v", ents)
	}
}

// check --limits judges a cataloged run's figures against limits: exit 0
// when kept, 4 (or --fail-code) when crossed or on a figure the run did
// not measure, 2 for a malformed limit or one on a phase or operation the
// run does not have.
func TestCheckLimits(t *testing.T) {
	t.Parallel()
	cat := filepath.Join(t.TempDir(), "catalog.db")
	c, err := catalog.Open(context.Background(), cat)
	if err != nil {
		t.Fatal(err)
	}
	rec := &catalog.Record{Run: catalog.Run{RunHead: model.RunHead{RunID: "nightly1", Name: "nightly", Status: "completed"}, Finished: true, Path: t.TempDir(), Command: []string{}}}
	rec.Figures = []catalog.Figure{
		{Phase: "seq-read", Op: "read", Name: catalog.FigBW, Value: 2e9},
		{Phase: "seq-read", Op: "read", Name: catalog.FigP99, Value: 3e6},
		{Phase: "seq-read", Op: "read", Host: "client1", Name: catalog.FigP99, Value: 1e6},
		{Phase: "seq-read", Op: "jobs", Name: catalog.FigKnee, Value: 8},
	}
	if err := c.Put(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	c.Close()
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"--limits", "seq-read/read/bw>1.5GiB/s"}, ExitOK, []string{"limit seq-read/read/bw>1.5GiB/s: 1.86 GiB/s, met"}},
		{[]string{"--limits", "seq-read/read/p99<2ms"}, ExitLimit, []string{"3.00 ms, CROSSED", "did not keep 1 limits: seq-read/read/p99<2ms (CROSSED)"}},
		{[]string{"--limits", "seq-read/read/bw>1MB/s,seq-read/read/p99<2ms"}, ExitLimit, []string{"bw>1MB/s: ", "met", "CROSSED"}},
		{[]string{"--limits", "seq-read/read/p99<2ms", "--fail-code", "42"}, 42, []string{"CROSSED"}},
		{[]string{"--limits", "seq-read/read/p99<5ms", "--fail-code", "42"}, ExitOK, []string{"met"}},
		{[]string{"--limits", "seq-read/read/p99.9<1s"}, ExitLimit, []string{"-, not measured"}},
		{[]string{"--limits", "nosuch/read/bw>1MB/s"}, ExitUsage, []string{"no phase nosuch", "its phases are seq-read"}},
		{[]string{"--limits", "seq-read/write/bw>1MB/s"}, ExitUsage, []string{"has no operation write", "its operations are jobs, read"}},
		{[]string{"--limits", "seq-read/read/bw>5ms"}, ExitUsage, []string{"bw is a bandwidth", `unknown unit "ms"`}},
		{[]string{"--limits", ""}, ExitUsage, []string{"PHASE/OP/FIGURE<VALUE"}},
		{[]string{"--limits", "seq-read/jobs/knee>=4"}, ExitUsage, []string{`"knee" is a scale's figure`, "a limit takes rate, bw"}},
		{nil, ExitUsage, []string{"--baseline QUERY", "--limits"}},
	} {
		code, out := cmdOut(t, append([]string{"check", "nightly1", "--catalog", cat}, tc.args...)...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, tc.code, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, out)
			}
		}
	}
}
