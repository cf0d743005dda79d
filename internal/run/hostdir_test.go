package run

import (
	"errors"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/hosts"
)

// dir=PATH in the agents file names a host's path for the run's one
// target directory: a run with two target directories is refused before
// anything is made (bad input, saying why), and without dir= nothing
// changes.
func TestHostDirNeedsOneTargetDirectory(t *testing.T) {
	r, _, root := runner(t)
	p := Plan{Name: "x", ResultsRoot: root, Dirs: []string{t.TempDir(), t.TempDir()},
		Agents: Agents{Hosts: []hosts.Entry{{Host: "127.0.0.1", Port: 1, Dir: "/mnt/a"}, {Host: "127.0.0.1", Port: 2}}},
		Phases: []engine.Phase{fakePhaseOf(t, "p", fakeParams{Ops: 1})}}
	_, err := r.Run(t.Context(), p)
	var re *Error
	if !errors.As(err, &re) || re.Code != BadInput || !strings.Contains(err.Error(), "this run has 2 target directories") {
		t.Fatalf("got %v, want bad input naming the 2 target directories", err)
	}
	if d, err := hostDirs(Plan{Dirs: []string{"/x"}, Agents: Agents{Hosts: []hosts.Entry{{Host: "a"}}}}); d != nil || err != nil {
		t.Errorf("without dir=: %v, %v", d, err)
	}
}
