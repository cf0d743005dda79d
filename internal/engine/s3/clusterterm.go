package s3

import (
	"encoding/json"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
)

// AutoTerm returns the phase's --autoterm rule, with the same defaults and
// metric as one host applies, so a controller can judge the total of all,
// and the phase without it, for hosts whose controller decides for all of
// them together.
func (pl plan) AutoTerm() (record.AutoTerm, engine.Phase, bool) {
	ps := pl.ps
	if !ps.AutoTerm {
		return record.AutoTerm{}, pl.phase, false
	}
	a := record.AutoTerm{Pct: ps.AutoTermPct, MinDur: time.Duration(ps.AutoTermDur),
		Bytes: ps.Op == "get" || ps.Op == "put" || ps.Op == "multipart" || ps.Op == "multipart-put"}
	if a.Pct == 0 {
		a.Pct = 7.5
	}
	if a.MinDur == 0 {
		a.MinDur = 10 * time.Second
	}
	return a, withoutAutoTerm(pl.phase), true
}

// withoutAutoTerm returns the phase with --autoterm off.
func withoutAutoTerm(p engine.Phase) engine.Phase {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(p.Params, &m); err != nil {
		return p
	}
	delete(m, "autoterm")
	if b, err := json.Marshal(m); err == nil {
		p.Params = b
	}
	return p
}
