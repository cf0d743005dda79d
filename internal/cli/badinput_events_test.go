package cli

import (
	"testing"
)

// Bad events in a suite: each is one line naming what to fix, exit 2,
// with no results folder and nothing under the target directory, from
// `run` and from `run --dry-run` alike. Every event's command would write
// DATA/ran: a refusal that came after the event ran would leave it.
func TestBadInputEvents(t *testing.T) {
	t.Parallel()
	needFio(t)
	fioPhase := func(events string) string {
		return "name: x\ndir: DATA\nphases:\n  - name: read\n    fio: {runtime: 3s, job: {rw: read, bs: 4k, size: 1m, time_based: 1}}\n    events:\n" + events
	}
	cases := []lateCase{
		{name: "event time past the phase's end", suite: fioPhase("      - {at: 5s, command: touch DATA/ran}\n"),
			want: []string{"suite.yaml:4", "at 5s", "past the phase's end", "3s"}},
		{name: "event at the phase's end", suite: fioPhase("      - {at: 3s, command: touch DATA/ran}\n"),
			want: []string{"at 3s", "past the phase's end"}},
		{name: "negative event time", suite: fioPhase("      - {at: -2s, command: touch DATA/ran}\n"),
			want: []string{"line 7", "at", `"-2s"`, "negative"}},
		{name: "event time without a unit", suite: fioPhase("      - {at: 2, command: touch DATA/ran}\n"),
			want: []string{"at", `"2"`, "unit"}},
		{name: "event without an action", suite: fioPhase("      - {at: 1s}\n"),
			want: []string{"line 7", "no action", "command:"}},
		{name: "event without a time", suite: fioPhase("      - {command: touch DATA/ran}\n"),
			want: []string{"line 7", "no time", "at: 5s"}},
		{name: "event with two actions", suite: fioPhase("      - {at: 1s, command: touch DATA/ran, drop_caches: true}\n"),
			want: []string{"two actions", "command", "drop-caches"}},
		{name: "event setting misspelt", suite: fioPhase("      - {at: 1s, comand: touch DATA/ran}\n"),
			want: []string{`"comand"`, `did you mean "command"`}},
		{name: "event after 100%", suite: fioPhase("      - {after: 100%, command: touch DATA/ran}\n"),
			want: []string{"after", "100%", "under 100%"}},
		{name: "event on an unknown host", suite: fioPhase("      - {at: 1s, host: nosuchhost, command: touch DATA/ran}\n"),
			want: []string{"read", "host nosuchhost is not one of the run's agents"}},
		{name: "pause without a host", suite: fioPhase("      - {at: 1s, pause: 1s}\n"),
			want: []string{"pause", "host: NAME"}},
		{name: "after a share of a phase of no set duration", suite: "name: x\ndir: DATA\nphases:\n  - md: {items: 50}\n    events:\n      - {after: 10%, command: touch DATA/ran}\n",
			want: []string{"after 10%", "set duration", "at:"}},
	}
	for _, c := range cases {
		runLate(t, c, false)
		runLate(t, c, true)
	}
}
