package report

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
)

// s3MixedOps are synthS3Mixed's operations, run side by side for the
// whole phase as s3 mixed runs them: bytes per operation and rate per
// host.
var s3MixedOps = []struct {
	name  string
	bytes uint64
	rate  float64
}{{"GET", 1 << 20, 400}, {"PUT", 1 << 20, 150}, {"DELETE", 0, 100}, {"STAT", 0, 250}}

// synthS3Mixed writes a results folder of an s3 mixed phase of 20 s on 3
// hosts, its four operations side by side, and returns it.
func synthS3Mixed(t testing.TB) string {
	t.Helper()
	const secs = 20
	start := time.Date(2026, 11, 21, 5, 0, 0, 0, time.UTC)
	names := []string{"client01", "client02", "client03"}
	var agents []model.AgentInfo
	for _, h := range names {
		agents = append(agents, model.AgentInfo{Host: h})
	}
	f, err := results.Create(t.TempDir(), results.RunInfo{RunHead: model.RunHead{RunID: results.NewRunID(start), Name: "s3-mixed-3-hosts", StartedAt: start}, Agents: agents})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(36, 3))
	t0 := start.UnixNano()
	var hosts []*model.HostResult
	for hi, name := range names {
		hr := &model.HostResult{Host: name}
		var lat []record.LatSecond
		for _, o := range s3MixedOps {
			var all record.Bins
			for s := range secs {
				from := t0 + int64(s)*1e9 + int64(hi)*1e6
				k := int(o.rate * (1 + 0.05*rng.NormFloat64()))
				counts := map[int64]uint64{}
				var sum float64
				for range k {
					v := int64(2e6 * math.Exp(0.3*rng.NormFloat64()))
					counts[v]++
					sum += float64(v)
				}
				bins := record.FromMap(counts)
				all = record.Merge(all, bins)
				hr.Series = append(hr.Series, record.Second{StartNs: from, EndNs: from + 1e9, Op: o.name, Ops: uint64(k), Bytes: uint64(k) * o.bytes})
				lat = append(lat, record.LatSecond{Op: o.name, StartNs: from, EndNs: from + 1e9, SumNs: sum, Bins: bins})
			}
			hr.Ops = append(hr.Ops, record.OpStats{Op: o.name, Ops: all.Total(), Bytes: all.Total() * o.bytes,
				StartNs: t0 + int64(hi)*1e6, EndNs: t0 + secs*1e9 + int64(hi)*1e6,
				Lat: record.Hist{Stats: record.LatStats{N: all.Total(), Min: 1, Max: 1e9, Mean: 2e6}, Bins: all}})
		}
		if hr.LatencySeconds, err = record.EncodeLatSeconds(lat); err != nil {
			t.Fatal(err)
		}
		hosts = append(hosts, hr)
	}
	if err := f.AddPhase(results.BuildPhase("s3-mixed", "s3", nil, hosts), hosts); err != nil {
		t.Fatal(err)
	}
	if err := f.Finish(results.StatusCompleted, nil); err != nil {
		t.Fatal(err)
	}
	return f.Path
}

// An s3 mixed phase reads at a glance as an md phase does (issue 36): one
// chart of every operation's rate with its hosts' spread, the operations
// over time on shared charts, each operation in its one colour
// everywhere. Its four operations on 3 hosts drew 14 charts: a spread
// chart and two latency charts per operation.
func TestS3MixedReportAtAGlance(t *testing.T) {
	dir := synthS3Mixed(t)
	page, err := HTMLFolder(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	charts := regexp.MustCompile(`(?s)<svg class="chart".*?</svg>`).FindAllString(s, -1)
	var titles []string
	rates := ""
	for _, c := range charts {
		title := regexp.MustCompile(`aria-label="([^"]*)"`).FindStringSubmatch(c)[1]
		titles = append(titles, title)
		if strings.HasPrefix(title, "Rate per operation") {
			rates = c
		}
	}
	if len(charts) > 6 {
		t.Errorf("the s3 mixed report of 3 hosts and 4 operations draws %d charts, want at most 6, as md's: %q", len(charts), titles)
	}
	if rates == "" {
		t.Fatalf("no chart of the operations' rates: %q", titles)
	}
	if n := strings.Count(rates, `class="eb"`); n != len(s3MixedOps) {
		t.Errorf("the rates chart has %d host spreads, want one per operation (%d)", n, len(s3MixedOps))
	}
	owner := map[string]string{}
	named := map[string]int{}
	for _, m := range legendRe.FindAllStringSubmatch(s, -1) {
		col, name := strings.ToLower(m[1]), m[2]
		for _, o := range s3MixedOps {
			if name != o.name {
				continue
			}
			named[o.name]++
			if col != OpColor(o.name) {
				t.Errorf("%s is drawn %s, not its colour %s", o.name, col, OpColor(o.name))
			}
			if w, ok := owner[col]; ok && w != o.name {
				t.Errorf("%s and %s are both drawn %s", w, o.name, col)
			}
			owner[col] = o.name
		}
	}
	for _, o := range s3MixedOps {
		if named[o.name] < 2 {
			t.Errorf("%s is named in %d legends, want its rate and its lines over time", o.name, named[o.name])
		}
	}
	// Chromium draws it whole (every chart with its points, nothing cut
	// off); its screenshot is kept.
	bin := chromiumBinary(t)
	if bin == "" {
		t.Skip("chromium is not installed and could not be installed (apt-get install -y chromium)")
	}
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	checkInChromium(t, bin, file, filepath.Join(artifactDir(t), "report-s3-mixed-3-hosts.png"), true)
}
