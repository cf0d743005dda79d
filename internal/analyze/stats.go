package analyze

import (
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/stats"
)

// QuantileCI is a distribution-free confidence interval for the p-th
// percentile (0 < p < 100) of the population a histogram was sampled from:
// the order statistics at the ranks stats.OrderStatisticInterval gives for
// the normal quantile z, read from the bins. It assumes requests are
// independent.
func QuantileCI(b record.Bins, p, z float64) (lo, hi int64) {
	n := float64(b.Total())
	if n == 0 {
		return 0, 0
	}
	loRank, hiRank := stats.OrderStatisticInterval(n, p/100, z)
	return rankValue(b, loRank), rankValue(b, hiRank)
}

// rankValue is the value of the k-th smallest operation (1-based).
func rankValue(b record.Bins, k float64) int64 {
	var cum uint64
	for _, x := range b {
		cum += x.N
		if float64(cum) >= k {
			return x.V
		}
	}
	if len(b) == 0 {
		return 0
	}
	return b[len(b)-1].V
}
