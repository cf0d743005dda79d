package cli

import (
	"github.com/storbench/storbench/internal/engine"
)

// dryRunResources refuses, for phases run on this machine, what their
// preparation would refuse before any load, in the same line: fio files
// past the free space of their directory, s3 objects past the memory
// available. notes say where a file system does not tell its free space.
func dryRunResources(engines engine.Registry, phases []engine.Phase) (notes []string, err error) {
	notes, err = engines.CheckResources(phases)
	return notes, asUsage(err)
}
