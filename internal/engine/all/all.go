// Package all is the explicit list of storbench's engines. A program that
// runs phases builds its registry here and hands it on; no engine makes
// itself known by being imported.
package all

import (
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/fio"
	"github.com/storbench/storbench/internal/engine/md"
	"github.com/storbench/storbench/internal/engine/s3"
	"github.com/storbench/storbench/internal/model"
)

// Engines returns the registry of every engine: fio, md and s3.
func Engines() engine.Registry {
	return engine.Registry{
		model.EngineFio: fio.Engine{},
		model.EngineMD:  md.Engine{},
		model.EngineS3:  s3.Engine{},
	}
}
