package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil/chromium"
)

// scaleJob is a random read of one small file paced at 200 IOPS, a rate
// that no iodepth raises: the rate is flat from iodepth=1 on, a knee that
// load cannot move. A knee set by the CPU moved with it: with 1..32 jobs
// of a shared file under an exclusive lock, at a load of 4 (other work
// took 87-89% of the client's CPU) every step won more of the CPU than
// the one before, and the rate kept growing to jobs=32 in make test. A
// paced job sleeps between its I/Os and asks a rate a starved client
// keeps. --scale sets iodepth (the section's 4 is replaced).
const scaleJob = `# report iops
[global]
ioengine=libaio
rw=randread
bs=4k
filesize=4M
filename=shared
rate_iops=200
time_based=1
runtime=2

[randread]
iodepth=4
`

// `fio --scale iodepth=1..32` of a paced random read on a local
// directory, real fio, finds a knee below the top of the range: the output names it with
// the stopping rule, summary.json keeps it with why the scale stopped,
// the steps after the one that flattened did not run, the report's chart
// of p99 against rate renders in Chromium with a point per step and the
// knee marked, and `storbench trend` follows the knee from the catalog.
func TestScaleFioFindsAKnee(t *testing.T) {
	t.Parallel()
	needFio(t)
	res, cat := t.TempDir(), filepath.Join(t.TempDir(), "catalog.db")
	st, out := testState()
	args := []string{"fio", "-d", t.TempDir(), "-w", workloadDir(t, map[string]string{"rr": scaleJob}), "--scale", "iodepth=1..32", "--results", res, "--catalog", cat}
	if err := Execute(context.Background(), st, args); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	folders, _ := filepath.Glob(filepath.Join(res, "*"))
	if len(folders) != 1 {
		t.Fatalf("results: %v", folders)
	}
	sum, err := results.ReadSummary(folders[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Scales) != 1 {
		t.Fatalf("scales in summary.json: %+v", sum.Scales)
	}
	sc := sum.Scales[0]
	if sc.Knee == nil || *sc.Knee >= 32 || !slices.Contains([]string{model.ScaleFlat, model.ScaleLatency}, sc.StopKind) {
		t.Fatalf("no knee below iodepth=32: %+v\n%s", sc, out)
	}
	last := sc.Steps[len(sc.Steps)-1].Load
	if len(sum.Phases) != len(sc.Steps) || last != 2**sc.Knee {
		t.Errorf("%d phases ran, %d steps, the last at iodepth=%d: want the steps up to the one after the knee (%d)", len(sum.Phases), len(sc.Steps), last, 2**sc.Knee)
	}
	text := out.String()
	for _, want := range []string{fmt.Sprintf("knee at iodepth=%d", *sc.Knee), "stopped: " + sc.Stop, "a scale stops when the last step's rate is not beyond noise"} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %q:\n%s", want, text)
		}
	}
	code, tr := cmdOut(t, "trend", sc.Group+"/iodepth/knee", "--catalog", cat)
	if code != 0 || !strings.Contains(tr, sum.RunID) || !strings.Contains(tr, fmt.Sprint(*sc.Knee)) {
		t.Errorf("trend of the knee: exit %d\n%s", code, tr)
	}
	t.Run("chart", func(t *testing.T) {
		bin := chromium.Binary(t)
		if bin == "" {
			t.Skip("chromium is not installed and could not be installed (apt-get install -y chromium)")
		}
		shot := filepath.Join(chromium.ArtifactDir(t), "report-scale.png")
		chromium.Check(t, bin, filepath.Join(folders[0], "report.html"), shot, true, func(eval func(string) string) {
			var found bool
			for _, c := range chromium.Charts(t, eval) {
				if !strings.HasPrefix(c.Title, "scale ") {
					continue
				}
				found = true
				if len(c.Lines) != 1 || len(c.Lines[0].Points) != len(sc.Steps) {
					t.Errorf("scale chart %q: %+v, want one line of %d points", c.Title, c.Lines, len(sc.Steps))
				}
			}
			if !found {
				t.Error("report.html has no scale chart")
			}
			if mark := fmt.Sprintf("knee iodepth=%d", *sc.Knee); !strings.Contains(eval(`Array.from(document.querySelectorAll('svg.chart g.ev')).map(g => g.getAttribute('data-event')).join('|')`), mark) {
				t.Errorf("the chart does not mark %q", mark)
			}
		})
	})
}
