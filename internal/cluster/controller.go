package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// Controller takes every agent through each phase together: prepare on all,
// start all at one absolute time, run, collect, clean up on all.
type Controller struct {
	Agents []Agent
	// Lead is how far ahead of the end of preparation the common start time is
	// set, so that every agent is waiting when it comes.
	Lead time.Duration
	// Progress, if set, is called about once a second while a phase runs,
	// from one goroutine.
	Progress func(Progress)
}

// Progress is the live state of a phase across hosts.
type Progress struct {
	Phase   string
	Elapsed time.Duration
	// Hosts holds each host's latest snapshot, in agent order; a host that
	// has sent none yet has a zero Snapshot with only Host set.
	Hosts []engine.Snapshot
}

// Outcome is what a phase produced on every host.
type Outcome struct {
	// Results holds one result per host that returned one, in agent order.
	Results []*engine.HostResult
	// Lost names hosts that failed without a result.
	Lost []string
	// Errors holds each failing host's error, by host.
	Errors map[string]error
	// Start and End bound the run stage as the controller saw it.
	Start, End time.Time
	// Prepare and Cleanup are how long those stages took on the slowest host.
	Prepare, Cleanup time.Duration
}

// RunPhase runs one phase on every agent. It returns an error when the phase
// could not start (preparation failed) or was interrupted; a host that fails
// while others finish is reported in the Outcome, and the error names it.
func (c *Controller) RunPhase(ctx context.Context, runID string, keep bool, p engine.Phase) (*Outcome, error) {
	req := Request{RunID: runID, Keep: keep, Phase: p}
	n := len(c.Agents)
	if n == 0 {
		return nil, errors.New("no agents")
	}

	prepStart := time.Now()
	prepErrs := make([]error, n)
	c.each(func(i int, a Agent) { prepErrs[i] = a.Prepare(ctx, req) })
	prepared := time.Now()
	if err := firstErr(c.Agents, prepErrs); err != nil {
		c.cleanup(prepErrs)
		return nil, err
	}

	out := &Outcome{Errors: map[string]error{}, Start: prepared.Add(c.Lead), Prepare: prepared.Sub(prepStart)}
	var mu sync.Mutex
	latest := make([]engine.Snapshot, n)
	for i, a := range c.Agents {
		latest[i].Host = a.Name()
	}
	stopTick := make(chan struct{})
	tickDone := make(chan struct{})
	go func() {
		defer close(tickDone)
		if c.Progress == nil {
			<-stopTick
			return
		}
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stopTick:
				return
			case now := <-t.C:
				mu.Lock()
				snap := append([]engine.Snapshot(nil), latest...)
				mu.Unlock()
				c.Progress(Progress{Phase: p.Name, Elapsed: now.Sub(out.Start), Hosts: snap})
			}
		}
	}()

	results := make([]*engine.HostResult, n)
	runErrs := make([]error, n)
	c.each(func(i int, a Agent) {
		results[i], runErrs[i] = a.Run(ctx, out.Start, func(s engine.Snapshot) {
			mu.Lock()
			latest[i] = s
			mu.Unlock()
		})
	})
	close(stopTick)
	<-tickDone
	out.End = time.Now()

	for i, a := range c.Agents {
		if results[i] != nil {
			if results[i].Host == "" {
				results[i].Host = a.Name()
			}
			out.Results = append(out.Results, results[i])
		} else if runErrs[i] != nil {
			out.Lost = append(out.Lost, a.Name())
		}
		if runErrs[i] != nil {
			out.Errors[a.Name()] = runErrs[i]
		}
	}
	cleanStart := time.Now()
	c.cleanup(make([]error, n))
	out.Cleanup = time.Since(cleanStart)
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	return out, firstErr(c.Agents, runErrs)
}

// cleanup cleans up every agent whose preparation did not fail. It uses its
// own context: cleanup must happen even after an interrupt.
func (c *Controller) cleanup(prepErrs []error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c.each(func(i int, a Agent) {
		if prepErrs[i] == nil {
			_ = a.Cleanup(ctx)
		}
	})
}

func (c *Controller) each(fn func(i int, a Agent)) {
	var wg sync.WaitGroup
	for i, a := range c.Agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(i, a)
		}()
	}
	wg.Wait()
}

// firstErr returns the first error, naming its host when there are several.
func firstErr(agents []Agent, errs []error) error {
	for i, err := range errs {
		if err != nil {
			if len(agents) > 1 {
				return fmt.Errorf("%s: %w", agents[i].Name(), err)
			}
			return err
		}
	}
	return nil
}
