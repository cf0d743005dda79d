package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/run"
)

// io500Suite is examples/io500-shapes.yaml with edit applied to its text.
func io500Suite(t *testing.T, edit func(string) string) string {
	t.Helper()
	b, err := os.ReadFile("../../examples/io500-shapes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := edit(string(b))
	if text == string(b) {
		t.Fatal("the edit changed nothing: the example changed under the test")
	}
	return writeSuite(t, text)
}

// score: io500 asks for a score made of IO500's twelve phases: a suite
// that cannot give it is refused before anything runs (exit 2, nothing
// written), naming what to fix.
func TestIO500SuiteBadInput(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../examples/io500-shapes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	scoreLine := strconv.Itoa(1 + strings.Count(string(b)[:strings.Index(string(b), "\nscore: io500\n")+1], "\n"))
	cases := []struct {
		name string
		edit func(string) string
		want string
	}{
		{"unknown score", func(s string) string { return strings.Replace(s, "\nscore: io500\n", "\nscore: io5000\n", 1) },
			"suite.yaml:" + scoreLine + ": score: want io500 (IO500's formula over the phases named as IO500's)"},
		{"a phase missing", func(s string) string {
			return regexp.MustCompile(`(?s)  - name: mdtest-hard-read\n.*?read_bytes: 3901[^\n]*\n`).ReplaceAllString(s, "")
		}, "suite.yaml:" + scoreLine + ": score: io500 takes one figure from each of IO500's phases, and no phase is named mdtest-hard-read"},
		{"two phases missing", func(s string) string {
			return strings.Replace(strings.Replace(s, "name: find", "name: pfind", 1), "name: ior-hard-read", "name: ior-hard-reread", 1)
		}, "no phase is named find, ior-hard-read"},
		{"a name twice", func(s string) string {
			return strings.Replace(s, "name: mdtest-hard-stat", "name: mdtest-easy-stat", 1)
		},
			"phase mdtest-easy-stat: score: io500 takes one figure from it, and two phases have this name"},
		{"wrong engine", func(s string) string {
			return strings.Replace(s, "  - name: find\n    md:\n      <<: *mdtest-hard\n      only: [find]", "  - name: find\n    fio:\n      job: {rw: read, filename: x}", 1)
		}, "phase find: score: io500 takes find's rate from an md phase"},
		{"iterations", func(s string) string {
			return strings.Replace(s, "  - name: ior-easy-write\n", "  - name: ior-easy-write\n    iterations: 3\n", 1)
		}, "phase ior-easy-write: score: io500 takes one figure from it: no iterations or matrix"},
		{"a workload", func(s string) string {
			return strings.Replace(s, "  - name: ior-hard-read\n    shared: true\n    read_from: neighbour                # IOR -C\n    fio:\n      job:\n        <<: *ior-hard\n",
				"  - name: ior-hard-read\n    fio:\n      workload: default\n      options:\n        <<: *ior-hard\n", 1)
		}, "phase ior-hard-read: score: io500 needs its one fio job inline (job: {...})"},
		{"only without the operation", func(s string) string {
			return strings.Replace(s, "only: [stat]                      # -T\n\n  - name: ior-hard-read", "only: [create]\n\n  - name: ior-hard-read", 1)
		}, "phase mdtest-easy-stat: score: io500 takes its file-stat rate, which only: [create] does not run"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, _ := testState()
			o := RunOptions{CoVWarn: 5, Confidence: 95, Results: t.TempDir(), Dir: t.TempDir()}
			_, err := runSuite(context.Background(), st, o, io500Suite(t, c.edit))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want error containing %q, got %v", c.want, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("the error is not one line: %q", err)
			}
			if ExitCode(err) != ExitUsage {
				t.Errorf("exit code %d, want %d", ExitCode(err), ExitUsage)
			}
			for _, d := range []string{o.Results, o.Dir} {
				if ents, _ := os.ReadDir(d); len(ents) != 0 {
					t.Errorf("bad input wrote in %s", d)
				}
			}
		})
	}
}

