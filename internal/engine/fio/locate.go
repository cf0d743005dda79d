package fio

import (
	"path/filepath"

	"github.com/storbench/storbench/internal/engine"
)

var _ engine.Locator = Engine{}

// Location names the directory host's phase works in: its files stay there
// when the host is lost before cleanup.
func (Engine) Location(p engine.Phase, runID, host string) (what, where string, err error) {
	ps, _, err := decode(p)
	if err != nil {
		return "", "", err
	}
	return "files and directories", filepath.Join(ps.Dir, "storbench", runID, host, ps.Job.Name), nil
}
