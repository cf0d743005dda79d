package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/testutil"
)

// scaleSteps checks the one results folder under root holds a scale of
// param named group whose steps ran at loads from the start of want, in
// order, each step's host recording its load under meta (the workers or
// requests in flight it ran with), and that the scale stopped saying why;
// it returns the summary.
func scaleSteps(t *testing.T, root, group, param, meta string, want []int) *results.Summary {
	t.Helper()
	folder, s := readOnlySummary(t, root)
	if len(s.Scales) != 1 || s.Scales[0].Group != group || s.Scales[0].Param != param {
		t.Fatalf("scales in summary.json: %+v, want one of %s over %s", s.Scales, group, param)
	}
	sc := s.Scales[0]
	if sc.StopKind == "" || sc.Stop == "" || len(s.Phases) < 2 || len(s.Phases) > len(want) {
		t.Fatalf("the scale ran %d steps and stopped %q (%s)", len(s.Phases), sc.StopKind, sc.Stop)
	}
	for i, p := range s.Phases {
		if p.Scale == nil || p.Scale.Load != want[i] || p.Name != fmt.Sprintf("%s %s=%d", group, param, want[i]) {
			t.Errorf("step %d: %s %+v, want %s=%d", i+1, p.Name, p.Scale, param, want[i])
			continue
		}
		hr, err := results.ReadHostResult(folder, p.Dir, p.Hosts[0])
		if err != nil {
			t.Fatal(err)
		}
		if hr.Meta[meta] != strconv.Itoa(want[i]) {
			t.Errorf("step %s ran with %s=%s", p.Name, meta, hr.Meta[meta])
		}
	}
	if sc.StopKind != model.ScaleRangeEnd && (sc.Knee == nil || *sc.Knee != s.Phases[len(s.Phases)-2].Scale.Load) {
		t.Errorf("stopped by %s after %d steps: knee %v, want the step before the last", sc.StopKind, len(s.Phases), sc.Knee)
	}
	return &s
}

// md --scale workers=1..4 steps md's workers on each host: a phase per
// step, each run with that many workers (file-create made items x
// workers files), and the knee said in the output.
func TestScaleMdWorkers(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	code, out := cmdOut(t, "md", "-d", t.TempDir(), "-n", "200", "-F", "--only", "create", "--scale", "workers=1..4", "--results", root)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, out)
	}
	s := scaleSteps(t, root, "md", "workers", "workers", []int{1, 2, 4})
	for _, p := range s.Phases {
		for _, o := range p.Ops {
			if o.Op == "file-create" && o.Ops != uint64(200*p.Scale.Load) {
				t.Errorf("step %s created %d files, want %d", p.Name, o.Ops, 200*p.Scale.Load)
			}
		}
	}
	if !strings.Contains(out, "scale md") || !strings.Contains(out, "a scale stops when") {
		t.Errorf("the output does not say the scale and its rule:\n%s", out)
	}
}

// s3 get --scale concurrent=2..8 steps the requests in flight against a
// real versitygw: a phase per step, each with that many in flight.
func TestScaleS3Concurrent(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	st, out := s3State(srv)
	root := t.TempDir()
	err := Execute(context.Background(), st, []string{"s3", "get", "--objects", "16", "--obj.size", "4KiB", "--duration", "2s",
		"--scale", "concurrent=2..8", "--results", root, "--bucket", "scalebucket"})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	scaleSteps(t, root, "s3-get", "concurrent", "concurrent", []int{2, 4, 8})
	if !strings.Contains(out.String(), "scale s3-get") {
		t.Errorf("the output does not say the scale:\n%s", out)
	}
}

// --scale hosts=1..2 over two real agent processes takes the first N of
// the agents given at each step: one host, then both, the first the same.
func TestScaleHostsTakesTheFirstAgents(t *testing.T) {
	t.Parallel()
	const token = "sb-scale-hosts-token-0123456789ab"
	bin := testutil.StorbenchBin(t)
	a, b := testutil.AgentProcess(t, bin, token), testutil.AgentProcess(t, bin, token)
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	st, out := testState()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	err := Execute(ctx, st, []string{"md", "-d", t.TempDir(), "-n", "50", "-F", "-t", "1", "--only", "create", "--scale", "hosts=1..2",
		"--token-file", tok, "--results", root, a, b})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	_, s := readOnlySummary(t, root)
	if len(s.Phases) != 2 {
		t.Fatalf("%d steps ran, want 2\n%s", len(s.Phases), out)
	}
	one, two := s.Phases[0], s.Phases[1]
	if one.Name != "md hosts=1" || len(one.Hosts) != 1 || two.Name != "md hosts=2" || len(two.Hosts) != 2 || one.Hosts[0] != two.Hosts[0] {
		t.Errorf("steps %s on %v, %s on %v: want the first agent, then both", one.Name, one.Hosts, two.Name, two.Hosts)
	}
	for _, p := range s.Phases {
		for _, o := range p.Ops {
			if o.Op == "file-create" && o.Ops != uint64(50*len(p.Hosts)) {
				t.Errorf("step %s created %d files on %d hosts, want %d", p.Name, o.Ops, len(p.Hosts), 50*len(p.Hosts))
			}
		}
	}
}

// A suite's scale: steps the load of each engine's entries: md's
// workers and an s3 benchmark's requests in flight (against a real
// versitygw), each entry a scale of its own with its knee.
func TestScaleInASuiteForEachEngine(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	st, out := s3State(srv)
	root := t.TempDir()
	suite := writeSuite(t, fmt.Sprintf(`name: scales
dir: %s
s3: {bucket: suitescale}
phases:
  - name: meta
    scale: workers=1..2
    md: {items: 50, files_only: true, only: [create]}
  - name: get
    scale: concurrent=2..4
    s3: {op: get, objects: 16, obj_size: 4KiB, duration: 2s}
`, t.TempDir()))
	if err := Execute(context.Background(), st, []string{"run", suite, "--results", root}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	folder, s := readOnlySummary(t, root)
	if len(s.Scales) != 2 || s.Scales[0].Group != "meta" || s.Scales[0].Param != "workers" || s.Scales[1].Group != "get" || s.Scales[1].Param != "concurrent" {
		t.Fatalf("scales in summary.json: %+v", s.Scales)
	}
	meta := map[string]string{"workers": "workers", "concurrent": "concurrent"}
	for _, p := range s.Phases {
		hr, err := results.ReadHostResult(folder, p.Dir, p.Hosts[0])
		if err != nil {
			t.Fatal(err)
		}
		if p.Scale == nil || hr.Meta[meta[p.Scale.Param]] != strconv.Itoa(p.Scale.Load) {
			t.Errorf("step %s (%+v) ran with %v", p.Name, p.Scale, hr.Meta)
		}
	}
	for _, sc := range s.Scales {
		if sc.StopKind == "" || len(sc.Steps) == 0 {
			t.Errorf("scale %s did not say why it stopped: %+v", sc.Group, sc)
		}
	}
}
