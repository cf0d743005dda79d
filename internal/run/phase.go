package run

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/suite"
)

// applyLabel copies a phase's place in its suite into its summary, and the
// suite's choice of headline; without one (from the suite or the engine's
// result), the engine's default for the phase's matrix point; and what
// the engine calls its rates and the text formats it offers.
func applyLabel(engines engine.Registry, ph engine.Phase, ps *results.PhaseSummary, l suite.Labels) {
	ps.Group, ps.Iteration = l.Group, l.Iteration
	if l.Scale != nil {
		st := *l.Scale
		ps.Scale = &st
	}
	point := map[string]string{}
	for _, kv := range l.Point {
		ps.Point = append(ps.Point, results.KV{Key: kv.Key, Value: kv.Value})
		point[kv.Key] = kv.Value
	}
	if l.Report != "" {
		ps.Report = l.Report
	}
	if ps.Report == "" {
		ps.Report = engines.Headline(ph, point)
	}
	ps.RateUnit = engines.RateUnit(ps.Engine)
	ps.Formats = engines.TextFormats(ps.Engine)
}

// ranksOf is the global worker ranks the hosts of a phase report (md), by
// the phase's folder in the results folder; ok is false when no host
// numbered its workers.
func ranksOf(phaseDir string, hosts []*model.HostResult) (model.PhaseRanks, bool) {
	pr := model.PhaseRanks{Phase: phaseDir}
	for _, h := range hosts {
		if h == nil {
			continue
		}
		first, err1 := strconv.Atoi(h.Meta[model.MetaRankFirst])
		n, err2 := strconv.Atoi(h.Meta[model.MetaRanks])
		if err1 != nil || err2 != nil {
			continue
		}
		pr.Hosts = append(pr.Hosts, model.HostRanks{Host: h.Host, First: first, Count: n})
		pr.Total += n
	}
	return pr, len(pr.Hosts) > 0
}

func statusOf(ctx context.Context, err error) string {
	switch {
	case ctx.Err() != nil:
		return results.StatusInterrupted
	case err != nil:
		return results.StatusFailed
	}
	return results.StatusCompleted
}

// stopText is errText, except that a phase the run's interrupt ended
// says what interrupted it (the signal), not Go's "context canceled".
func stopText(ctx context.Context, err error) string {
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		if c := context.Cause(ctx); c != nil && c != context.Canceled {
			return c.Error()
		}
	}
	return errText(err)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// errorShare says why a phase failed too often, or "" when it did not:
// more than maxPct percent of its requests failed, or a host could not
// reach an endpoint for more than maxPct percent of its run (with backoff
// on connection errors, a dead server fails few requests: its time counts).
func errorShare(ps *results.PhaseSummary, maxPct float64) string {
	var ok, failed uint64
	for _, o := range ps.Ops {
		ok += o.Ops
		failed += o.Errors
	}
	if failed > 0 {
		if share := 100 * float64(failed) / float64(ok+failed); share > maxPct {
			return fmt.Sprintf("%.1f%% of requests failed (%d of %d), more than --max-error-share %g%%", share, failed, ok+failed, maxPct)
		}
	}
	for _, h := range ps.PerHost {
		var run float64
		for _, o := range h.Ops {
			run = max(run, o.DurationS)
		}
		for _, u := range h.Unreachable {
			if run > 0 && 100*u.Seconds/run > maxPct {
				return fmt.Sprintf("%s could not reach %s for %.1fs of %.1fs (%.0f%%), more than --max-error-share %g%%",
					h.Host, u.Endpoint, u.Seconds, run, 100*u.Seconds/run, maxPct)
			}
		}
	}
	return ""
}

// countLeftovers says how much was left in a few words.
func countLeftovers(left []engine.Leftover) string {
	hosts := map[string]bool{}
	for _, l := range left {
		hosts[l.Host] = true
	}
	places := "1 place"
	if len(left) != 1 {
		places = fmt.Sprintf("%d places", len(left))
	}
	if len(hosts) == 1 {
		return "files or objects in " + places + " on 1 host"
	}
	return fmt.Sprintf("files or objects in %s on %d hosts", places, len(hosts))
}

// gaveUpStarved reports whether every host that failed the phase failed
// because its tool gave up for want of CPU (model.ClientLoad.Gave): a
// host lost or stopped is not such a failure, and neither is a phase no
// host failed.
func gaveUpStarved(out *cluster.Outcome) bool {
	skip := map[string]bool{}
	for _, h := range append(append([]string(nil), out.Lost...), out.Stopped...) {
		skip[h] = true
	}
	gave := map[string]bool{}
	for _, r := range out.Results {
		if r != nil && r.Client != nil && r.Client.Gave != "" {
			gave[r.Host] = true
		}
	}
	failed := 0
	for h := range out.Errors {
		if skip[h] {
			continue
		}
		if !gave[h] {
			return false
		}
		failed++
	}
	return failed > 0
}
