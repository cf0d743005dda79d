package record

import (
	"math/bits"
	"sync/atomic"
)

// The per-second histograms use the bucket scheme of the phase histograms
// (histLowest, histHighest, histSigFigs: 1 ns to 1 hour, 2 significant
// digits), written out so a bucket is found without a call: 128 buckets
// per power of two above 256 ns, one per nanosecond below. A per-second
// bin therefore has the same value as the phase histogram's bin that holds
// the same latency, and the seconds of a phase add up to its histogram.
const (
	subHalfMag = 7                     // log2 of the buckets per power of two
	subMask    = 1<<(subHalfMag+1) - 1 // 255: values below 256 have a bucket each
	// histBins is HdrHistogram's counts length for this scheme: 256 ns
	// doubled 34 times passes an hour, so 35 ranges of 128 buckets past
	// the first 128.
	histBins = (35 + 1) << subHalfMag
)

// binIndex returns the bucket of v (1 <= v <= histHighest), as
// HdrHistogram's countsIndexFor computes it for this scheme.
func binIndex(v int64) int {
	b := 64 - bits.LeadingZeros64(uint64(v)|subMask) - (subHalfMag + 1)
	return (b+1)<<subHalfMag + int(v>>uint(b)) - 1<<subHalfMag
}

// binValue returns the highest latency that falls in bucket i: the value a
// bin reports, as binsOf takes it from HdrHistogram.
func binValue(i int) int64 {
	if i < 2<<subHalfMag {
		return int64(i)
	}
	b := i>>subHalfMag - 1
	sub := int64(i - b<<subHalfMag)
	return (sub+1)<<uint(b) - 1
}

// intervals are the per-second histograms of one operation of one worker:
// two buffers, one the worker records into and one the sampler reads.
//
// They change hands without a lock and without the worker ever waiting. At
// each tick the sampler asks for a swap by storing the tick's number in
// want; the worker, at its next operation, sees the new number, switches
// buffers and stores in ack the number it saw and the buffer it now uses.
// Once the sampler loads that ack, the other buffer is the sampler's: it
// holds exactly the operations recorded before the worker saw the request,
// that is, the interval that ended at that tick. The sampler empties it and
// only then asks for the next swap, so a buffer is never swapped back
// before it is emptied. A worker that records nothing for a while (a long
// request, a barrier) simply answers late: its buffer still holds only the
// interval of the request it has not seen, and the sampler waits for it
// rather than asking again. The two atomics give the race detector (and
// the memory model) the happens-before edges in both directions.
type intervals struct {
	// want is the sampler's last request (a tick number, 0: none yet).
	want atomic.Uint32
	// ack is want<<1 | the buffer the worker records into since it saw it.
	ack atomic.Uint32
	// seen and cur are the worker's own: the last request it acted on,
	// and the buffer it records into.
	seen uint32
	cur  uint32
	// asked is the sampler's own copy of want.
	asked uint32
	buf   [2]intervalBuf
}

// intervalBuf is one interval's latencies of one worker and operation.
// Counts are 32-bit: a worker records far fewer than 4 billion operations
// between two ticks of its sampler.
type intervalBuf struct {
	counts []uint32
	n      uint64
	sumNs  uint64
}

func newIntervals() *intervals {
	iv := &intervals{}
	for i := range iv.buf {
		iv.buf[i].counts = make([]uint32, histBins)
	}
	return iv
}

// record adds one latency v (clamped to the histogram's range) whose
// bucket is i. It is the worker's side: one atomic load, a comparison,
// and three adds.
func (iv *intervals) record(i int, v int64) {
	if w := iv.want.Load(); w != iv.seen {
		iv.seen = w
		iv.cur ^= 1
		iv.ack.Store(w<<1 | iv.cur)
	}
	b := &iv.buf[iv.cur]
	b.counts[i]++
	b.n++
	b.sumNs += uint64(v)
}

// phaseHist is a phase's latency histogram in the bucket scheme above: a
// count per bucket, allocated once, recorded into with an index and an add.
type phaseHist []uint64

func newPhaseHist() phaseHist { return make(phaseHist, histBins) }

// bins returns the histogram's non-empty buckets; each reports its
// highest value, as HdrHistogram's ValueAtQuantile does.
func (h phaseHist) bins() Bins {
	var out Bins
	for i, n := range h {
		if n > 0 {
			out = append(out, Bin{V: binValue(i), N: n})
		}
	}
	return out
}

// drainInto adds buffer i to the dense counts and empties it, returning
// its operation count and latency sum. Only the sampler calls it, on a
// buffer it owns.
func (b *intervalBuf) drainInto(dense []uint64) (n, sum uint64) {
	if b.n == 0 {
		return 0, 0
	}
	for i, c := range b.counts {
		if c != 0 {
			dense[i] += uint64(c)
			b.counts[i] = 0
		}
	}
	n, sum = b.n, b.sumNs
	b.n, b.sumNs = 0, 0
	return n, sum
}
