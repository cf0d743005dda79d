package cli

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/s3test"
)

func writeSuite(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "suite.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSuiteBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, suite, want string
		o                 RunOptions
	}{
		{"unknown global key", "name: x\ndirr: /tmp\nphases:\n  - fio: {}\n", `suite.yaml:2: unknown key "dirr" (did you mean "dir"?)`, RunOptions{}},
		{"unknown phase key", "dir: /tmp\nphases:\n  - fio: {}\n    iteration: 3\n", `unknown key "iteration" (did you mean "iterations"?)`, RunOptions{}},
		{"unknown fio setting", "dir: /tmp\nphases:\n  - fio: {runtme: 5s}\n", `unknown setting "runtme" (did you mean "runtime"?)`, RunOptions{}},
		{"unknown md setting", "dir: /tmp\nphases:\n  - md: {itmes: 5}\n", `unknown setting "itmes" (did you mean "items"?)`, RunOptions{}},
		{"wrong type", "dir: /tmp\nphases:\n  - fio: {}\n    iterations: three\n", "iterations", RunOptions{}},
		{"empty matrix", "dir: /tmp\nphases:\n  - fio: {}\n    matrix: {}\n", "matrix is empty", RunOptions{}},
		{"empty matrix values", "dir: /tmp\nphases:\n  - fio: {}\n    matrix: {bs: []}\n", "matrix bs has no values", RunOptions{}},
		{"zero iterations", "dir: /tmp\nphases:\n  - fio: {}\n    iterations: 0\n", "iterations: 0; want 1 or more", RunOptions{}},
		{"no engine", "dir: /tmp\nphases:\n  - name: x\n", "names no engine", RunOptions{}},
		{"too long", "dir: /tmp\nphases:\n  - fio: {runtime: 60s}\n    iterations: 10\n", "over --max-duration 1m0s", RunOptions{MaxDuration: "1m"}},
		{"confidence 100", "dir: /tmp\nphases:\n  - fio: {}\n", "--confidence 100: want a percentage between 50 and 100", RunOptions{Confidence: 100}},
		{"confidence 50", "dir: /tmp\nphases:\n  - fio: {}\n", "--confidence 50: want a percentage between 50 and 100", RunOptions{Confidence: 50}},
		{"negative confidence", "dir: /tmp\nphases:\n  - fio: {}\n", "--confidence -95: want", RunOptions{Confidence: -95}},
		{"huge confidence", "dir: /tmp\nphases:\n  - fio: {}\n", "--confidence 1e+09: want", RunOptions{Confidence: 1e9}},
		{"confidence as a fraction", "dir: /tmp\nphases:\n  - fio: {}\n", "--confidence 0.95: want a percentage", RunOptions{Confidence: 0.95}},
		{"confidence NaN", "dir: /tmp\nphases:\n  - fio: {}\n", "--confidence NaN: want", RunOptions{Confidence: math.NaN()}},
		// Issue 12: reading a neighbour's files needs an earlier phase that wrote them.
		{"read_from without an earlier write", "dir: /tmp\nphases:\n  - name: rd\n    read_from: neighbour\n    fio: {job: {rw: read, size: 1m}}\n",
			"suite.yaml:3: phase rd: read_from: neighbour reads the files another host wrote in an earlier phase, but no earlier fio phase on /tmp writes rd.0.0", RunOptions{}},
		{"read_from before the write", "dir: /tmp\nphases:\n  - name: rd\n    read_from: neighbour\n    fio: {job: {rw: read, filename: f}}\n  - fio: {job: {rw: write, filename: f}}\n",
			"no earlier fio phase on /tmp writes f", RunOptions{}},
		{"read_from on a write phase", "dir: /tmp\nphases:\n  - read_from: neighbour\n    fio: {job: {rw: write}}\n", "it is for read phases", RunOptions{}},
		{"read_from unknown", "dir: /tmp\nphases:\n  - read_from: next\n    fio: {}\n", "read_from: want neighbour", RunOptions{}},
		{"shared not a bool", "dir: /tmp\nphases:\n  - shared: maybe\n    fio: {}\n", "shared: want true or false", RunOptions{}},
		{"shared md", "dir: /tmp\nphases:\n  - shared: true\n    md: {items: 5}\n", "shared: md phases have no such mode", RunOptions{}},
		// YAML reads null, ~ and an empty value as nothing: fio was handed
		// "ioengine=<nil>" and md and s3 a setting of "<nil>".
		{"fio job option null", "dir: /tmp\nphases:\n  - fio: {job: {ioengine: null, rw: read}}\n", `suite.yaml:3: fio: job: ioengine has no value (YAML reads null, ~ and an empty value as none): give one, in quotes if it is the word null ("null", fio's null engine)`, RunOptions{}},
		{"fio option empty", "dir: /tmp\nphases:\n  - fio: {options: {direct: }}\n", "fio: options: direct has no value", RunOptions{}},
		{"fio setting empty", "dir: /tmp\nphases:\n  - fio:\n      runtime:\n", "fio: runtime has no value", RunOptions{}},
		{"md setting null", "dir: /tmp\nphases:\n  - md: {items: ~}\n", "md: items has no value", RunOptions{}},
		{"matrix value null", "dir: /tmp\nphases:\n  - fio: {job: {rw: read, size: 1m}}\n    matrix: {bs: [4k, null]}\n", "line 4: matrix bs: a value YAML reads as none (null, ~ or empty): give one", RunOptions{}},
		{"s3 setting null", "dir: /tmp\nphases:\n  - s3: {bucket: null}\n", "s3: bucket has no value", RunOptions{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, _ := testState()
			o := c.o
			o.CoVWarn = 5
			if o.Confidence == 0 {
				o.Confidence = 95
			}
			o.Results = t.TempDir()
			_, err := runSuite(context.Background(), st, o, writeSuite(t, c.suite))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want error containing %q, got %v", c.want, err)
			}
			if ExitCode(err) != ExitUsage {
				t.Errorf("exit code %d, want %d", ExitCode(err), ExitUsage)
			}
			if ents, _ := os.ReadDir(o.Results); len(ents) != 0 {
				t.Error("bad input made a results folder")
			}
		})
	}
}

