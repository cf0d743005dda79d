package record

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// LiveSchema is the bucket scheme of live latency histograms: Prometheus'
// native-histogram schema 5, in seconds. Bucket i holds the latencies in
// (2^((i-1)/32), 2^(i/32)] seconds: 32 buckets per power of two, each 2.2%
// wide, so a percentile read from them is within 2.2% of the one the
// phase's own histogram gives, and Prometheus takes them as they are.
const LiveSchema = 5

// liveRes is the buckets per power of two of LiveSchema.
const liveRes = 1 << LiveSchema

// LiveLat is the latency of one operation on one host since its phase
// started, as a live snapshot carries it once a second: cumulative, so a
// snapshot lost or read twice on the way loses nothing, and sparse, about
// 32 buckets for every doubling between the fastest and slowest request.
type LiveLat struct {
	Op string `json:"op"`
	// N is the operations in Buckets and SumNs their latencies' sum (ns).
	N     uint64  `json:"n"`
	SumNs float64 `json:"sum_ns"`
	// Buckets are the non-empty buckets by index, ascending.
	Buckets []LiveBucket `json:"b,omitempty"`
}

// LiveBucket is one bucket of a LiveLat: index I in LiveSchema and its
// count. It travels as the pair [I, N].
type LiveBucket struct {
	I int32
	N uint64
}

// MarshalJSON writes the bucket as [I, N].
func (b LiveBucket) MarshalJSON() ([]byte, error) {
	return json.Marshal([2]int64{int64(b.I), int64(b.N)})
}

// UnmarshalJSON reads [I, N].
func (b *LiveBucket) UnmarshalJSON(data []byte) error {
	var p [2]int64
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	if p[1] < 0 || p[0] < math.MinInt32 || p[0] > math.MaxInt32 {
		return fmt.Errorf("live latency bucket %v out of range", p)
	}
	b.I, b.N = int32(p[0]), uint64(p[1])
	return nil
}

// LiveIndex returns the bucket of LiveSchema that holds a latency of ns
// nanoseconds (ns >= 1).
func LiveIndex(ns int64) int32 {
	return int32(math.Ceil(math.Log2(float64(max(ns, 1))/1e9) * liveRes))
}

// LiveUpper returns the upper bound of bucket i in seconds.
func LiveUpper(i int32) float64 { return math.Exp2(float64(i) / liveRes) }

// Percentile returns the latency in nanoseconds at percentile p (0 < p <=
// 100) by the rule Bins.Percentile follows, reporting a bucket's upper
// bound; ok is false when the histogram is empty.
func (l LiveLat) Percentile(p float64) (ns int64, ok bool) {
	var total uint64
	for _, b := range l.Buckets {
		total += b.N
	}
	if total == 0 {
		return 0, false
	}
	want := p / 100 * float64(total)
	var cum uint64
	for _, b := range l.Buckets {
		cum += b.N
		if float64(cum) >= want {
			return int64(math.Round(LiveUpper(b.I) * 1e9)), true
		}
	}
	return int64(math.Round(LiveUpper(l.Buckets[len(l.Buckets)-1].I) * 1e9)), true
}

// Sub returns l less an earlier state of the same histogram (the latencies
// recorded in between). A histogram that went back (a new phase under the
// same name) is returned whole.
func (l LiveLat) Sub(prev LiveLat) LiveLat {
	if prev.N > l.N {
		return l
	}
	out := LiveLat{Op: l.Op, N: l.N - prev.N, SumNs: l.SumNs - prev.SumNs}
	j := 0
	for _, b := range l.Buckets {
		for j < len(prev.Buckets) && prev.Buckets[j].I < b.I {
			j++
		}
		n := b.N
		if j < len(prev.Buckets) && prev.Buckets[j].I == b.I {
			n -= min(n, prev.Buckets[j].N)
		}
		if n > 0 {
			out.Buckets = append(out.Buckets, LiveBucket{I: b.I, N: n})
		}
	}
	return out
}

