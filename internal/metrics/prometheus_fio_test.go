package metrics_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil"
)

// A real Prometheus scraping the controller of a local run stores, for a
// fio phase, the same final operation count as summary.json: fio's last
// report (its final JSON, after the last status line) reaches the metrics
// before the phase is marked done, also when the phase's result names its
// operations per fio job (numjobs: 2) where the live counts name them per
// direction.
func TestPrometheusFioFinalCount(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two fio phases under a real Prometheus")
	}
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed")
	}
	dir := t.TempDir()
	ctrlMetrics := freePort(t, "127.0.0.1")
	base := startPrometheus(t, fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: controller
    static_configs:
      - targets: ['%s']
`, ctrlMetrics))
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	// Two phases: the first's end is followed by a second phase (the
	// controller still runs), the second's by the controller's exit.
	suite := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(suite, []byte(`name: fio-watched
dir: `+data+`
phases:
  - name: fio-write
    fio:
      job: {rw: randwrite, bs: 4k, size: 32MiB, filename: f, time_based: 1, ioengine: psync, numjobs: 2}
      runtime: 4s
  - name: fio-read
    fio:
      job: {rw: randread, bs: 4k, size: 32MiB, filename: f, time_based: 1, ioengine: psync, numjobs: 2}
      runtime: 4s
`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("local", func(t *testing.T) { fioFinalCounts(t, base, suite, ctrlMetrics) })
	// An agent process streams its snapshots to the controller: its last
	// ones come before its result.
	var tb [16]byte
	_, _ = rand.Read(tb[:])
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte(hex.EncodeToString(tb[:])), 0o600); err != nil {
		t.Fatal(err)
	}
	agent := freePort(t, "127.0.0.1")
	startAgent(t, []string{"--listen", agent, "--token-file", token}, nil)
	t.Run("agent", func(t *testing.T) {
		fioFinalCounts(t, base, suite, ctrlMetrics, "--agents", agent, "--token-file", token)
	})
}

// fioFinalCounts runs the suite with the controller's metrics on
// ctrlMetrics and compares the final counts Prometheus stored with
// summary.json's.
func fioFinalCounts(t *testing.T, base, suite, ctrlMetrics string, args ...string) {
	cmd := exec.Command(testutil.StorbenchBin(t), append([]string{"run", suite, "--metrics-listen", ctrlMetrics,
		"--results", t.TempDir(), "--json", "-v"}, args...)...)
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
	for _, ph := range sum.Phases {
		sel := fmt.Sprintf(`{job="controller",run=%q,phase=%q}`, sum.RunID, ph.Name)
		series := promSeries(t, base, "storbench_ops_total"+sel+"[10m]", "op")
		var stored, want float64
		for _, o := range ph.Ops {
			want += float64(o.Ops)
		}
		for op, s := range series {
			t.Logf("%s %s: %d samples, last %.0f", ph.Name, op, len(s), s[len(s)-1].v)
			stored += s[len(s)-1].v
		}
		t.Logf("%s: Prometheus stored %.0f operations in all, summary.json %.0f", ph.Name, stored, want)
		if want == 0 || stored != want {
			t.Errorf("%s: Prometheus stored %.0f operations as the final count, summary.json has %.0f", ph.Name, stored, want)
		}
		states := promSeries(t, base, "storbench_phase_state"+sel+"[10m]", "state")
		if s := states["done"]; len(s) == 0 || s[len(s)-1].v != 1 {
			t.Errorf("%s: last state scraped is not done: %v", ph.Name, states)
		}
	}
}