func TestDryRunPrintsPlanAndEstimate(t *testing.T) {
	t.Parallel()
	st, out := testState()
	s := writeSuite(t, "dir: /tmp\nphases:\n  - fio: {workload: default, runtime: 10s}\n    iterations: 2\n    matrix: {numjobs: [1, 4]}\n")
	if _, err := runSuite(context.Background(), st, RunOptions{DryRun: true, CoVWarn: 5, Confidence: 95}, s); err != nil {
		t.Fatal(err)
	}
	// 6 jobs x 2 points x 2 iterations of 10 s each: the jobs' 5 s start
	// delay is dropped by the start gate, and not counted.
	if !strings.Contains(out.String(), "24 phases") || !strings.Contains(out.String(), "estimated duration: 4m0s") {
		t.Errorf("dry run output:\n%s", out)
	}
}

// Every example runs at its smallest scale; the Alluxio sweep produces the
// seed's table shape and the Gluster one its spreadsheet line.
func TestExamplesRun(t *testing.T) {
	t.Parallel()
	needFio(t)
	if testing.Short() {
		t.Skip("runs every example suite")
	}
	files, _ := filepath.Glob("../../examples/*.yaml")
	if len(files) < 6 {
		t.Fatalf("want the six seed examples, found %v", files)
	}
	var srv *s3test.Server
	for _, f := range files {
		f := f
		if strings.Contains(f, "warp") && srv == nil {
			srv = s3test.StartT(t, s3test.Options{})
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			if strings.Contains(f, "gluster") && os.Geteuid() != 0 {
				t.Skip("the Gluster procedure drops caches before every phase, which needs root (CI runs as root)")
			}
			st, out := testState()
			if strings.Contains(f, "warp") {
				env := map[string]string{"STORBENCH_HOST": srv.Endpoint, "STORBENCH_ACCESS_KEY": s3test.AccessKey, "STORBENCH_SECRET_KEY": s3test.SecretKey}
				st.Getenv = func(k string) string { return env[k] }
			}
			opts := RunOptions{Dir: t.TempDir(), Results: t.TempDir(), CoVWarn: 5, Confidence: 95}
			if strings.Contains(f, "mdtest") {
				// As the seed runs mdtest: with a hostfile whose slots are the workers.
				opts.Agents.Hostfile = strings.TrimSuffix(f, ".yaml") + ".hosts"
			}
			res, err := runSuite(context.Background(), st, opts, f)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if res.Summary.Status != results.StatusCompleted || len(res.Summary.Phases) == 0 {
				t.Fatalf("status %s, %d phases", res.Summary.Status, len(res.Summary.Phases))
			}
			for _, p := range res.Summary.Phases {
				if len(p.Ops) == 0 || p.Ops[0].Ops == 0 {
					t.Errorf("phase %s measured nothing", p.Name)
				}
			}
			md, _ := os.ReadFile(filepath.Join(res.Folder.Path, "summary.md"))
			switch {
			case strings.Contains(f, "alluxio"):
				for _, want := range []string{
					"### alluxio-read read (bs=256k): bandwidth",
					"### alluxio-read read (bs=4k): IOPS",
					"| bandwidth / numjobs | numjobs=1 | numjobs=2 | numjobs=4 |",
					"| Sequential Read |", "| Random Read |",
				} {
					if !strings.Contains(string(md), want) {
						t.Errorf("summary.md lacks %q:\n%s", want, md)
					}
				}
			case strings.Contains(f, "gluster"):
				if len(res.Summary.Sweeps) != 12 {
					t.Errorf("want 12 sweep points (2 sizes x 3 workers x write/read), got %d", len(res.Summary.Sweeps))
				}
				for _, sw := range res.Summary.Sweeps {
					if sw.Metrics[sw.Headline].N != 3 {
						t.Errorf("%v: %d iterations, want 3", sw.Point, sw.Metrics[sw.Headline].N)
					}
				}
				tsv, err := os.ReadFile(filepath.Join(res.Folder.Path, "sweep.tsv"))
				if err != nil || !strings.HasPrefix(string(tsv), "group\tpoint\top\tmetric\tunit\tn\tcov\ttot\tmin_host\tmax_host\tavg_host") {
					t.Errorf("sweep.tsv: %v\n%s", err, tsv)
				}
			case strings.Contains(f, "io500"):
				checkIO500Example(t, res, out.String())
			case strings.Contains(f, "mdtest"):
				if p := res.Summary.Phases[0]; p.Ops[0].Rate == nil || p.Ops[0].Rate.Iterations != 3 {
					t.Errorf("mdtest example lacks 3 iterations of rates: %+v", p.Ops[0].Rate)
				}
				// 3 slots, 1000 files per worker, 3 iterations.
				if n := fileCreates(t, &res.Summary); n != 3*1000*3 {
					t.Errorf("mdtest example created %d files, want 9000 (the hostfile's 3 slots as workers)", n)
				}
			}
		})
	}
}

