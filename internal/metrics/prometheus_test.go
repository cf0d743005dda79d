package metrics_test

// A real Prometheus (Debian's package; make test installs it) scrapes a
// real agent process and a real controller process, once a second, during
// an s3 phase against a real versitygw and an md phase; what it stored
// must agree with summary.json.

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/testutil"
)

func freePort(t *testing.T, host string) string {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// outsideAddr is an address of this machine other than loopback, where
// metrics need the token.
func outsideAddr(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	t.Skip("this machine has no address besides loopback: metrics with a token need one")
	return ""
}

// promBin finds Prometheus: $STORBENCH_PROMETHEUS, else prometheus on PATH.
func promBin(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("STORBENCH_PROMETHEUS"); p != "" {
		return p
	}
	p, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus is not installed (make test installs Debian's package)")
	}
	return p
}

// startPrometheus starts Prometheus on loopback with config and waits
// until it is ready; it returns its API's base URL.
func startPrometheus(t *testing.T, config string, flags ...string) string {
	t.Helper()
	bin := promBin(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freePort(t, "127.0.0.1")
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Args = append(cmd.Args, flags...)
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	base := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		select {
		case <-done:
			t.Fatalf("prometheus exited: %s", log.String())
		default:
		}
		if resp, err := http.Get(base + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
	}
	t.Fatalf("prometheus not ready in 30s: %s", log.String())
	return ""
}

// sample is one stored sample of a series.
type sample struct {
	t float64
	v float64
}

// promSeries runs an instant query for a range selector and returns each
// series' raw samples, by the given label's value.
func promSeries(t *testing.T, base, selector, by string) map[string][]sample {
	t.Helper()
	var body struct {
		Status string
		Error  string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Values [][2]any
			}
		}
	}
	promQuery(t, base, selector, &body)
	out := map[string][]sample{}
	for _, r := range body.Data.Result {
		for _, v := range r.Values {
			f, _ := strconv.ParseFloat(v[1].(string), 64)
			out[r.Metric[by]] = append(out[r.Metric[by]], sample{t: v[0].(float64), v: f})
		}
	}
	return out
}

// promScalar runs an instant query whose result is one vector element.
func promScalar(t *testing.T, base, query string) (float64, bool) {
	t.Helper()
	var body struct {
		Data struct {
			Result []struct {
				Value [2]any
			}
		}
	}
	promQuery(t, base, query, &body)
	if len(body.Data.Result) == 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(body.Data.Result[0].Value[1].(string), 64)
	return f, err == nil
}

func promQuery(t *testing.T, base, query string, into any) {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("query %s: %s: %s", query, resp.Status, b)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("query %s: %v", query, err)
	}
}

