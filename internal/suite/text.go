package suite

import (
	"fmt"
	"maps"
	"slices"

	"github.com/storbench/storbench/internal/safetext"
)

// checkText refuses a control character in what the suite names: the
// run, its labels, its phases and their events (safetext). Each is shown
// on terminals, in summary.md and report.html, and carried by a shared
// catalog to every reader. The phases' final names (a matrix point's
// values added) are checked again with the rest of each phase
// (engine.CheckPhaseName).
func checkText(file string, s *Suite) error {
	if err := safetext.Check("name", s.Name); err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Labels)) {
		if err := safetext.Check("labels: the key", k); err != nil {
			return fmt.Errorf("%s: %v", file, err)
		}
		if err := safetext.Check("label "+k+": the value", s.Labels[k]); err != nil {
			return fmt.Errorf("%s: %v", file, err)
		}
	}
	for _, p := range s.Phases {
		if err := safetext.Check("phase name", p.Name); err != nil {
			return fmt.Errorf("%s:%d: %v", file, p.Line, err)
		}
		for _, e := range p.Events {
			if err := safetext.Check("event name", e.Name); err != nil {
				return fmt.Errorf("%s:%d: %v", file, e.Line, err)
			}
		}
	}
	return nil
}
