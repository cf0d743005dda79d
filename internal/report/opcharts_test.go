package report

import (
	"encoding/json"
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

// mdOps are the ten operations of synthMD's phase: how long each ran
// (seconds; most well under one, as md's do) and at what rate per host.
// tree-create is made by client01 alone.
var mdOps = []struct {
	name string
	secs float64
	rate float64
}{
	{"tree-create", 0.1, 50}, {"dir-create", 6, 900}, {"dir-stat", 0.4, 20000}, {"dir-rename", 0.3, 700},
	{"dir-remove", 0.5, 800}, {"file-create", 8, 600}, {"find", 0.2, 50000}, {"file-stat", 6, 15000},
	{"file-read", 5.5, 3000}, {"file-remove", 0.7, 1200},
}

// synthMD writes a results folder of an md phase of the ten mdOps on 3
// hosts, one after another, with per-second series and latency
// histograms, and returns it.
func synthMD(t testing.TB) string {
	t.Helper()
	start := time.Date(2026, 11, 21, 5, 0, 0, 0, time.UTC)
	hostsN := []string{"client01", "client02", "client03"}
	var agents []model.AgentInfo
	for _, h := range hostsN {
		agents = append(agents, model.AgentInfo{Host: h})
	}
	f, err := results.Create(t.TempDir(), results.RunInfo{RunHead: model.RunHead{RunID: results.NewRunID(start), Name: "md-3-hosts", StartedAt: start}, Agents: agents})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 10))
	var hosts []*model.HostResult
	for hi, name := range hostsN {
		hr := &model.HostResult{Host: name}
		var lat []record.LatSecond
		at := start.UnixNano()
		for _, o := range mdOps {
			end := at + int64(o.secs*1e9)
			if o.name == "tree-create" && hi > 0 {
				at = end
				continue
			}
			var all record.Bins
			for from := at; from < end; from += 1e9 {
				to := min(from+1e9, end)
				k := max(1, int(o.rate*float64(to-from)/1e9*(1+0.05*rng.NormFloat64())))
				counts := map[int64]uint64{}
				var sum float64
				for range k {
					v := int64(1e9 / o.rate * math.Exp(0.3*rng.NormFloat64()))
					counts[v]++
					sum += float64(v)
				}
				bins := record.FromMap(counts)
				all = record.Merge(all, bins)
				hr.Series = append(hr.Series, record.Second{StartNs: from, EndNs: to, Op: o.name, Ops: uint64(k)})
				lat = append(lat, record.LatSecond{Op: o.name, StartNs: from, EndNs: to, SumNs: sum, Bins: bins})
			}
			hr.Ops = append(hr.Ops, record.OpStats{Op: o.name, Ops: all.Total(), StartNs: at, EndNs: end,
				Lat: record.Hist{Stats: record.LatStats{N: all.Total(), Min: 1, Max: 1e9, Mean: 1e9 / o.rate}, Bins: all}})
			at = end
		}
		if hr.LatencySeconds, err = record.EncodeLatSeconds(lat); err != nil {
			t.Fatal(err)
		}
		hosts = append(hosts, hr)
	}
	if err := f.AddPhase(results.BuildPhase("md", "md", nil, hosts), hosts); err != nil {
		t.Fatal(err)
	}
	if err := f.Finish(results.StatusCompleted, nil); err != nil {
		t.Fatal(err)
	}
	return f.Path
}

// legendRe reads a chart's legend entry: its colour and its line's name.
var legendRe = regexp.MustCompile(`<rect [^>]*fill="(#[0-9a-f]{6})"[^>]*/><text class="lg" data-line="\d+" data-name="([^"]*)"`)

// opColorsOf checks the legends of every chart of page: each operation
// of mdOps that is named has one colour, OpColor's, and no two
// operations share one. It returns how many legend entries name one.
func opColorsOf(t *testing.T, legends [][2]string) int {
	t.Helper()
	isOp := map[string]bool{}
	for _, o := range mdOps {
		isOp[o.name] = true
	}
	seen, owner := map[string]string{}, map[string]string{}
	n := 0
	for _, l := range legends {
		col, op := strings.ToLower(l[0]), l[1]
		if !isOp[op] {
			continue
		}
		n++
		if c, ok := seen[op]; ok && c != col {
			t.Errorf("%s is drawn %s in one chart and %s in another", op, c, col)
		}
		if o, ok := owner[col]; ok && o != op {
			t.Errorf("%s and %s are both drawn %s", o, op, col)
		}
		if col != OpColor(op) {
			t.Errorf("%s is drawn %s, not its colour %s", op, col, OpColor(op))
		}
		seen[op], owner[col] = col, op
	}
	return n
}

