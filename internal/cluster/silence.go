package cluster

import (
	"fmt"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// silenceTimer is how long a stream waits for the agent's next line.
// Time this controller itself could not run (stopped, or starved of CPU)
// is not the agent's silence: its lines may wait unread in the socket
// meanwhile, and the agent, starved too, does not count that time against
// this controller either (beatWatch). A timer that fired late so measures
// this controller's own lateness, and waits that much more (up to one
// silence in all, since the last line) for the reader to take what came.
type silenceTimer struct {
	*time.Timer
	armed time.Time     // when the timer was last set
	wait  time.Duration // for how long
	extra time.Duration // waited more, since the last line, for this controller's lateness
}

// lateSlack is how late a silence timer may fire and still count as on
// time: a timer a few milliseconds late on a busy machine is no stop.
const lateSlack = 20 * time.Millisecond

func newSilenceTimer(d time.Duration) *silenceTimer {
	return &silenceTimer{Timer: time.NewTimer(d), armed: time.Now(), wait: d}
}

// reset waits d from now: a line came (or the wait changed).
func (s *silenceTimer) reset(d time.Duration) {
	s.Reset(d)
	s.armed, s.wait, s.extra = time.Now(), d, 0
}

// waitMore takes the timer's firing at now, limit being the stream's
// silence: when the timer was late, it waits again as long (up to limit
// in all since the last line) and says so; false is the agent lost.
func (s *silenceTimer) waitMore(now time.Time, limit time.Duration) bool {
	d := s.again(now, limit)
	if d > 0 {
		s.Reset(d)
	}
	return d > 0
}

// again is how much longer to wait after a firing at now: as long as the
// timer was late, or 0 when the agent is lost.
func (s *silenceTimer) again(now time.Time, limit time.Duration) time.Duration {
	late := now.Sub(s.armed) - s.wait
	if late <= lateSlack || s.extra >= limit {
		return 0
	}
	d := min(late, limit-s.extra)
	s.extra += d
	s.armed, s.wait = now, d
	return d
}

// lateText says, for the lost message, how much longer the stream waited
// for this controller's own lateness.
func (s *silenceTimer) lateText() string {
	if s.extra <= 0 {
		return ""
	}
	return fmt.Sprintf(" (and %s more while this controller's own timer ran late)", s.extra.Round(100*time.Millisecond))
}

// pass gives a line's news to whom it is for: a snapshot to the live
// line, an arrival at a barrier to arrive, an agent's question whether
// it leaves the phase last to leave.
func (l *line) pass(live engine.LiveFunc, arrive func(arriveLine), leave func()) {
	if l.Snapshot != nil && live != nil {
		live(*l.Snapshot)
	}
	if l.Arrive != nil && arrive != nil {
		arrive(*l.Arrive)
	}
	if l.Leave {
		leave()
	}
}
