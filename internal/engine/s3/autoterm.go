package s3

import (
	"time"

	"github.com/storbench/storbench/internal/record"
)

// autoTerm is warp's --autoterm on one host's series (record.AutoTerm).
type autoTerm struct {
	pct    float64
	minDur time.Duration
	bytes  bool
}

func (a autoTerm) stable(series []record.Second) bool {
	return record.AutoTerm{Pct: a.pct, MinDur: a.minDur, Bytes: a.bytes}.Stable(series)
}
