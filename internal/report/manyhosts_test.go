package report

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
)

// slowHosts are the hosts of synthHosts' run that are slower than the
// rest: less throughput and higher latency.
var slowHosts = map[string]float64{"client17": 0.5, "client40": 0.6, "client05": 0.8}

// many is the 64-host run of TestReportManyHosts and the Chromium test's
// 64-hosts page, and its report: made once (17 s under -race on a loaded
// machine) in a directory TestMain removes.
var many struct {
	once sync.Once
	root string
	dir  string
	page []byte
	err  error
}

// sixtyFourHosts returns the folder of a synthetic run on 64 hosts of 40
// seconds (synthHosts) and its HTML report.
func sixtyFourHosts(t testing.TB) (dir string, page []byte) {
	t.Helper()
	many.once.Do(func() {
		if many.root, many.err = os.MkdirTemp("", "storbench-report-test-"); many.err != nil {
			return
		}
		many.dir = synthHostsIn(t, many.root, 64, 40)
		many.page, many.err = HTMLFolder(many.dir, "")
	})
	if many.err != nil || many.page == nil {
		t.Fatalf("the 64-host report: %v", many.err)
	}
	return many.dir, many.page
}

func TestMain(m *testing.M) {
	code := m.Run()
	if many.root != "" {
		_ = os.RemoveAll(many.root)
	}
	os.Exit(code)
}

// synthHosts writes a results folder of a run on n hosts (client01, ...)
// with two phases of secs seconds: an s3 phase whose GET and PUT run
// together, and an md phase whose file-create and file-stat run one after
// the other. Every host has per-second series and latency histograms; the
// slowHosts are slower by their factor. It returns the folder.
func synthHosts(t testing.TB, n, secs int) string {
	t.Helper()
	return synthHostsIn(t, t.TempDir(), n, secs)
}

// synthHostsIn is synthHosts writing its folder under root.
func synthHostsIn(t testing.TB, root string, n, secs int) string {
	t.Helper()
	start := time.Date(2026, 11, 21, 5, 0, 0, 0, time.UTC)
	var agents []model.AgentInfo
	for h := 1; h <= n; h++ {
		agents = append(agents, model.AgentInfo{Host: fmt.Sprintf("client%02d", h)})
	}
	f, err := results.Create(root, results.RunInfo{RunHead: model.RunHead{RunID: results.NewRunID(start), Name: fmt.Sprintf("%d-hosts", n),
		StartedAt: start}, Agents: agents})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(n), uint64(secs)))
	type opSpec struct {
		name       string
		bytes      uint64  // per operation
		rate       float64 // operations per second per host
		latNs      float64 // median latency
		from, upTo int     // seconds of the phase in which it runs
	}
	phases := []struct {
		name string
		eng  model.EngineName
		ops  []opSpec
	}{
		{"s3-mixed", "s3", []opSpec{{"GET", 1 << 20, 200, 3e6, 0, secs}, {"PUT", 1 << 20, 80, 8e6, 0, secs}}},
		{"md", "md", []opSpec{{"file-create", 0, 600, 40e3, 0, secs / 2}, {"file-stat", 0, 1500, 8e3, secs / 2, secs}}},
	}
	t0 := start.UnixNano()
	for _, ph := range phases {
		var hosts []*model.HostResult
		for h := 1; h <= n; h++ {
			name := fmt.Sprintf("client%02d", h)
			factor := 1.0
			if f, ok := slowHosts[name]; ok {
				factor = f
			}
			hr := &model.HostResult{Host: name}
			var lat []record.LatSecond
			for _, o := range ph.ops {
				var all record.Bins
				var st record.LatStats
				for s := o.from; s < o.upTo; s++ {
					from := t0 + int64(s)*1e9 + int64(h)*1e6 // hosts a few ms apart
					// The level wanders a little from second to second.
					level := o.latNs / factor * math.Exp(0.1*rng.NormFloat64())
					k := int(o.rate * factor * (1 + 0.05*rng.NormFloat64()))
					counts := map[int64]uint64{}
					sec := record.LatStats{N: uint64(k), Min: math.MaxInt64}
					var sum, sq float64
					for range k {
						v := int64(level * math.Exp(0.4*rng.NormFloat64()))
						v = int64(math.Exp(math.Round(math.Log(float64(v))*100) / 100)) // 1% bins
						counts[v]++
						sum += float64(v)
						sq += float64(v) * float64(v)
						sec.Min, sec.Max = min(sec.Min, v), max(sec.Max, v)
					}
					if k > 0 {
						sec.Mean, sec.M2 = sum/float64(k), sq-sum*sum/float64(k)
						st = st.Combine(sec)
					}
					bins := record.FromMap(counts)
					all = record.Merge(all, bins)
					hr.Series = append(hr.Series, record.Second{StartNs: from, EndNs: from + 1e9, Op: o.name, Ops: uint64(k), Bytes: uint64(k) * o.bytes})
					lat = append(lat, record.LatSecond{Op: o.name, StartNs: from, EndNs: from + 1e9, SumNs: sum, Bins: bins})
				}
				hr.Ops = append(hr.Ops, record.OpStats{Op: o.name, Ops: all.Total(), Bytes: all.Total() * o.bytes,
					StartNs: t0 + int64(o.from)*1e9 + int64(h)*1e6, EndNs: t0 + int64(o.upTo)*1e9 + int64(h)*1e6,
					Lat: record.Hist{Stats: st, Bins: all}})
			}
			if hr.LatencySeconds, err = record.EncodeLatSeconds(lat); err != nil {
				t.Fatal(err)
			}
			hosts = append(hosts, hr)
		}
		if err := f.AddPhase(results.BuildPhase(ph.name, ph.eng, nil, hosts), hosts); err != nil {
			t.Fatal(err)
		}
		t0 += int64(secs+5) * 1e9
	}
	if err := f.Finish(results.StatusCompleted, nil); err != nil {
		t.Fatal(err)
	}
	return f.Path
}

