// Package run runs a plan of phases as one run: it finds the agents (this
// machine in-process, hosts over the network, or hosts started with ssh),
// takes every phase through the controller, writes the results folder as
// it goes, and tells a Sink what happens. Every command that measures (run,
// fio, md, s3) builds a Plan and hands it to a Runner; the command line
// only turns flags into the Plan and prints what the Sink hears.
package run

import (
	"time"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/figures"
	"github.com/storbench/storbench/internal/hosts"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/suite"
)

// Plan is a run ready to go: its phases, where they run and where results
// go.
type Plan struct {
	Name   string
	Phases []engine.Phase
	// Labels, when set, hold one entry per phase placing it in its suite
	// (group, matrix point, iteration, host count).
	Labels []suite.Labels
	// CoVWarn flags sweep points whose iterations vary more than this
	// coefficient of variation (0: the default 5%).
	CoVWarn float64
	// Confidence is the confidence level of sweep intervals (0: the
	// default 95%).
	Confidence float64
	// Limits are the run's limits on figures (--limit), each on the phases
	// of its phase's name or suite entry; a suite entry's own are in
	// Labels. A figure that crosses one fails the run with exit 4.
	Limits []figures.Limit
	// Dirs are target directories checked before anything runs.
	Dirs []string
	// Agents are the machines the phases run on.
	Agents Agents
	// Secrets are this run's values of the engines' secret variables (s3's
	// keys, for phases that carry none): the in-process agent uses them,
	// and agents a launcher starts are sent them. Agents started on their
	// own use their own.
	Secrets engine.Secrets
	// MaxErrorShare is the percentage of failed requests (or of time an
	// endpoint could not be reached) above which a phase counts as failed.
	MaxErrorShare float64
	// ResultsRoot is where the results folder is made (default "results").
	ResultsRoot string
	Keep        bool
	// RemoveStale removes what runs killed earlier left in Dirs (found
	// and named in any case: cluster.Controller.Stale).
	RemoveStale bool
	AllowExec   bool
	// Tools are where this machine's outside tools are (--tool).
	Tools engine.Tools
	// Score chooses the run's score (results.Folder.Score).
	Score string
	// Settings are recorded in run.json (never secrets).
	Settings map[string]any
	// CommandLine is recorded in run.json; the caller has redacted it.
	CommandLine []string
	// RunLabels are the user's labels of the run and Fingerprint the
	// system under test, both recorded in run.json for the catalog.
	RunLabels   map[string]string
	Fingerprint *model.Fingerprint
	// Notes are told to the Sink before the first phase (skipped phases).
	Notes []string
	// StartAt starts the first phase's measured stage no earlier than this
	// (after preparation), for clients started by hand (s3 --syncstart).
	StartAt time.Time
	// ScaleRules are stopping rules of scales besides the default ones
	// (Runner.Analysis), asked after each step: a limit plugs in here.
	ScaleRules []ScaleRule
	// BenchdataInFolder writes every s3 request to benchdata.tsv.zst in the
	// phase's host folder (s3 --full); local runs only.
	BenchdataInFolder bool
}

// Agents say which machines run a plan and how to reach them.
type Agents struct {
	// Hosts are the host entries, expanded (cluster.HostEntries), with the
	// slots host files gave them; none, or this machine alone, runs the
	// plan in-process.
	Hosts []hosts.Entry
	// TokenFile, TLSCert, TLSKey and TLSCA are how the controller proves
	// itself to remote agents and trusts them (files, read only when a
	// remote agent is used).
	TokenFile, TLSCert, TLSKey, TLSCA string
	// Launcher, when set, starts the run's agents (on Hosts, or on hosts
	// of its own) and stops them at the end.
	Launcher cluster.Launcher
	// AllowPartial runs on the agents that started when some host's agent
	// did not (a Launcher); without it such a run is refused before any
	// load.
	AllowPartial bool
	// DropCaches syncs and drops the page cache on every host before each
	// phase.
	DropCaches bool
	// MaxClockOffset is the largest agent clock offset accepted; negative
	// accepts any, zero one second.
	MaxClockOffset time.Duration
	// AllowEvents starts the Launcher's agents allowing event commands
	// (agent --allow-events).
	AllowEvents bool
}

// Result is what a run did: its results folder and summary.
type Result struct {
	Folder  *results.Folder
	Summary results.Summary
}

// slotsOf is the slots host files give entries, as the engines take them.
func slotsOf(entries []hosts.Entry) engine.Slots {
	equal, differ := hosts.EqualSlots(entries)
	return engine.Slots{Most: hosts.MostSlots(entries), Equal: equal, Differ: differ}
}
