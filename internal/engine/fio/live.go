package fio

import (
	"strconv"

	"github.com/storbench/storbench/internal/record"
)

// LiveLat returns each direction's completion latency so far, all jobs
// merged, for live snapshots: fio's json+ bins are cumulative, so each
// status report's bins are the phase's latencies up to then.
func (o *Output) LiveLat() []record.LiveLat {
	var out []record.LiveLat
	for i, name := range dirs {
		var bins record.Bins
		var n uint64
		var sum float64
		for k := range o.Jobs {
			c := o.Jobs[k].dir(i).Clat
			if c.N == 0 {
				continue
			}
			n += c.N
			sum += c.Mean * float64(c.N)
			m := make(map[int64]uint64, len(c.Bins))
			for k, v := range c.Bins {
				if ns, err := strconv.ParseInt(k, 10, 64); err == nil {
					m[ns] += v
				}
			}
			bins = record.Merge(bins, record.FromMap(m))
		}
		if n > 0 && len(bins) > 0 {
			out = append(out, record.LiveLatOf(name, bins, sum))
		}
	}
	return out
}
