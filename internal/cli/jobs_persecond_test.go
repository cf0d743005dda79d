package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/metrics"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil/chromium"
)

// jobsJob is a job file of one section with numjobs jobs and no
// group_reporting (fio's default: every job reported apart), each job
// writing at a set rate (4 MiB/s in 64 KiB blocks: 64 a second) that this
// machine keeps under load, so that every second's figure is known.
func jobsJob(numjobs int) string {
	return fmt.Sprintf(`# report bandwidth
[global]
filesize=8M
time_based=1
runtime=6
ioengine=psync
bs=64k
rate=4m

[w]
rw=write
numjobs=%d
`, numjobs)
}

// A fio section with numjobs 2 and 4 and no group_reporting, which fio
// reports as one entry per job over the same seconds, is drawn at its
// true rate (issue 35; before, at a half and a quarter of it: every job's
// window counted each second once more): the per-second operations add
// up to summary.json's count (within 0.5%), every full second's rate is
// its operations (within 10%), every second moves 64 KiB a write (issue
// 37), the median second's rate is within 60-150% of the rate the job
// file sets (numjobs x 64 ops/s; the headline, over the window from the
// first job's start to the last job's end, is lower when a busy machine
// starts the jobs apart: 112 ops/s against 128 once), and the host's
// figures are one entry per operation. In Chromium, every chart of its
// report adds up to the same counts (chromium.ChartSums). Every line of
// the --live stream moves 64 KiB a write too (issue 37: its bytes came
// from fio's statuses, which lag their writes; a quiet run's first line
// was short by a write a job).
func TestFioJobsWithoutGroupReporting(t *testing.T) {
	t.Parallel()
	needFio(t)
	for _, n := range []int{2, 4} {
		t.Run(fmt.Sprintf("numjobs=%d", n), func(t *testing.T) {
			res, live := t.TempDir(), filepath.Join(t.TempDir(), "live.jsonl")
			st, out := testState()
			args := []string{"fio", "-d", t.TempDir(), "-w", workloadDir(t, map[string]string{"w": jobsJob(n)}), "--results", res, "--live", live}
			if err := Execute(context.Background(), st, args); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			liveMoves64KiB(t, live)
			folders, _ := filepath.Glob(filepath.Join(res, "*"))
			if len(folders) != 1 {
				t.Fatalf("results: %v", folders)
			}
			sum := perSecondAddsUp(t, folders[0], float64(64*n))
			t.Run("charts", func(t *testing.T) { chartsAddUp(t, folders[0], sum) })
		})
	}
}

// liveMoves64KiB checks that every line of the --live stream in file,
// each operation's figures and the line's, moves 64 KiB an operation,
// and that the lines moved some.
func liveMoves64KiB(t *testing.T, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var writes uint64
	for _, text := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var l metrics.LiveLine
		if err := json.Unmarshal([]byte(text), &l); err != nil {
			t.Fatalf("live line is not JSON: %s", text)
		}
		figures := []metrics.LiveFigures{l.LiveFigures}
		for _, o := range l.Ops {
			figures = append(figures, o.LiveFigures)
		}
		for _, f := range figures {
			if f.Bytes != f.Count<<16 {
				t.Errorf("live line at %.1f s (host %q): %d writes of 64 KiB moved %.2f writes' bytes", l.ElapsedS, l.Host, f.Count, float64(f.Bytes)/(1<<16))
			}
		}
		if l.Host != "" {
			writes += l.Count
		}
	}
	if writes == 0 {
		t.Errorf("the live stream's host lines hold no write:\n%s", b)
	}
}

// fmtRate is a rate, or "none".
func fmtRate(r *float64) string {
	if r == nil {
		return "none"
	}
	return fmt.Sprintf("%.0f", *r)
}

