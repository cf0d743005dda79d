package cluster

import (
	"strings"
	"testing"
	"time"
)

// The controller's silence timer counts its own lateness out of an
// agent's silence: fired on time, the agent is lost; fired 3 s late (this
// controller stopped), it waits 3 s more for lines that may wait unread;
// late again, it waits more, but at most one silence in all since the
// last line, and the lost message says so.
func TestSilenceTimerDiscountsTheControllersOwnLateness(t *testing.T) {
	const silence = 5 * time.Second
	t0 := time.Now()
	s := newSilenceTimer(silence)
	defer s.Stop()
	s.armed = t0
	if d := s.again(t0.Add(silence+5*time.Millisecond), silence); d != 0 {
		t.Errorf("fired on time (5 ms late), it waits %s more; want the agent lost", d)
	}
	if s.lateText() != "" {
		t.Errorf("no lateness, yet the message says %q", s.lateText())
	}

	s.reset(silence)
	s.armed = t0
	now := t0.Add(silence + 3*time.Second)
	if d := s.again(now, silence); d != 3*time.Second {
		t.Fatalf("fired 3 s late, it waits %s more; want 3s", d)
	}
	now = now.Add(3*time.Second + 4*time.Second)
	if d := s.again(now, silence); d != 2*time.Second {
		t.Fatalf("fired 4 s late again, it waits %s more; want the 2s left of one silence", d)
	}
	now = now.Add(2*time.Second + 10*time.Second)
	if d := s.again(now, silence); d != 0 {
		t.Errorf("after one silence more in all, it waits %s more; want the agent lost", d)
	}
	if got := s.lateText(); !strings.Contains(got, "5s more while this controller's own timer ran late") {
		t.Errorf("the lost message's addition: %q", got)
	}

	// A line resets the discount.
	s.reset(silence)
	s.armed = t0
	if d := s.again(t0.Add(silence+time.Second), silence); d != time.Second {
		t.Errorf("after a line, fired 1 s late, it waits %s more; want 1s", d)
	}
}