// startAgent starts a storbench agent process and waits until it listens.
func startAgent(t *testing.T, args []string, env []string) {
	t.Helper()
	cmd := exec.Command(testutil.StorbenchBin(t), append([]string{"agent"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errBuf strings.Builder
	cmd.Stderr = &errBuf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if strings.Contains(sc.Text(), " listening on ") {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return
		}
	}
	_ = cmd.Wait()
	t.Fatalf("agent did not start: %s", errBuf.String())
}

// The operations counter's increase over each phase, as Prometheus stored
// it from the agent's /metrics and from the controller's, equals
// summary.json's operation count within 1%, and every metric the Grafana
// dashboard queries is in the scrapes.
func TestPrometheusScrapesAgentAndController(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 20 s s3 phase and an md phase under a real Prometheus")
	}
	srv := s3test.StartT(t, s3test.Options{})
	dir := t.TempDir()
	var tb [16]byte
	_, _ = rand.Read(tb[:])
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte(hex.EncodeToString(tb[:])), 0o600); err != nil {
		t.Fatal(err)
	}
	agentAddr := freePort(t, "127.0.0.1")
	agentMetrics := freePort(t, outsideAddr(t))
	ctrlMetrics := freePort(t, "127.0.0.1")
	keys := []string{"STORBENCH_ACCESS_KEY=" + s3test.AccessKey, "STORBENCH_SECRET_KEY=" + s3test.SecretKey}
	startAgent(t, []string{"--listen", agentAddr, "--token-file", token, "--metrics-listen", agentMetrics}, keys)

	base := startPrometheus(t, fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: agent
    authorization:
      credentials_file: %s
    static_configs:
      - targets: ['%s']
  - job_name: controller
    static_configs:
      - targets: ['%s']
`, token, agentMetrics, ctrlMetrics))
	// A second one asks for native histograms (protobuf).
	native := startPrometheus(t, fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: agent
    authorization:
      credentials_file: %s
    static_configs:
      - targets: ['%s']
`, token, agentMetrics), "--enable-feature=native-histograms")
	// The agent is scraped with the token before the run starts.
	waitUp(t, base, "agent")
	waitUp(t, native, "agent")

	suite := filepath.Join(dir, "suite.yaml")
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(suite, []byte(`name: watched
dir: `+data+`
s3:
  bucket: storbench-watched
phases:
  - name: s3-get
    s3:
      op: get
      objects: 50
      obj_size: 4KiB
      concurrent: 4
      duration: 20s
  - name: md
    md:
      items: 100000
      files_only: true
      unique_dir: true
      workers: 2
      stonewall: 5s
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testutil.StorbenchBin(t), "run", suite, "--agents", agentAddr, "--token-file", token,
		"--metrics-listen", ctrlMetrics, "--results", filepath.Join(dir, "results"), "--json", "-v")
	cmd.Env = append(os.Environ(), "STORBENCH_HOST="+srv.Endpoint)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	var sum results.Summary
	if err := json.Unmarshal(out, &sum); err != nil {
		t.Fatalf("--json printed no summary.json: %v\n%s", err, out)
	}
	if len(sum.Phases) != 2 {
		t.Fatalf("summary has %d phases", len(sum.Phases))
	}
	time.Sleep(2 * time.Second) // the agent's last figures are scraped
	for _, job := range []string{"agent", "controller"} {
		for _, ph := range sum.Phases {
			checkCounts(t, base, job, sum.RunID, ph)
		}
	}
	checkDashboard(t, base)
	checkNative(t, native, sum)
}

// checkNative reads the latency histograms a Prometheus with native
// histograms stored: as native ones (no _bucket series), holding every
// operation.
func checkNative(t *testing.T, base string, sum results.Summary) {
	t.Helper()
	for _, ph := range sum.Phases {
		for _, o := range ph.Ops {
			if o.Ops == 0 {
				continue
			}
			sel := fmt.Sprintf(`storbench_latency_seconds{run=%q,phase=%q,op=%q}`, sum.RunID, ph.Name, o.Op)
			// The agent still serves the run's last figures, so the instant
			// vector holds them (Prometheus 2.42's last_over_time turns a
			// native histogram into a 0).
			n, ok := promScalar(t, base, "histogram_count("+sel+")")
			p99, _ := promScalar(t, base, "histogram_quantile(0.99, "+sel+")")
			t.Logf("native %s %s: %.0f operations, p99 %.3g s; summary.json %d, p99 %.3g s", ph.Name, o.Op, n, p99, o.Ops, float64(o.Lat.P99Ns)/1e9)
			if !ok || math.Abs(n-float64(o.Ops)) > 0.01*float64(o.Ops) {
				t.Errorf("native %s %s: histogram holds %v operations, summary.json %d", ph.Name, o.Op, n, o.Ops)
			}
			// Live buckets are 2.2% wide; Prometheus interpolates inside one.
			if o.Lat == nil || o.Ops < 100 {
				continue
			}
			if want := float64(o.Lat.P99Ns) / 1e9; math.Abs(p99-want) > 0.05*want {
				t.Errorf("native %s %s: p99 %.3g s, summary.json %.3g s", ph.Name, o.Op, p99, want)
			}
		}
	}
	if v, ok := promScalar(t, base, `count({__name__="storbench_latency_seconds_bucket"})`); ok && v > 0 {
		t.Errorf("a Prometheus with native histograms stored %v classic bucket series", v)
	}
}

func waitUp(t *testing.T, base, job string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if v, ok := promScalar(t, base, `up{job="`+job+`"}`); ok && v == 1 {
			return
		}
	}
	t.Fatalf("prometheus could not scrape the %s (with its token)", job)
}

// checkCounts compares what Prometheus stored of a phase with summary.json.
func checkCounts(t *testing.T, base, job, runID string, ph results.PhaseSummary) {
	t.Helper()
	sel := fmt.Sprintf(`{job=%q,run=%q,phase=%q}`, job, runID, ph.Name)
	series := promSeries(t, base, "storbench_ops_total"+sel+"[10m]", "op")
	lat := promSeries(t, base, "storbench_latency_seconds_count"+sel+"[10m]", "op")
	checked := 0
	for _, o := range ph.Ops {
		s := series[o.Op]
		if len(s) < 2 {
			t.Errorf("%s %s %s: %d samples stored", job, ph.Name, o.Op, len(s))
			continue
		}
		first, last := s[0].v, s[len(s)-1].v
		inc := last - first
		t.Logf("%s %s %s: counter went from %.0f to %.0f over %.0fs (%d samples); summary.json %d", job, ph.Name, o.Op, first, last, s[len(s)-1].t-s[0].t, len(s), o.Ops)
		if first != 0 {
			t.Errorf("%s %s %s: the counter's first sample is %.0f: the phase's start was not scraped at zero", job, ph.Name, o.Op, first)
		}
		if math.Abs(inc-float64(o.Ops)) > 0.01*float64(o.Ops) {
			t.Errorf("%s %s %s: counter increased by %.0f, summary.json has %d operations", job, ph.Name, o.Op, inc, o.Ops)
		}
		if l := lat[o.Op]; o.Ops > 0 && (len(l) == 0 || math.Abs(l[len(l)-1].v-float64(o.Ops)) > 0.01*float64(o.Ops)) {
			t.Errorf("%s %s %s: latency histogram holds %v operations, summary.json %d", job, ph.Name, o.Op, l, o.Ops)
		}
		checked++
	}
	if checked == 0 {
		t.Errorf("%s %s: no operation checked", job, ph.Name)
	}
	checkDocumentedCount(t, base, job, runID, ph)
	// The last state scraped (the controller has exited: its series
	// are stale now, so read the stored samples).
	states := promSeries(t, base, `storbench_phase_state`+sel+`[10m]`, "state")
	if s := states["done"]; len(s) == 0 || s[len(s)-1].v != 1 {
		t.Errorf("%s %s: last state scraped is not done: %v", job, ph.Name, states)
	}
	if s := states["run"]; len(s) == 0 || slices.IndexFunc(s, func(x sample) bool { return x.v == 1 }) < 0 {
		t.Errorf("%s %s: never scraped running", job, ph.Name)
	}
}

var metricName = regexp.MustCompile(`storbench_[a-z_]+`)

// checkDashboard runs every query of the Grafana dashboard against what
// Prometheus scraped: each must parse, and each metric it names must have
// been scraped.
func checkDashboard(t *testing.T, base string) {
	t.Helper()
	root, _ := s3test.RepoRoot()
	exprs := dashboardExprs(t, filepath.Join(root, "deploy", "grafana", "storbench.json"))
	names := map[string]bool{}
	for _, e := range exprs {
		for _, n := range metricName.FindAllString(e, -1) {
			names[n] = true
		}
		q := strings.NewReplacer("$__rate_interval", "5s", "$__interval", "5s", "$job", "controller", "$run", ".+", "$phase", ".+", "$host", ".+").Replace(e)
		var body struct{ Status string }
		promQuery(t, base, q, &body)
	}
	var have []string
	for n := range names {
		have = append(have, n)
		if v, ok := promScalar(t, base, `count({__name__="`+n+`"})`); !ok || v == 0 {
			t.Errorf("the dashboard queries %s, which no scrape had", n)
		}
	}
	sort.Strings(have)
	if len(have) < 5 {
		t.Errorf("the dashboard queries only %v", have)
	}
}

// documentedQuery is docs/watching.md's query for a phase's exact
// operation counts, its job, run and phase to be filled in.
func documentedQuery(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "watching.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "storbench_ops_total{") && strings.Contains(line, `run="RUN"`) {
			return line
		}
	}
	t.Fatal(`docs/watching.md has no query of storbench_ops_total for run="RUN"`)
	return ""
}

// checkDocumentedCount runs docs/watching.md's query for a phase's
// operation counts and finds summary.json's counts exactly (issue 35:
// the page said increase() over the phase gave them, which Prometheus
// extrapolates to the range's edges: +5.9%); increase() is logged beside
// it.
func checkDocumentedCount(t *testing.T, base, job, runID string, ph results.PhaseSummary) {
	t.Helper()
	q := strings.NewReplacer(`job="controller"`, fmt.Sprintf("job=%q", job), `run="RUN"`, fmt.Sprintf("run=%q", runID), `phase="PHASE"`, fmt.Sprintf("phase=%q", ph.Name)).Replace(documentedQuery(t))
	for _, o := range ph.Ops {
		one := strings.Replace(q, "phase=", fmt.Sprintf("op=%q, phase=", o.Op), 1)
		got, ok := promScalar(t, base, one)
		inc, _ := promScalar(t, base, fmt.Sprintf(`sum(increase(storbench_ops_total{job=%q,run=%q,phase=%q,op=%q}[10m]))`, job, runID, ph.Name, o.Op))
		t.Logf("%s %s %s: the documented query %.0f, increase() %.1f (%+.1f%%); summary.json %d", job, ph.Name, o.Op, got, inc, 100*(inc/float64(o.Ops)-1), o.Ops)
		if !ok || got != float64(o.Ops) {
			t.Errorf("%s %s %s: docs/watching.md's query gives %v operations, summary.json %d", job, ph.Name, o.Op, got, o.Ops)
		}
	}
}