// --confidence sets the sweep intervals of a run: summary.json states it
// and holds the interval at it, summary.md and sweep.tsv name it.
func TestRunSweepIntervalsAtTheAskedConfidence(t *testing.T) {
	t.Parallel()
	needFio(t)
	w := workloadDir(t, map[string]string{"a": quickJob("read", "")})
	s := writeSuite(t, "name: conf\nphases:\n  - fio: {workload: "+w+"}\n    iterations: 2\n")
	st, out := testState()
	res, err := runSuite(context.Background(), st, RunOptions{Dir: t.TempDir(), Results: t.TempDir(), CoVWarn: 5, Confidence: 90}, s)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	sum, err := results.ReadSummary(res.Folder.Path)
	if err != nil || len(sum.Sweeps) == 0 {
		t.Fatalf("no sweeps: %v", err)
	}
	sw := sum.Sweeps[0]
	st90 := sw.Metrics[sw.Headline]
	// Two iterations: t(0.95, 1 df) = tan(0.45π) = 6.3137515.
	half := 6.313751514675043 * st90.Stddev / math.Sqrt2
	if st90.Confidence != 0.9 || math.Abs(st90.CIHigh-st90.Mean-half) > 1e-9*st90.Mean || math.Abs(st90.Mean-st90.CILow-half) > 1e-9*st90.Mean {
		t.Errorf("interval %+v, want mean ± %v at 90%%", st90, half)
	}
	md, _ := os.ReadFile(filepath.Join(res.Folder.Path, "summary.md"))
	tsv, _ := os.ReadFile(filepath.Join(res.Folder.Path, "sweep.tsv"))
	if !strings.Contains(string(md), "| 90% CI |") || !strings.Contains(string(tsv), "\tci90_low\tci90_high\t") {
		t.Errorf("summary.md or sweep.tsv does not name the 90%% interval:\n%s\n%s", md, tsv)
	}
	if !strings.Contains(out.String(), "90% confidence interval") {
		t.Errorf("the run's output does not name the 90%% interval:\n%s", out)
	}
}

