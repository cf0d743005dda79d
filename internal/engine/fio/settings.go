package fio

import (
	"fmt"

	"github.com/storbench/storbench/internal/engine"
)

// decodeParams decodes a phase's settings: the one place fio's are
// decoded.
func decodeParams(p engine.Phase) (Params, error) {
	var ps Params
	if err := engine.DecodeStrict(p.Params, &ps); err != nil {
		return ps, fmt.Errorf("fio phase %s: %v", p.Name, err)
	}
	if ps.ReadFrom != "" && ps.ReadFrom != ReadFromNeighbour {
		return ps, fmt.Errorf("fio phase %s: read_from: %q; the one value is %s", p.Name, ps.ReadFrom, ReadFromNeighbour)
	}
	return ps, nil
}

// decode returns a phase's settings and its job file, parsed (resolve
// fills it in).
func decode(p engine.Phase) (*Params, *JobFile, error) {
	ps, err := decodeParams(p)
	if err != nil {
		return nil, nil, err
	}
	jf, err := ParseJobFile(ps.Job.Name, ps.Job.Text)
	if err != nil {
		return nil, nil, err
	}
	return &ps, jf, nil
}
