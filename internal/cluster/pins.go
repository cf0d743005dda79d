package cluster

import (
	"sync"

	"github.com/storbench/storbench/internal/engine"
)

// pins are the shared areas this process pinned (PinArea), by run id: the
// controller removes them after the run's last phase (RemoveShared), but
// an agent that ends without its controller (shut down, or no word from
// it) removes the ones it pinned itself, as it removes what its phase
// made: no controller is left to do it, and the pin would keep the run's
// directories in DIR for ever.
var pins = struct {
	sync.Mutex
	dirs map[string][]string
}{dirs: map[string][]string{}}

func pinned(runID, dir string) {
	pins.Lock()
	defer pins.Unlock()
	pins.dirs[runID] = append(pins.dirs[runID], dir)
}

// unpinned forgets runID's pins (the run-level cleanup ran).
func unpinned(runID string) {
	pins.Lock()
	defer pins.Unlock()
	delete(pins.dirs, runID)
}

// removePins takes away the pins this process put in runID's shared
// areas, and each area with the levels above it when nothing else is in
// it (other hosts still in it leave it to the last one out, as any
// shared directory's last user removes it); it returns the first error.
func removePins(runID string) error {
	pins.Lock()
	dirs := pins.dirs[runID]
	delete(pins.dirs, runID)
	pins.Unlock()
	var first error
	for _, d := range dirs {
		err := engine.RemoveSharedEntries(d, runID, func(name string) bool { return name == engine.SharedPin })
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}
