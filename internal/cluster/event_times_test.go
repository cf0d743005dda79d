package cluster

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/events"
	"github.com/storbench/storbench/internal/model"
)

// A pause on a remote agent whose clock is 5 s ahead (accepted: --max-clock-offset) answers with when
// the host's load stopped and went on, in the controller's clock: within
// the time the controller waited for the answer, and as long as the pause.
func TestPauseTimesInTheControllersClock(t *testing.T) {
	ta := startAgent(t, "h0", func(s *Server) { s.ClockSkew = 5 * time.Second })
	ra := remoteFor(ta, "h0")
	c := newController(ra)
	c.MaxClockOffset = -1
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	params, _ := json.Marshal(map[string]any{"dir": t.TempDir(), "items": 100000000, "workers": 1, "files_only": true, "stonewall": "2s", "only": []string{"create"}})
	ran := make(chan error, 1)
	go func() {
		_, err := c.RunPhase(context.Background(), "times", false, engine.Phase{Name: "md", Engine: "md", Params: params})
		ran <- err
	}()
	time.Sleep(time.Second)
	before := time.Now()
	o := ra.Event(context.Background(), events.Action{Kind: model.EventPause, PauseNs: int64(300 * time.Millisecond)})
	after := time.Now()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	if o.Error != "" {
		t.Fatal(o.Error)
	}
	began, ended := time.Unix(0, o.StartNs), time.Unix(0, o.EndNs)
	if began.Before(before) || ended.After(after) || ended.Sub(began) < 300*time.Millisecond {
		t.Errorf("the pause ran %s to %s by the answer, want within %s to %s, 300 ms long", began.Format("15:04:05.000"), ended.Format("15:04:05.000"), before.Format("15:04:05.000"), after.Format("15:04:05.000"))
	}
}
