package cluster

import (
	"context"
	"sync"
)

// atOnce is how many agents the controller calls at once: connects to,
// measures the clock of, or asks to begin a stage (prepare, run, cleanup,
// settle, resources) until the agent first answers. 10,000 requests at
// once waited so long for a CPU here that the calls timed out and agents
// closed connections as too slow; and a clock sample's offset is off by up
// to half its round trip: sampling 10,000 agents at once made round trips
// of seconds, and offsets over a second between processes of one machine.
const atOnce = 64

// slot waits for one of atOnce slots and returns its release.
func (c *Controller) slot(ctx context.Context) (func(), error) {
	c.slotsOnce.Do(func() { c.slots = make(chan struct{}, atOnce) })
	select {
	case c.slots <- struct{}{}:
		return func() { <-c.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// answerer is an agent whose stages say when the agent first answered
// (answered), so that a stage holds its slot only until then
// (RemoteAgent); another agent (in this process) frees its slot at once.
type answerer interface{ answers() }

// answeredKey is the context key of a stage's answered function.
type answeredKey struct{}

// answered returns the function a stage called with ctx calls once the
// agent first answered (or the call failed): it frees the stage's slot.
func answered(ctx context.Context) func() {
	if f, ok := ctx.Value(answeredKey{}).(func()); ok {
		return f
	}
	return func() {}
}

// fanOut calls stage on every agent at once and waits for all; each call
// begins in a slot, held until the agent first answered: the requests in
// flight are bounded, the stages are not (10,000 preparations still run
// together, and every agent's run stream is open at the common start).
// When ctx ends while waiting for a slot, the stage is called at once: it
// sees ctx ended and stops as it would have.
func (c *Controller) fanOut(ctx context.Context, agents []Agent, stage func(ctx context.Context, i int, a Agent)) {
	each(agents, func(i int, a Agent) {
		free := func() {}
		if release, err := c.slot(ctx); err == nil {
			free = sync.OnceFunc(release)
		}
		defer free()
		sctx := ctx
		if _, ok := a.(answerer); ok {
			sctx = context.WithValue(ctx, answeredKey{}, free)
		} else {
			free()
		}
		stage(sctx, i, a)
	})
}
