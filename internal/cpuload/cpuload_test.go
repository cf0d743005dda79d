package cpuload

import (
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
)

// hog starts n busy loops outside this process's tree (each reparented
// once its shell exits), as other work on the host is, and stops them
// when the test ends.
func hog(t *testing.T, n int) {
	t.Helper()
	out, err := exec.Command("sh", "-c", `for i in $(seq `+strconv.Itoa(n)+`); do (while :; do :; done) </dev/null >/dev/null 2>&1 & echo $!; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(out)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	}
}

// Two busy loops per CPU beside a phase that itself needs little: other
// work took most of the host's CPU, and the phase says it was starved,
// with the load it saw. Before, nothing measured it: a starved client's
// figures passed as the storage's.
func TestOtherWorkMarksTheClientStarved(t *testing.T) {
	hog(t, 2*runtime.NumCPU())
	time.Sleep(200 * time.Millisecond) // the loops are running
	m := Start(time.Now())
	// Long enough for the kernel's 10-ms ticks to give shares.
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
	}
	c := m.Stop()
	if c == nil || c.OthersPct == nil || c.LoadEnd == nil || c.CPUs != runtime.NumCPU() {
		t.Fatalf("figures not taken: %+v", c)
	}
	if *c.OthersPct < StarvedOthersPct || !c.Starved || !strings.Contains(c.Why, "other work took") || !strings.Contains(c.Why, "load average") {
		t.Errorf("two busy loops per CPU: others %.0f%%, starved %v (%q); want at least %.0f%%, starved, said with the load", *c.OthersPct, c.Starved, c.Why, StarvedOthersPct)
	}
}

// A run stopped before its start measured nothing: no figures, not zeros.
func TestStoppedBeforeItsStartMeasuresNothing(t *testing.T) {
	if c := Start(time.Now().Add(time.Hour)).Stop(); c != nil {
		t.Errorf("a run that never began: %+v, want none", c)
	}
}

// A tool that gave up for want of CPU marks the host starved whatever
// the figures, and keeps the measured figures beside it.
func TestGaveUpIsStarved(t *testing.T) {
	low := 1.0
	m := &model.ClientLoad{ClientSummary: model.ClientSummary{OthersPct: &low}}
	c := Merge(m, GaveUp(nil, "fio gave up"))
	if !c.Starved || c.OthersPct == nil || !strings.Contains(c.Why, "fio gave up") {
		t.Errorf("got %+v, want starved for fio's giving up, the figures kept", c)
	}
	fresh := &model.ClientLoad{ClientSummary: model.ClientSummary{OthersPct: &low}}
	if Merge(fresh, nil) != fresh || fresh.Starved {
		t.Errorf("no engine mark: %+v, want the measured figures alone, not starved", fresh)
	}
}
