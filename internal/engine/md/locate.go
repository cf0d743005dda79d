package md

import (
	"path/filepath"

	"github.com/storbench/storbench/internal/engine"
)

var _ engine.Locator = Engine{}

// Location names the directory host's phase works in: its trees stay there
// when the host is lost before cleanup. A host is lost only from a phase
// on several hosts, so a phase that would share a tree there did.
func (Engine) Location(p engine.Phase, runID, host string) (what, where string, err error) {
	ps, err := phaseParams(p)
	if err != nil {
		return "", "", err
	}
	if ps.shared(2) {
		return "files and directories", filepath.Join(ps.Dir, "storbench", runID, engine.SharedName, ps.sharedName(p.Name)), nil
	}
	return "files and directories", filepath.Join(ps.Dir, "storbench", runID, host, p.Name), nil
}
