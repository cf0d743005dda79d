package run

import (
	"fmt"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/results"
)

// RemoteLead is how far ahead of the end of preparation a phase with
// remote agents starts, so that every agent is waiting when it comes.
const RemoteLead = 2 * time.Second

// removed records the background removals of phases' files that ended
// (cluster.Removal) in the phases they belong to: when they ran in the
// phase's timing, what they left in its leftovers and the run's, told to
// the sink as any leftover is.
func (pr *phases) removed(recs []cluster.Removal) {
	for _, rec := range recs {
		for _, l := range rec.Leftovers {
			on := ""
			if l.Host != "" {
				on = " on " + l.Host
			}
			pr.r.Sink.Note(Note{Kind: NoteDiagnostic, Text: fmt.Sprintf("left behind%s: %s", on, l.Text())})
		}
		pr.leftovers = append(pr.leftovers, rec.Leftovers...)
		_, _ = pr.folder.AmendPhase(rec.Phase, func(ps *results.PhaseSummary) {
			ps.Leftovers = append(ps.Leftovers, rec.Leftovers...)
			addRemoval(ps, rec)
		})
	}
}

// addRemoval widens the phase's removal times to hold one host's.
func addRemoval(ps *results.PhaseSummary, rec cluster.Removal) {
	if ps.Timing == nil {
		ps.Timing = &results.Timing{}
	}
	t := ps.Timing
	if t.RemovalStartNs == 0 || rec.StartNs < t.RemovalStartNs {
		t.RemovalStartNs = rec.StartNs
	}
	if rec.EndNs == 0 {
		return
	}
	t.RemovalEndNs = max(t.RemovalEndNs, rec.EndNs)
	d := time.Duration(rec.EndNs - rec.StartNs).Seconds()
	if t.RemovalS == nil || d > *t.RemovalS {
		t.RemovalS = &d
	}
}

// staleNotes says what runs killed earlier (SIGKILL, a host lost) left
// in the plan's directories, seen from each host
// (cluster.Controller.Targets), and whether it was removed (removed: the
// plan said to remove it): one note per run, naming the host when the run
// has several.
func staleNotes(finds []cluster.StaleFind, several, removed bool) []string {
	var notes []string
	for _, f := range finds {
		on := ""
		if several {
			on = "on " + f.Host + ": "
		}
		switch {
		case f.Removed:
			notes = append(notes, on+"removed what a killed run left: "+f.Text)
		case removed:
			var left []string
			for _, l := range f.Left {
				left = append(left, l.Text())
			}
			notes = append(notes, on+f.Text+"; could not remove "+strings.Join(left, "; "))
		default:
			notes = append(notes, on+f.Text+" (--remove-stale removes it)")
		}
	}
	return notes
}