func TestGitCommit(t *testing.T) {
	t.Parallel()
	needFio(t)
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	w := workloadDir(t, map[string]string{"a": quickJob("read", "")})
	s := writeSuite(t, "name: gittest\nphases:\n  - fio: {workload: "+w+"}\n")
	st, out := testState()
	res, err := runSuite(context.Background(), st, RunOptions{Dir: t.TempDir(), Results: t.TempDir(), CoVWarn: 5, Confidence: 95, GitCommit: repo}, s)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	log, err := exec.Command("git", "-C", repo, "log", "--format=%B", "-1").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "storbench gittest: completed ("+res.Summary.RunID+")") || !strings.Contains(string(log), "phase: a (fio) completed") {
		t.Errorf("commit message:\n%s", log)
	}
	for _, f := range []string{"summary.json", "summary.md", "run.json"} {
		if _, err := os.Stat(filepath.Join(repo, filepath.Base(res.Folder.Path), f)); err != nil {
			t.Errorf("%s not committed: %v", f, err)
		}
	}
	st, _ = testState()
	if _, err := runSuite(context.Background(), st, RunOptions{Dir: t.TempDir(), CoVWarn: 5, Confidence: 95, GitCommit: t.TempDir()}, s); err == nil || !strings.Contains(err.Error(), "not a git work tree") {
		t.Errorf("a non-repository was accepted: %v", err)
	}
}

// A hosts sweep wider than the run's agents is refused before anything runs.
func TestHostsSweepNeedsAgents(t *testing.T) {
	t.Parallel()
	needFio(t)
	w := workloadDir(t, map[string]string{"a": quickJob("read", "")})
	s := writeSuite(t, "phases:\n  - fio: {workload: "+w+"}\n    matrix: {hosts: [1, 2]}\n")
	st, _ := testState()
	res := t.TempDir()
	_, err := runSuite(context.Background(), st, RunOptions{Dir: t.TempDir(), Results: res, CoVWarn: 5, Confidence: 95}, s)
	if err == nil || !strings.Contains(err.Error(), "wants 2 hosts, but the run has 1 agents") || ExitCode(err) != ExitUsage {
		t.Fatalf("got %v", err)
	}
	if ents, _ := os.ReadDir(res); len(ents) != 0 {
		t.Error("a results folder was made")
	}
}
