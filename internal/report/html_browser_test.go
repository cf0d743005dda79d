package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil/chromium"
)

// The Chromium checks live in testutil/chromium, which the GlusterFS
// cluster tests share.
var (
	chromiumBinary  = chromium.Binary
	checkInChromium = chromium.Check
	artifactDir     = chromium.ArtifactDir
)

// TestHTMLReportInChromium opens the report of each engine's results (the
// s3 one with a comparison), of a synthetic run on 64 hosts, and of results
// written before per-second latency was kept, in headless Chromium: the
// page must load with no request but its own file, no console error or
// exception, every chart must have data points and nothing in a chart may
// be cut off (every text, legend included, inside the chart's box), and
// every phase of a run with per-second latency must have its latency over
// time. A full-page screenshot is kept.
func TestHTMLReportInChromium(t *testing.T) {
	bin := chromiumBinary(t)
	if bin == "" {
		t.Skip("chromium is not installed and could not be installed (apt-get install -y chromium)")
	}
	for _, tc := range []struct {
		name, dir, before string
		perSecond         bool
	}{
		{"fio", "fio-lat", "", true}, {"md", "md-lat", "", true}, {"edges", "edges", "", true}, {"s3-compare", "s3-lat-b", "s3-lat-a", true},
		{"64-hosts", "", "", true}, {"before-per-second", "s3-b", "s3-a", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var page []byte
			if tc.dir == "" {
				_, page = sixtyFourHosts(t)
			} else {
				before := ""
				if tc.before != "" {
					before = filepath.Join(resultsDir, tc.before)
				}
				var err error
				if page, err = HTMLFolder(filepath.Join(resultsDir, tc.dir), before); err != nil {
					t.Fatal(err)
				}
			}
			tmp := t.TempDir()
			file := filepath.Join(tmp, "report.html")
			if err := os.WriteFile(file, page, 0o644); err != nil {
				t.Fatal(err)
			}
			// The default "storbench score" (4k random reads and 1 MiB
			// writes in one mean, tree create/remove as metadata) is not
			// shown, even from results that recorded it.
			if bytes.Contains(page, []byte("storbench score")) {
				t.Error("the report shows the default storbench score")
			}
			shot := filepath.Join(artifactDir(t), "report-"+tc.name+".png")
			checkInChromium(t, bin, file, shot, tc.perSecond)
			t.Logf("screenshot: %s", shot)
		})
	}
}

// The plotted values of every chart over time add up to what the tables
// count (issue 35): in Chromium, each rate line's values times the
// seconds each is over equal its operations or bytes in summary.json
// (within 0.5%), each latency line's requests its operations, the errors
// per second its errors, and every marker is drawn where its value is;
// on an md, an s3, a 3-host and an event report (a GlusterFS brick
// killed, started, hung and restarted: testdata/results). The fio report
// of several jobs without group_reporting is internal/cli's
// TestFioJobsWithoutGroupReporting.
func TestChartsAddUpInChromium(t *testing.T) {
	bin := chromiumBinary(t)
	if bin == "" {
		t.Skip("chromium is not installed and could not be installed (apt-get install -y chromium)")
	}
	for _, name := range []string{"md-lat", "s3-lat-a", "edges", "gluster-brick-events"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(resultsDir, name)
			page, err := HTMLFolder(dir, "")
			if err != nil {
				t.Fatal(err)
			}
			sum, err := results.ReadSummary(dir)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "report.html")
			if err := os.WriteFile(file, page, 0o644); err != nil {
				t.Fatal(err)
			}
			check := checkInChromium
			if len(sum.Phases[0].Events) > 0 {
				check = func(t testing.TB, bin, file, shot string, _ bool, extra ...func(func(string) string)) {
					chromium.CheckWithEvents(t, bin, file, shot, extra...)
				}
			}
			check(t, bin, file, filepath.Join(artifactDir(t), "sums-"+name+".png"), true, func(eval func(string) string) {
				charts, phases := chromium.PhaseCharts(t, eval)
				for _, line := range chromium.ChartSums(t, sum, charts, phases) {
					t.Log(line)
				}
			})
		})
	}
}
