package run

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/exit"
	"github.com/storbench/storbench/internal/figures"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/suite"
)

// A plan of two phases runs end to end through the controller and the
// in-process agent, without the command line: the sink hears the run start,
// each phase start on this machine, live progress and each phase end, in
// that order; the results folder holds run.json (the plan without its
// secret, the agent typed), summary.json with both phases' figures and
// their suite labels, and report.html.
func TestRunEndToEnd(t *testing.T) {
	r, sink, root := runner(t)
	p := Plan{
		Name: "two", ResultsRoot: root, CommandLine: []string{"storbench", "test"},
		Phases: []engine.Phase{
			fakePhaseOf(t, "p1", fakeParams{Ops: 1000, RunMs: 1500, Secret: "SKsbFakeSecret1"}),
			fakePhaseOf(t, "p2", fakeParams{Ops: 500, RunMs: 200}),
		},
		Labels: []suite.Labels{{Group: "g", Iteration: 1, Iterations: 1, Report: model.HeadlineIOPS}, {Group: "g2", Iteration: 1, Iterations: 1}},
		Notes:  []string{"a phase was skipped"},
	}
	res, err := r.Run(t.Context(), p)
	if err != nil {
		t.Fatalf("run: %v\n%v", err, sink.events)
	}
	hn := hostname()
	want := []string{"started", "note 0 a phase was skipped",
		"phase started p1 on [" + hn + "]", "phase done p1 completed ran=true",
		"phase started p2 on [" + hn + "]", "phase done p2 completed ran=true"}
	if !slices.Equal(sink.events, want) {
		t.Errorf("the sink heard\n%s\nwant\n%s", strings.Join(sink.events, "\n"), strings.Join(want, "\n"))
	}
	if sink.progress == 0 {
		t.Error("no progress during a phase of 1.5 s")
	}
	if sink.startedIn != res.Folder.Path || !strings.HasPrefix(res.Folder.Path, root) {
		t.Errorf("folder %s, sink told %s, want under %s", res.Folder.Path, sink.startedIn, root)
	}
	sum := res.Summary
	if sum.Status != results.StatusCompleted || len(sum.Phases) != 2 {
		t.Fatalf("summary: status %s, %d phases", sum.Status, len(sum.Phases))
	}
	p1 := sum.Phases[0]
	if p1.Group != "g" || p1.Report != model.HeadlineIOPS || len(p1.Ops) != 1 || p1.Ops[0].Ops != 1000 || p1.Timing == nil {
		t.Errorf("phase p1: %+v", p1)
	}
	run, err := os.ReadFile(filepath.Join(res.Folder.Path, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var info model.RunInfo
	if err := json.Unmarshal(run, &info); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(run), "SKsbFakeSecret1") || !strings.Contains(string(info.Plan[0].Params), "REDACTED") {
		t.Errorf("run.json's plan keeps the secret: %s", info.Plan[0].Params)
	}
	if len(info.Agents) != 1 || info.Agents[0].Host != hn || info.Agents[0].Version != "test" || info.Status != results.StatusCompleted {
		t.Errorf("run.json: agents %+v, status %s", info.Agents, info.Status)
	}
	for _, f := range []string{"summary.json", "summary.md", "report.html"} {
		if _, err := os.Stat(filepath.Join(res.Folder.Path, f)); err != nil {
			t.Error(err)
		}
	}
}

// How a run ends decides what its caller does (the command line's exit
// code): bad input leaves no results folder; a failed phase stops the run
// and the folder says failed; a target that lacks a feature, found before
// any load, is bad input and leaves no folder either;
// a phase that left something behind fails the run after every phase ran;
// too many failed requests fail their phase but later phases run; an
// interrupt keeps what finished.
func TestRunOutcomes(t *testing.T) {
	for _, c := range []struct {
		name   string
		phases []fakeParams
		// stopAfter cancels the run's context this long after it started.
		stopAfter time.Duration
		kind      int // the exit code
		msg       string
		// folder is the status run.json ends with; "" for no folder.
		folder string
		// statuses are the phases' statuses in summary.json.
		statuses []string
		// limits are the plan's limits: a crossed one exits 4 once
		// every phase ran, and what else went wrong wins over it.
		limits []string
	}{
		{name: "unknown setting", phases: []fakeParams{{Ops: 1}}, kind: BadInput, msg: "phase p0:"},
		{name: "preparation fails", phases: []fakeParams{{Ops: 1}, {FailPrepare: "disk on fire"}, {Ops: 1}}, kind: Failed, msg: "disk on fire",
			folder: results.StatusFailed, statuses: []string{results.StatusCompleted, results.StatusFailed}},
		{name: "unsupported before any load", phases: []fakeParams{{Unsupported: true}, {Ops: 1}}, kind: BadInput, msg: "the target cannot do this"},
		{name: "left behind", phases: []fakeParams{{Ops: 1, Leave: true}, {Ops: 1}}, kind: Failed, msg: "cleanup left files or objects in 1 place on 1 host",
			folder: results.StatusFailed, statuses: []string{results.StatusCompleted, results.StatusCompleted}},
		{name: "too many errors", phases: []fakeParams{{Ops: 90, Errors: 10}, {Ops: 1}}, kind: Failed, msg: "10.0% of requests failed",
			folder: results.StatusFailed, statuses: []string{results.StatusFailed, results.StatusCompleted}},
		{name: "interrupted", phases: []fakeParams{{Ops: 1}, {UntilStop: true}, {Ops: 1}}, stopAfter: 2 * time.Second, kind: Interrupted, msg: "interrupted; results so far are kept",
			folder: results.StatusInterrupted, statuses: []string{results.StatusCompleted, results.StatusInterrupted}},
		{name: "limit crossed", phases: []fakeParams{{Ops: 1}, {Ops: 1}}, limits: []string{"p0/op/errors<1", "p1/op/errors>=1"}, kind: exit.LimitCrossed, msg: "crossed 1 limit(s): p1/op/errors>=1",
			folder: results.StatusCompleted, statuses: []string{results.StatusCompleted, results.StatusCompleted}},
		{name: "a failed phase wins over a crossed limit", phases: []fakeParams{{Ops: 1}, {FailPrepare: "disk on fire"}}, limits: []string{"p0/op/errors>=1"}, kind: Failed, msg: "disk on fire",
			folder: results.StatusFailed, statuses: []string{results.StatusCompleted, results.StatusFailed}},
		{name: "leftovers win over a crossed limit", phases: []fakeParams{{Ops: 1, Leave: true}}, limits: []string{"p0/op/errors>=1"}, kind: Failed, msg: "cleanup left",
			folder: results.StatusFailed, statuses: []string{results.StatusCompleted}},
		{name: "an interrupt wins over a crossed limit", phases: []fakeParams{{Ops: 1}, {UntilStop: true}}, limits: []string{"p0/op/errors>=1"}, stopAfter: 2 * time.Second, kind: Interrupted, msg: "interrupted",
			folder: results.StatusInterrupted, statuses: []string{results.StatusCompleted, results.StatusInterrupted}},
		{name: "a limit on no phase", phases: []fakeParams{{Ops: 1}}, limits: []string{"p9/op/errors<1"}, kind: BadInput, msg: "no phase p9"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, sink, root := runner(t)
			p := Plan{Name: "outcome", ResultsRoot: root, MaxErrorShare: 5}
			for i, fp := range c.phases {
				p.Phases = append(p.Phases, fakePhaseOf(t, "p"+string(rune('0'+i)), fp))
			}
			for _, l := range c.limits {
				lim, err := figures.ParseLimit(l)
				if err != nil {
					t.Fatal(err)
				}
				p.Limits = append(p.Limits, lim)
			}
			if c.name == "unknown setting" {
				p.Phases[0].Params = json.RawMessage(`{"ops": 1, "colour": "blue"}`)
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if c.stopAfter > 0 {
				time.AfterFunc(c.stopAfter, cancel)
			}
			res, err := r.Run(ctx, p)
			var re *Error
			if !errors.As(err, &re) || re.Code != c.kind || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("error %v (%T), want kind %d saying %q\n%s", err, err, c.kind, c.msg, strings.Join(sink.events, "\n"))
			}
			if c.folder == "" {
				if res != nil || len(folders(t, root)) != 0 {
					t.Errorf("bad input left a results folder: %v", folders(t, root))
				}
				return
			}
			var got []string
			for _, ps := range res.Summary.Phases {
				got = append(got, ps.Status)
			}
			if res.Summary.Status != c.folder || !slices.Equal(got, c.statuses) {
				t.Errorf("run %s with phases %v, want %s with %v", res.Summary.Status, got, c.folder, c.statuses)
			}
			b, _ := os.ReadFile(filepath.Join(res.Folder.Path, "run.json"))
			if !strings.Contains(string(b), `"status": "`+c.folder+`"`) {
				t.Errorf("run.json does not say %s:\n%s", c.folder, b)
			}
		})
	}
}
