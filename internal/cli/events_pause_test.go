package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/testutil"
)

// storbench's own fault action: one host's load paused for 2 s, 2 s into
// a 10-s s3 phase against a real versitygw. The figure falls to about
// nothing and comes back within a few seconds of the pause's start, said
// in summary.json. Recovery needs three good seconds in a row, and a busy
// machine may spoil one or two: the phase leaves six after the pause. (fio and md phases pause too: internal/events'
// TestPauseFioAndMd.) The rate is one a starved client keeps: at 200 ops/s
// and a load of 30 the client ran 0.33 MiB/s of 0.78 and no second after
// the pause came within 90% of it.
func TestEventPausesLoad(t *testing.T) {
	needFio(t)
	srv := s3test.StartT(t, s3test.Options{})
	self := cluster.HostName(hostname())
	data, res := t.TempDir(), t.TempDir()
	suite := fmt.Sprintf(`name: pause
dir: %s
s3: {bucket: storbench-pause}
phases:
  - name: get
    s3: {op: get, objects: 20, obj_size: 4KiB, concurrent: 2, rate: 50, duration: 10s}
    events:
      - {name: hold, at: 2s, pause: 2s, host: %s}
`, data, self)
	file := filepath.Join(t.TempDir(), "suite.yaml")
	if err := os.WriteFile(file, []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	st, out := testState()
	// How late this machine wakes a timer while the phase runs: the
	// pause's end and the recovery may be that much later (twice: one
	// wake-up to end the pause, one for the load to start again).
	late := testutil.StartLateness()
	env := map[string]string{"STORBENCH_HOST": srv.Endpoint, "STORBENCH_ACCESS_KEY": s3test.AccessKey, "STORBENCH_SECRET_KEY": s3test.SecretKey}
	st.Getenv = func(k string) string { return env[k] }
	if err := Execute(context.Background(), st, []string{"run", file, "--results", res}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	slack := 2 * late.Stop().Seconds()
	folders, _ := filepath.Glob(filepath.Join(res, "*"))
	if len(folders) != 1 {
		t.Fatalf("results: %v", folders)
	}
	sum, err := results.ReadSummary(folders[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sum.Phases {
		if len(p.Events) != 1 || p.Events[0].Error != "" || p.Events[0].EndS == nil {
			t.Errorf("phase %s: events %+v", p.Name, p.Events)
			continue
		}
		e := p.Events[0]
		if took := *e.EndS - *e.StartS; took < 1.9 || took > 3+slack {
			t.Errorf("phase %s: the pause lasted %.1fs, want 2s (up to %.1fs on this machine's timers)", p.Name, took, 3+slack)
		}
		if len(e.Impact) != 1 {
			t.Errorf("phase %s: impact %+v", p.Name, e.Impact)
			continue
		}
		im := e.Impact[0]
		t.Logf("phase %s: before %g %s, lowest %g at %gs, %gs under 90%%, recovered after %s s", p.Name, im.Before, im.Unit, im.Lowest, im.LowestAtS, im.BelowS, recoverText(im))
		if im.Lowest > 0.1*im.Before || im.RecoverS == nil || *im.RecoverS < 1.5 || *im.RecoverS > 4.5+slack {
			t.Errorf("phase %s: before %g, lowest %g %s, recovered after %v s: want a dip to about nothing and back in 2-3 s (up to %.1f s on this machine's timers)", p.Name, im.Before, im.Lowest, im.Unit, recoverText(im), 4.5+slack)
		}
	}
}

// recoverText is an impact's recovery time, or "absent".
func recoverText(im model.EventImpact) string {
	if im.RecoverS == nil {
		return "absent"
	}
	return fmt.Sprint(*im.RecoverS)
}