// An md phase of 3 hosts and 10 operations reads at a glance (issue 36
// item 1): at most 12 charts (it drew 33, most of them one dot for an
// operation shorter than a second); one chart of every operation's rate
// with its hosts' spread; lines over time only for operations that
// lasted several seconds; one colour per operation in every chart; and
// no host called slow for an operation only it ran (tree-create).
// Chromium reads the colours as drawn.
func TestMDReportAtAGlance(t *testing.T) {
	dir := synthMD(t)
	page, err := HTMLFolder(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	charts := regexp.MustCompile(`(?s)<svg class="chart".*?</svg>`).FindAllString(s, -1)
	var titles []string
	for _, c := range charts {
		titles = append(titles, regexp.MustCompile(`aria-label="([^"]*)"`).FindStringSubmatch(c)[1])
	}
	if len(charts) > 12 {
		t.Errorf("the md report of 3 hosts and 10 operations draws %d charts, want at most 12: %q", len(charts), titles)
	}
	rates := -1
	for i, title := range titles {
		if strings.HasPrefix(title, "Rate per operation") {
			rates = i
		}
	}
	if rates < 0 {
		t.Fatalf("no chart of the operations' rates: %q", titles)
	}
	if n := strings.Count(charts[rates], `class="pt"`); n != len(mdOps) {
		t.Errorf("the rates chart has %d points, want one per operation (%d)", n, len(mdOps))
	}
	if n := strings.Count(charts[rates], `class="eb"`); n != len(mdOps)-1 {
		t.Errorf("the rates chart has %d host spreads, want one per operation run by several hosts (%d)", n, len(mdOps)-1)
	}
	// Over time: the four operations that lasted 5 s or more, no other.
	for i, c := range charts {
		if i == rates || strings.HasPrefix(titles[i], "Latency by percentile") {
			continue // not over time
		}
		for _, o := range mdOps {
			if o.secs < longOp && strings.Contains(c, `data-name="`+o.name+`"`) {
				t.Errorf("chart %q draws %s, which lasted %g s, over time", titles[i], o.name, o.secs)
			}
		}
	}
	// No errors: one line says so, where a chart of zeros was (item 2).
	if strings.Contains(s, `aria-label="Errors per second`) || !strings.Contains(s, "Errors per second: none, in any second of the phase") {
		t.Error("a phase without errors draws a chart of zeros rather than saying it had none")
	}
	if strings.Contains(s, "tree-create: lowest") || regexp.MustCompile(`<tr class="slow">[^\n]*tree-create`).MatchString(s) {
		t.Error("a host is called slow at tree-create, which only it ran")
	}
	var legends [][2]string
	for _, m := range legendRe.FindAllStringSubmatch(s, -1) {
		legends = append(legends, [2]string{m[1], m[2]})
	}
	if n := opColorsOf(t, legends); n < len(mdOps) {
		t.Errorf("the operations are named %d times in the legends, want at least %d", n, len(mdOps))
	}

	bin := chromiumBinary(t)
	if bin == "" {
		t.Skip("chromium is not installed and could not be installed (apt-get install -y chromium)")
	}
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(artifactDir(t), "report-md-3-hosts.png")
	checkInChromium(t, bin, file, shot, true, func(eval func(string) string) {
		// The fill Chromium computed for each legend's swatch.
		var drawn [][2]string
		js := `JSON.stringify(Array.from(document.querySelectorAll('svg.chart text.lg')).map(t => {
  const c = getComputedStyle(t.previousElementSibling).fill.match(/\d+/g).map(Number);
  return ['#' + c.map(v => v.toString(16).padStart(2, '0')).join(''), t.getAttribute('data-name')];
}))`
		if err := json.Unmarshal([]byte(eval(js)), &drawn); err != nil {
			t.Fatalf("legend colours: %v", err)
		}
		if n := opColorsOf(t, drawn); n < len(mdOps) {
			t.Errorf("Chromium shows the operations %d times in the legends, want at least %d", n, len(mdOps))
		}
	})
	t.Logf("screenshot: %s", shot)
}

// The charts of one phase over time share one time axis (issue 36 item
// 2): the same second is at the same place in each, so that an event's
// band sits at the same seconds in every chart. Before, each chart's axis
// spanned its own lines: file-stat's charts, which run in the phase's
// second half, began at 20 s, and a latency line that began a second
// late shifted its chart against the throughput chart.
func TestPhaseChartsShareTheirTimeAxis(t *testing.T) {
	page, err := HTMLFolder(synthHosts(t, 8, 40), "")
	if err != nil {
		t.Fatal(err)
	}
	tick := regexp.MustCompile(`<text class="tk" x="([0-9.]+)" y="[0-9.]+" text-anchor="middle">(0s|20s)</text>`)
	for i, p := range strings.Split(string(page), "<h3>")[1:] {
		at := map[string]string{}
		for _, c := range regexp.MustCompile(`(?s)<svg class="chart".*?</svg>`).FindAllString(p, -1) {
			title := regexp.MustCompile(`aria-label="([^"]*)"`).FindStringSubmatch(c)[1]
			if !strings.Contains(c, ">seconds into the phase<") {
				continue
			}
			got := map[string]string{}
			for _, m := range tick.FindAllStringSubmatch(c, -1) {
				got[m[2]] = m[1]
			}
			for _, s := range []string{"0s", "20s"} {
				if got[s] == "" {
					t.Errorf("phase %d: chart %q has no tick at %s", i+1, title, s)
				} else if at[s] == "" {
					at[s] = got[s]
				} else if got[s] != at[s] {
					t.Errorf("phase %d: chart %q draws %s at x=%s, another chart at x=%s", i+1, title, s, got[s], at[s])
				}
			}
		}
	}
}