// checkIO500Example checks the run of examples/io500-shapes.yaml that
// TestExamplesRun makes at its smallest scale: IO500's twelve phases in
// IO500's order, every one completed, and the IO500-shaped score present
// - printed at the end of the run, in summary.json (in place of the
// default score), summary.md, report.html and analyze's output - from
// each phase's own figure.
func checkIO500Example(t *testing.T, res *run.Result, out string) {
	t.Helper()
	var names []string
	for _, p := range res.Summary.Phases {
		names = append(names, p.Name)
		if p.Status != results.StatusCompleted {
			t.Errorf("phase %s %s: %s", p.Name, p.Status, p.Error)
		}
	}
	var want []string
	for _, ip := range model.IO500Phases {
		want = append(want, ip.Name)
	}
	if !slices.Equal(names, want) {
		t.Errorf("phases %v, want IO500's %v", names, want)
	}
	sum, err := results.ReadSummary(res.Folder.Path)
	if err != nil {
		t.Fatal(err)
	}
	s := sum.IO500
	if s == nil || s.Score == nil || !(*s.Score > 0) || len(s.Missing) != 0 {
		t.Fatalf("no IO500-shaped score in summary.json: %+v", s)
	}
	if sum.Score != nil {
		t.Errorf("the default score is there too: %+v", sum.Score)
	}
	for _, f := range s.Figures {
		p := sum.Phases[slices.Index(names, f.Phase)]
		var o results.OpSummary
		for _, x := range p.Ops {
			if x.Op == f.Op {
				o = x
			}
		}
		var v float64
		switch {
		case f.Unit == model.UnitGiBPerS && o.BwBytesPerS != nil:
			v = *o.BwBytesPerS / (1 << 30)
		case f.Unit == model.UnitKIOPS && o.OpsPerS != nil:
			v = *o.OpsPerS / 1000
		}
		if f.Value == nil || *f.Value != v || v <= 0 {
			t.Errorf("%s: figure %s %s, but the phase's %s measured %v", f.Phase, ptr(f.Value), f.Unit, f.Op, v)
		}
	}
	t.Logf("storbench's IO500-shaped score of the example: %.3f (bandwidth %.3f GiB/s, metadata %.3f kIOPS)", *s.Score, *s.BandwidthGiB, *s.MetadataKIOPS)
	// Its write phases run for a second, not IO500's 300 s: IO500 would
	// mark the run INVALID and still print its score, and so does storbench.
	invalid := 0
	for _, f := range s.Figures {
		if f.Invalid {
			invalid++
		}
	}
	if s.Valid || invalid != 4 {
		t.Errorf("summary.json: valid %v, invalid %q; want the four short write phases", s.Valid, s.Invalid)
	}
	reason := "mdtest-hard-write: ran "
	score := fmt.Sprintf("score %.3f [INVALID]", *s.Score)
	if !strings.Contains(out, "storbench's IO500-shaped score (not an IO500 submission):\n    ior-easy-write ") || !strings.Contains(out, score+"\n") ||
		!strings.Contains(out, reason) {
		t.Errorf("the run did not print the score (%s) and why it is invalid (%s...):\n%s", score, reason, out)
	}
	// IO500's own result files, for the scripts that read them.
	for file, want := range map[string]string{
		"result_summary.txt": fmt.Sprintf("[SCORE ] Bandwidth %f GiB/s : IOPS %f kiops : TOTAL %f [INVALID]\n", *s.BandwidthGiB, *s.MetadataKIOPS, *s.Score),
		"result.txt":         fmt.Sprintf("[mdtest-hard-write]\nt_start         = "),
	} {
		if b, _ := os.ReadFile(filepath.Join(res.Folder.Path, file)); !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %q:\n%s", file, want, b)
		}
	}
	for file, want := range map[string]string{
		"summary.md":  fmt.Sprintf("| **score** | **%.3f [INVALID]** |", *s.Score),
		"report.html": fmt.Sprintf("%.3f [INVALID] (bandwidth", *s.Score),
	} {
		b, _ := os.ReadFile(filepath.Join(res.Folder.Path, file))
		if !strings.Contains(string(b), want) || !strings.Contains(string(b), "IO500-shaped score") || !strings.Contains(string(b), reason) {
			t.Errorf("%s lacks the score %q or why it is invalid", file, want)
		}
	}
	st, aout := testState()
	if err := runAnalyze(context.Background(), st, AnalyzeOptions{Segment: "1s"}, res.Folder.Path); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(aout.String(), score+"\n") || !strings.Contains(aout.String(), reason) {
		t.Errorf("analyze does not show the score (%s) and why it is invalid:\n%s", score, aout)
	}
}

func ptr(v *float64) string {
	if v == nil {
		return "absent"
	}
	return fmt.Sprint(*v)
}

// A phase of an IO500-shaped run that fails leaves the score absent, never
// 0: the run says which phases have no figure (the failed one, and those
// the stopped run never reached), and summary.json has no score.
func TestIO500ScoreAbsentWhenAPhaseFails(t *testing.T) {
	t.Parallel()
	needFio(t)
	// ior-hard-read checks md5 checksums of blocks written with a pattern:
	// fio's verification fails, and the run stops there.
	s := io500Suite(t, func(s string) string {
		return strings.Replace(s, "        rw: \"read:((${STORBENCH_HOST_COUNT}*2-1)*47008)\"\n",
			"        rw: \"read:((${STORBENCH_HOST_COUNT}*2-1)*47008)\"\n        verify: md5\n", 1)
	})
	st, out := testState()
	res, err := runSuite(context.Background(), st, RunOptions{Dir: t.TempDir(), Results: t.TempDir(), CoVWarn: 5, Confidence: 95}, s)
	if err == nil || ExitCode(err) != ExitFailed {
		t.Fatalf("want a failed run, got %v\n%s", err, out)
	}
	want := "    score absent: no figure from ior-hard-read: failed; mdtest-hard-stat: did not run; mdtest-easy-delete: did not run; mdtest-hard-read: did not run; mdtest-hard-delete: did not run\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("the run does not say which phases the score lacks (want %q):\n%s", want, out)
	}
	sum, err := results.ReadSummary(res.Folder.Path)
	if err != nil {
		t.Fatal(err)
	}
	if s := sum.IO500; s == nil || s.Score != nil || s.MetadataKIOPS != nil || len(s.Missing) != 5 || s.Valid {
		t.Errorf("summary.json's io500: %+v", s)
	}
	if !strings.Contains(out.String(), "\n      ior-hard-read: failed, a score of 0\n") {
		t.Errorf("the run does not say IO500 would mark it INVALID for the failed phase:\n%s", out)
	}
	md, _ := os.ReadFile(filepath.Join(res.Folder.Path, "summary.md"))
	if !strings.Contains(string(md), "score absent: no figure from ior-hard-read: failed;") || strings.Contains(string(md), "**score**") {
		t.Errorf("summary.md does not say the score is absent:\n%s", md)
	}
}