// Add returns the sum of two histograms of LiveSchema.
func (l LiveLat) Add(x LiveLat) LiveLat {
	out := LiveLat{Op: l.Op, N: l.N + x.N, SumNs: l.SumNs + x.SumNs}
	if out.Op == "" {
		out.Op = x.Op
	}
	out.Buckets = make([]LiveBucket, 0, max(len(l.Buckets), len(x.Buckets)))
	i, j := 0, 0
	for i < len(l.Buckets) || j < len(x.Buckets) {
		switch {
		case j == len(x.Buckets) || (i < len(l.Buckets) && l.Buckets[i].I < x.Buckets[j].I):
			out.Buckets = append(out.Buckets, l.Buckets[i])
			i++
		case i == len(l.Buckets) || x.Buckets[j].I < l.Buckets[i].I:
			out.Buckets = append(out.Buckets, x.Buckets[j])
			j++
		default:
			out.Buckets = append(out.Buckets, LiveBucket{I: l.Buckets[i].I, N: l.Buckets[i].N + x.Buckets[j].N})
			i++
			j++
		}
	}
	return out
}

// LiveLatOf turns a histogram of Bins (cumulative since the phase
// started: fio's, say) into a LiveLat.
func LiveLatOf(op string, bins Bins, sumNs float64) LiveLat {
	var acc liveAcc
	acc.add(bins)
	return acc.lat(op, bins.Total(), sumNs)
}

// liveAcc accumulates Bins into LiveSchema buckets.
type liveAcc struct {
	counts map[int32]uint64
}

func (a *liveAcc) add(bins Bins) {
	if a.counts == nil {
		a.counts = map[int32]uint64{}
	}
	for _, b := range bins {
		a.counts[LiveIndex(b.V)] += b.N
	}
}

func (a *liveAcc) lat(op string, n uint64, sumNs float64) LiveLat {
	out := LiveLat{Op: op, N: n, SumNs: sumNs, Buckets: make([]LiveBucket, 0, len(a.counts))}
	for i, c := range a.counts {
		out.Buckets = append(out.Buckets, LiveBucket{I: i, N: c})
	}
	slices.SortFunc(out.Buckets, func(x, y LiveBucket) int { return int(x.I) - int(y.I) })
	return out
}

// LiveFeed turns what a Sampler has collected of each interval's latencies
// into the cumulative LiveLat of every operation, for live snapshots. It
// reads only what the sampler's goroutine holds, after Sample: the workers
// never see it. Late intervals (a worker that answered the sampler only
// after a long request or a barrier) count when they come in.
type LiveFeed struct {
	s *Sampler
	// seen holds, per operation, what was already taken of each interval:
	// the sampler replaces an interval's bins whenever it adds to them, so
	// the slice seen last is what was counted.
	seen []map[uint32]*latAcc
	acc  []liveAcc
	n    []uint64
	sum  []uint64
}

// NewLiveFeed returns a feed of s's latencies.
func NewLiveFeed(s *Sampler) *LiveFeed {
	f := &LiveFeed{s: s, seen: make([]map[uint32]*latAcc, len(s.names)), acc: make([]liveAcc, len(s.names)),
		n: make([]uint64, len(s.names)), sum: make([]uint64, len(s.names))}
	for i := range f.seen {
		f.seen[i] = map[uint32]*latAcc{}
	}
	return f
}

// Take adds what the sampler collected since the last call and returns
// every operation's cumulative latency (operations with none left out).
// Call it from the sampler's goroutine, after Sample.
func (f *LiveFeed) Take() []LiveLat {
	var out []LiveLat
	for i, name := range f.s.names {
		for k, a := range f.s.lat[i] {
			old := f.seen[i][k]
			if old != nil && old.n == a.n {
				continue
			}
			var prev latAcc
			if old != nil {
				prev = *old
			}
			f.acc[i].add(subBins(a.bins, prev.bins))
			f.n[i] += a.n - prev.n
			f.sum[i] += a.sum - prev.sum
			f.seen[i][k] = &latAcc{bins: a.bins, n: a.n, sum: a.sum}
		}
		if f.n[i] > 0 {
			out = append(out, f.acc[i].lat(name, f.n[i], float64(f.sum[i])))
		}
	}
	return out
}

// subBins returns a less b, where b is an earlier state of a.
func subBins(a, b Bins) Bins {
	if len(b) == 0 {
		return a
	}
	out := make(Bins, 0, len(a))
	j := 0
	for _, x := range a {
		for j < len(b) && b[j].V < x.V {
			j++
		}
		if j < len(b) && b[j].V == x.V {
			x.N -= min(x.N, b[j].N)
		}
		if x.N > 0 {
			out = append(out, x)
		}
	}
	return out
}