// At 64 hosts the report stays readable: the per-second charts show the
// total and the spread across hosts (median, min-max band), name the
// slowest hosts, and every host's figures are in a table; latency over
// time is charted for every phase.
func TestReportManyHosts(t *testing.T) {
	_, page := sixtyFourHosts(t)
	s := string(page)
	phases := strings.Split(s, "<h3>")[1:]
	if len(phases) != 2 {
		t.Fatalf("%d phases in the page, want 2", len(phases))
	}
	for i, want := range []struct {
		ops        []string
		throughput string // the unit of the spread chart
	}{{[]string{"GET", "PUT"}, "MiB/s"}, {[]string{"file-create", "file-stat"}, "ops/s"}} {
		p := phases[i]
		for _, op := range want.ops {
			for _, title := range []string{
				"Latency per second: " + op + " (all hosts)",
				op + ": " + want.throughput + " per host, median and min-max of 64 hosts",
				op + ": p99 per second per host, median and min-max of 64 hosts",
			} {
				if !strings.Contains(p, `aria-label="`+title+`"`) {
					t.Errorf("phase %d has no chart %q", i+1, title)
				}
			}
			// The slowest hosts are named, slowest first.
			for _, what := range []string{"lowest throughput", "highest p99"} {
				re := regexp.MustCompile(op + ": " + what + `: client17 \([^)]*\), client40 \([^)]*\), client05 `)
				if !re.MatchString(p) {
					t.Errorf("phase %d: %s %s does not name client17, client40, client05 in order", i+1, op, what)
				}
			}
		}
		if rows := strings.Count(p, "<tr><td class=\"l\">client") + strings.Count(p, "<tr class=\"slow\"><td class=\"l\">client"); rows != 64*len(want.ops) {
			t.Errorf("phase %d: per-host table has %d rows, want %d", i+1, rows, 64*len(want.ops))
		}
		if !strings.Contains(p, `<tr class="slow"><td class="l">client17</td>`) {
			t.Errorf("phase %d: client17's row is not marked slow", i+1)
		}
	}
	// No chart has a line (and a legend entry) per host.
	for _, m := range regexp.MustCompile(`(?s)<svg class="chart".*?</svg>`).FindAllString(s, -1) {
		if n := strings.Count(m, `class="lg"`); n > 6 {
			t.Errorf("a chart has %d legend entries: %.120s", n, m)
		}
	}
	var b bytes.Buffer
	b.Write(page)
	t.Logf("report of 64 hosts: %d KiB", b.Len()>>10)
}
