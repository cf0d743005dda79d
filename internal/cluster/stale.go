package cluster

import (
	"context"
	"encoding/json"

	"github.com/storbench/storbench/internal/engine"
)

// The target step, before a run's first phase, also asks every agent what
// runs killed earlier left in the run's target directories, where the
// agent runs: only a process on the machine a killed run ran on can see
// that its process is gone (engine.FindStale). Asked to, each agent
// removes what it found (engine.RemoveStale).

// staleKey is where a host's result of the target step holds its finds,
// as JSON.
const staleKey = "stale"

// StaleFind is one run killed earlier that a host found in a target
// directory, and what became of what it left.
type StaleFind struct {
	Host  string `json:"host"`
	RunID string `json:"run_id"`
	Dir   string `json:"dir"`
	// Text says what the run left, in a few words (engine.Stale.Text).
	Text string `json:"text"`
	// Removed says the host removed it; Left is what it could not.
	Removed bool              `json:"removed,omitempty"`
	Left    []engine.Leftover `json:"left,omitempty"`
}

// findStale finds what runs killed earlier left in dirs, seen from this
// host, removes it when remove is set, and returns the finds as JSON.
func findStale(ctx context.Context, env engine.Env, dirs []string, remove bool) (string, error) {
	var finds []StaleFind
	for _, d := range dirs {
		for _, st := range engine.FindStale(d, env.RunID) {
			if err := ctx.Err(); err != nil {
				return "", err
			}
			f := StaleFind{Host: env.Host, RunID: st.RunID, Dir: d, Text: st.Text()}
			if remove {
				_, f.Left = engine.SplitLeftovers(engine.RemoveStale(st))
				f.Removed = len(f.Left) == 0
			}
			finds = append(finds, f)
		}
	}
	b, err := json.Marshal(finds)
	return string(b), err
}

// staleFinds gathers the hosts' finds, a run found by several hosts
// (agents on one machine) once.
type staleFinds struct {
	all  []StaleFind
	seen map[string]bool
}

// add adds a host's finds (findStale's JSON; none from an agent that does
// not look).
func (s *staleFinds) add(js string) error {
	if js == "" {
		return nil
	}
	var finds []StaleFind
	if err := json.Unmarshal([]byte(js), &finds); err != nil {
		return err
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	for _, f := range finds {
		if k := f.Dir + "\x00" + f.RunID; !s.seen[k] {
			s.seen[k] = true
			s.all = append(s.all, f)
		}
	}
	return nil
}
