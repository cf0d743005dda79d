package suite

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/events"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/units"
)

// eventKeys are the settings of an event in a suite.
var eventKeys = []string{"name", "at", "after", "command", "drop_caches", "pause", "host", "timeout"}

// parseEvents reads a phase's events: list. A setting the suite cannot
// mean is refused with its line.
func parseEvents(n *yaml.Node) ([]events.Spec, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("line %d: events: want a list of events such as {at: 5s, command: ...}", n.Line)
	}
	var out []events.Spec
	for i, item := range n.Content {
		if item.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("line %d: an event is a mapping such as {at: 5s, command: ...}", item.Line)
		}
		s, err := parseEvent(item)
		if err != nil {
			return nil, err
		}
		if s.Name == "" {
			s.Name = fmt.Sprintf("%s %d", s.Action, i+1)
		}
		out = append(out, s)
	}
	return out, nil
}

// parseEvent reads one event mapping: one time (at or after), one action
// (command, drop_caches or pause), where it runs, its bound.
func parseEvent(item *yaml.Node) (events.Spec, error) {
	s := events.Spec{Line: item.Line}
	timed := false
	var actions []string
	for i := 0; i+1 < len(item.Content); i += 2 {
		k, v := item.Content[i], item.Content[i+1]
		err := setEventKey(&s, k, v, &timed, &actions)
		if err != nil {
			return s, err
		}
	}
	switch {
	case len(actions) == 0:
		return s, fmt.Errorf("line %d: event has no action: give command: CMD, drop_caches: true or pause: DURATION", item.Line)
	case len(actions) > 1:
		return s, fmt.Errorf("line %d: event has two actions (%s and %s): give one per event", item.Line, actions[0], actions[1])
	case !timed:
		return s, fmt.Errorf("line %d: event has no time: give at: 5s (from the phase's start) or after: 10%% (of its planned duration)", item.Line)
	}
	s.Action = actions[0]
	if s.Action == model.EventPause && s.Host == "" {
		return s, fmt.Errorf("line %d: event pause: name the host whose load stops (host: NAME)", item.Line)
	}
	if s.Timeout == 0 {
		s.Timeout = events.DefaultTimeout
	}
	return s, nil
}

// setEventKey reads one setting of an event into s; timed and actions
// collect the times and actions seen so far.
func setEventKey(s *events.Spec, k, v *yaml.Node, timed *bool, actions *[]string) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("line %d: event %s: %s", k.Line, k.Value, fmt.Sprintf(format, args...))
	}
	if (k.Value == "at" || k.Value == "after") && *timed {
		return bad("give at or after, not both")
	}
	switch k.Value {
	case "name":
		s.Name = v.Value
	case "at":
		*timed = true
		d, err := eventDuration(v.Value)
		if err != nil {
			return bad("%v", err)
		}
		s.At = d
	case "after":
		*timed = true
		pct, ok := strings.CutSuffix(strings.TrimSpace(v.Value), "%")
		f, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
		if !ok || err != nil || f < 0 || f >= 100 {
			return bad("%q: want a share of the phase's planned duration from 0%% to under 100%%, such as 10%%", v.Value)
		}
		s.AfterPct = f
	case "command":
		if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" {
			return bad("want the command line to run (sh -c)")
		}
		s.Command = v.Value
		*actions = append(*actions, model.EventCommand)
	case "drop_caches":
		var b bool
		if v.Decode(&b) != nil || !b {
			return bad("want true (sync and drop the page cache)")
		}
		*actions = append(*actions, model.EventDropCaches)
	case "pause":
		d, err := units.ParseDuration(v.Value)
		if err != nil || d <= 0 {
			return bad("%q: want how long the host's load stops, such as 3s", v.Value)
		}
		s.Pause = d
		*actions = append(*actions, model.EventPause)
	case "host":
		s.Host = strings.TrimSpace(v.Value)
		if s.Host == "" {
			return bad("want an agent's name (leave host out to run on the controller)")
		}
	case "timeout":
		d, err := units.ParseDuration(v.Value)
		if err != nil || d <= 0 {
			return bad("%q: want how long the action may take, such as 30s", v.Value)
		}
		s.Timeout = d
	default:
		msg := fmt.Sprintf("line %d: unknown event setting %q", k.Line, k.Value)
		if sg := Suggest(k.Value, eventKeys); sg != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", sg)
		}
		return fmt.Errorf("%s", msg)
	}
	return nil
}

// eventDuration reads an event time: a duration with its unit, never
// negative ("-2s" says so rather than "invalid").
func eventDuration(v string) (time.Duration, error) {
	t := strings.TrimSpace(v)
	if strings.HasPrefix(t, "-") {
		return 0, fmt.Errorf("%q: negative; give a time from the phase's start, such as 5s", v)
	}
	d, err := units.ParseDuration(t)
	if err != nil {
		return 0, fmt.Errorf("%q: want a time from the phase's start with its unit, such as 5s", v)
	}
	return d, nil
}

// checkEvents refuses events that cannot happen in phase p: a time past
// its planned end, a share of a duration it does not set.
func checkEvents(engines engine.Registry, where string, evs []events.Spec, p engine.Phase) error {
	if len(evs) == 0 {
		return nil
	}
	planned, estimated := engines.Planned(p)
	for _, e := range evs {
		if err := e.Check(where, planned, !estimated && planned > 0); err != nil {
			return err
		}
		if e.Action == model.EventPause && !pauses(engines, p.Engine) {
			return fmt.Errorf("%s: event %s (line %d): %s phases cannot pause their load; pause is for %s phases", where, e.Name, e.Line, p.Engine, strings.Join(pausing(engines), " and "))
		}
	}
	return nil
}

// pauses says the engine's phases can pause their load.
func pauses(engines engine.Registry, name model.EngineName) bool {
	return engines.Info(name).PausesLoad
}

// pausing lists the engines whose phases can pause.
func pausing(engines engine.Registry) []string {
	var out []string
	for _, n := range engines.Names() {
		if pauses(engines, n) {
			out = append(out, string(n))
		}
	}
	return out
}
