package cli

import (
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/fio"
	s3e "github.com/storbench/storbench/internal/engine/s3"
	"github.com/storbench/storbench/internal/model"
)

// dryRunResources refuses, for phases run on this machine, what their
// preparation would refuse before any load, in the same line: fio files
// past the free space of their directory, s3 objects past the memory
// available. notes say where a file system does not tell its free space.
func dryRunResources(phases []engine.Phase) (notes []string, err error) {
	for _, ph := range phases {
		switch ph.Engine {
		case model.EngineFio:
			note, err := fio.CheckSpace(ph, 1)
			if err != nil {
				return nil, asUsage(err)
			}
			if note != "" {
				notes = append(notes, note)
			}
		case model.EngineS3:
			if err := s3e.CheckPlanMemory(ph); err != nil {
				return nil, asUsage(err)
			}
		}
	}
	return notes, nil
}
