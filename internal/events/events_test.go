package events

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
)

// A command that outlives its timeout is killed with what it started in
// the background (its child never writes the file it would write after
// 2 s), within a bounded time, and says so; one that exits says its
// status and output, cut at model.EventOutputMax.
func TestRunCommandBounded(t *testing.T) {
	late := filepath.Join(t.TempDir(), "late")
	start := time.Now()
	o := RunCommand(context.Background(), "(sleep 2; touch "+late+") & sleep 600", 300*time.Millisecond, nil)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the hung command held %s", took)
	}
	if o.Exit != nil || !strings.Contains(o.Error, "timed out after 300ms") {
		t.Errorf("hung: exit %v, error %q", o.Exit, o.Error)
	}
	time.Sleep(2500 * time.Millisecond)
	if _, err := os.Stat(late); err == nil {
		t.Error("the hung command's background child outlived it")
	}
	o = RunCommand(context.Background(), "echo $STORBENCH_X; head -c 9000 /dev/zero; exit 4", time.Minute, []string{"STORBENCH_X=seen"})
	if o.Exit == nil || *o.Exit != 4 || !strings.HasPrefix(o.Output, "seen\n") || len(o.Output) != model.EventOutputMax || !o.Truncated {
		t.Errorf("exit %v, %d bytes of output (truncated %v), starting %q", o.Exit, len(o.Output), o.Truncated, o.Output[:min(10, len(o.Output))])
	}
}

// Events run at their time from the phase's start, an after: share of the
// planned duration included; one still due when the phase ends is
// recorded as not run, without waiting for it.
func TestScheduleTimes(t *testing.T) {
	var ran []string
	done := make(chan string, 3)
	local := func(ctx context.Context, a Action) Outcome { done <- a.Command; return Outcome{} }
	specs := []Spec{
		{Name: "a", At: 100 * time.Millisecond, Action: model.EventCommand, Command: "a", Timeout: time.Second},
		{Name: "b", AfterPct: 50, Action: model.EventCommand, Command: "b", Timeout: time.Second},
		{Name: "c", At: time.Hour, Action: model.EventCommand, Command: "c", Timeout: time.Second},
		{Name: "d", At: 0, Host: "elsewhere", Action: model.EventCommand, Command: "d", Timeout: time.Second},
	}
	start := time.Now()
	s := Start(context.Background(), specs, 600*time.Millisecond, start, local, func(string) (Executor, bool) { return nil, false }, nil)
	for range 2 {
		ran = append(ran, <-done)
	}
	recs := s.Stop()
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Stop waited %s for an event an hour away", took)
	}
	if strings.Join(ran, ",") != "a,b" {
		t.Errorf("ran %v, want a then b", ran)
	}
	for i, want := range []float64{0.1, 0.3} {
		r := recs[i]
		if r.StartS == nil || *r.StartS < want || *r.StartS > want+0.5 || r.PlannedS != want {
			t.Errorf("%s: planned %g s, started %v s, want %g", r.Name, r.PlannedS, r.StartS, want)
		}
	}
	if recs[2].StartS != nil || !strings.HasPrefix(recs[2].Error, "not run: the phase's load ended") {
		t.Errorf("c: %+v", recs[2])
	}
	if recs[3].StartS != nil || !strings.Contains(recs[3].Error, "elsewhere") {
		t.Errorf("d: %+v", recs[3])
	}
}

// An action that says when it itself began and ended on its host (a
// pause: when the load stopped and went on) is recorded at those times,
// not at the request's and answer's: the pause marks on the per-second
// charts and the seconds analyze calls paused are the host's.
func TestScheduleRecordsTheActionsOwnTimes(t *testing.T) {
	start := time.Now()
	own := [2]time.Time{start.Add(150 * time.Millisecond), start.Add(250 * time.Millisecond)}
	host := func(ctx context.Context, a Action) Outcome {
		time.Sleep(400 * time.Millisecond)
		return Outcome{StartNs: own[0].UnixNano(), EndNs: own[1].UnixNano()}
	}
	specs := []Spec{{Name: "p", At: 50 * time.Millisecond, Host: "h", Action: model.EventPause, Pause: 100 * time.Millisecond}}
	s := Start(context.Background(), specs, time.Second, start, nil, func(string) (Executor, bool) { return host, true }, nil)
	time.Sleep(600 * time.Millisecond)
	r := s.Stop()[0]
	if r.Start == nil || !r.Start.Equal(own[0]) || r.End == nil || !r.End.Equal(own[1]) || r.StartS == nil || *r.StartS != 0.15 {
		t.Errorf("recorded %v-%v (%v s), want the host's %v-%v (0.15 s)", r.Start, r.End, deref(r.StartS), own[0], own[1])
	}
}

// An answer whose own times lie outside the request's (a misread clock
// offset, a malformed answer: negative, zero-length, reversed, far in the
// future) is held to the request's times, never recorded outside them.
func TestScheduleHoldsTheActionsTimesToTheRequest(t *testing.T) {
	start := time.Now()
	far := start.Add(1000 * time.Hour).UnixNano()
	for _, o := range []Outcome{
		{StartNs: -5, EndNs: -1},
		{StartNs: far, EndNs: far + 1},
		{StartNs: start.Add(time.Second).UnixNano(), EndNs: start.UnixNano()},
		{StartNs: 1, EndNs: far},
	} {
		began := make(chan struct{})
		host := func(ctx context.Context, a Action) Outcome {
			close(began)
			time.Sleep(50 * time.Millisecond)
			return o
		}
		specs := []Spec{{Name: "p", At: 0, Host: "h", Action: model.EventPause, Pause: time.Millisecond}}
		t0 := time.Now()
		s := Start(context.Background(), specs, time.Second, start, nil, func(string) (Executor, bool) { return host, true }, nil)
		<-began
		r := s.Stop()[0]
		t1 := time.Now()
		if r.Start == nil || r.End == nil || r.Start.Before(t0) || r.End.After(t1) || r.End.Before(*r.Start) {
			t.Errorf("answer %d..%d: recorded %v..%v, want within the request's %v..%v", o.StartNs, o.EndNs, r.Start, r.End, t0, t1)
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
