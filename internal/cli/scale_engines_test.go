package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/s3test"
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