// perSecondAddsUp checks the per-second figures of the run's one phase
// against its summary, which it returns, and the median full second
// against the rate the job file sets (set, ops/s).
func perSecondAddsUp(t *testing.T, folder string, set float64) *results.Summary {
	t.Helper()
	sum, err := results.ReadSummary(folder)
	if err != nil {
		t.Fatal(err)
	}
	ps := &sum.Phases[0]
	if len(ps.Ops) != 1 || len(ps.PerHost) != 1 {
		t.Fatalf("want one operation on one host: %+v", ps)
	}
	if n := len(ps.PerHost[0].Ops); n != 1 {
		t.Errorf("the host lists %d operations (one per job), want 1, its jobs added", n)
	}
	op := ps.Ops[0]
	// As `analyze --per-second` has them; the seconds but the first and
	// the last, in which the jobs began and ended, are full.
	per, err := analyze.PerSecondFolder(folder, analyze.Options{})
	if err != nil || len(per.Phases) != 1 || len(per.Phases[0].Ops) != 1 {
		t.Fatalf("per second: %v, %+v", err, per)
	}
	rows := per.Phases[0].Ops[0].Rows
	var total uint64
	var rates []float64
	for i, r := range rows {
		total += r.Ops
		t.Logf("second %d: %d operations, %.1f ops/s", r.Second, r.Ops, r.OpsPerS)
		// Every write is 64 KiB, in every second: fio's running status
		// copies its bytes before it reads its operations, and a second's
		// bytes taken from two statuses were off by the change in that lag
		// (make test: a last second at 2.54x the median MiB/s, its ops/s
		// at the median; a quiet run: the first second 1-2% short).
		if bw := r.BwBytesPerS; bw == nil || r.OpsPerS <= 0 || math.Abs(*bw/r.OpsPerS/(64<<10)-1) > 1e-6 {
			t.Errorf("second %d: %.1f ops/s moved %s bytes/s, not 64 KiB a write", r.Second, r.OpsPerS, fmtRate(bw))
		}
		if i == 0 || i == len(rows)-1 {
			continue
		}
		rates = append(rates, r.OpsPerS)
		// A full second covers 90-110% of a second: a status that came
		// a sliver (under a tenth) past a second's edge goes with that
		// second (analyze's align.go), and the next one covers that much
		// less (make test: 241 writes at 266.8 ops/s, 0.903 s).
		if cov := float64(r.Ops) / r.OpsPerS; r.OpsPerS <= 0 || cov < 0.9-0.005 || cov > 1.1+0.005 {
			t.Errorf("second %d: %.1f ops/s for its %d operations, over %.3f s: not a full second", r.Second, r.OpsPerS, r.Ops, float64(r.Ops)/r.OpsPerS)
		}
	}
	if math.Abs(float64(total)-float64(op.Ops)) > 0.005*float64(op.Ops) {
		t.Errorf("the seconds add up to %d operations; summary.json counts %d", total, op.Ops)
	}
	if len(rates) < 3 {
		t.Fatalf("%d full seconds in a 6-s phase", len(rates))
	}
	slices.Sort(rates)
	med := (rates[(len(rates)-1)/2] + rates[len(rates)/2]) / 2
	// The defect drew a job's seconds at 1/numjobs of their rate (a count
	// twice over would draw them at twice it): the median may fall short of
	// the set rate on a busy machine (fio's jobs then miss their rate: 214
	// against 256 at a load of 12 per CPU) or pass it (a job that fell
	// behind catches up: 145 against 128 beside make race), but not to 60%
	// of it nor to 150%.
	if med < 0.6*set || med > 1.5*set {
		t.Errorf("median second %.1f ops/s, the job file sets %.0f ops/s (%s): outside 60-150%% of it", med, set, op.Op)
	}
	if head := *op.OpsPerS; head > 1.1*set {
		t.Errorf("headline %.1f ops/s over the %.0f ops/s the job file sets (%s)", head, set, op.Op)
	}
	return sum
}

// chartsAddUp opens the run's report.html in Chromium and adds up every
// chart over time against the summary.
func chartsAddUp(t *testing.T, folder string, sum *results.Summary) {
	bin := chromium.Binary(t)
	if bin == "" {
		t.Skip("chromium is not installed and could not be installed (apt-get install -y chromium)")
	}
	shot := filepath.Join(chromium.ArtifactDir(t), "report-fio-jobs.png")
	// A starved client's edges are its own (TestReportDrawsTheClientInChromium
	// says why): under make race's load the jobs ended apart and the last
	// second held one job's 7 writes, 0.15x the median.
	edges := len(sum.Phases[0].ClientStarved) == 0
	chromium.CheckEdges(t, bin, filepath.Join(folder, "report.html"), shot, edges, func(eval func(string) string) {
		charts, phases := chromium.PhaseCharts(t, eval)
		for _, line := range chromium.ChartSums(t, sum, charts, phases) {
			t.Log(line)
		}
	})
}
