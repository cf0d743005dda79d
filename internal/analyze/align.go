package analyze

import (
	"math"
	"sort"

	"github.com/storbench/storbench/internal/model"
)

// An engine's per-second series are intervals of its own clock: fio's
// first one opens when the phase was told to start and closes at fio's
// first status report, so it also holds fio's start-up and layout; the
// last one of an md operation runs to the next tick, past the operation's
// end. Counting each interval in the segment of its midpoint, as a whole,
// drew a second that held two seconds' operations next to a second of
// none, and rates over a second in which the operation ran for a third.
// The operations' own windows (OpStats StartNs-EndNs, or each
// iteration's) say when they ran: an interval's counts are spread over
// the segments its part inside the windows covers, in proportion to the
// time, and each segment's rate is over the time it was covered.

// window is a span of Unix ns in which a host did an operation.
type window struct{ start, end int64 }

// opWindows returns, per operation, the windows in which host h did it:
// its iterations' (md), else its operation's; none when h tells none.
// Windows that overlap are one: fio without group_reporting lists an
// operation once per job, each job's window over the same seconds, and
// a second's time counts once however many jobs ran in it.
func opWindows(h *model.HostResult) map[string][]window {
	out := map[string][]window{}
	for _, o := range h.Ops {
		if len(o.Iterations) > 0 {
			for _, it := range o.Iterations {
				if it.EndNs > it.StartNs {
					out[o.Op] = append(out[o.Op], window{it.StartNs, it.EndNs})
				}
			}
			continue
		}
		if o.EndNs > o.StartNs {
			out[o.Op] = append(out[o.Op], window{o.StartNs, o.EndNs})
		}
	}
	for op, ws := range out {
		out[op] = unionOf(ws)
	}
	return out
}

// unionOf merges windows that overlap or touch, in the order of their
// starts.
func unionOf(ws []window) []window {
	if len(ws) < 2 {
		return ws
	}
	ws = append([]window(nil), ws...)
	sort.Slice(ws, func(i, j int) bool { return ws[i].start < ws[j].start })
	out := ws[:1]
	for _, w := range ws[1:] {
		if last := &out[len(out)-1]; w.start <= last.end {
			last.end = max(last.end, w.end)
			continue
		}
		out = append(out, w)
	}
	return out
}

// piece is the part of an interval in one segment: its index, its length
// (ns) and the span [lo, hi) it lies in (Unix ns; beyond the segment's
// edge when a sliver was merged into it).
type piece struct {
	index  int
	ns     int64
	lo, hi int64
}

// pieces splits [a, b) over the segments of seg from t0, keeping only what
// lies inside wins (all of it when wins is empty). An interval wholly
// outside them (windows are an engine's reckoning: fio's is its runtime
// counted back from its end) is one piece of no length at the point
// inside the windows nearest its midpoint, in the segment that point's
// window counts it in (windowSeg), so its counts stay counted; its span
// is that window's part counted in that segment (windowPart), the time
// in which the window says the host did those operations, so that the
// segment's rate is over it. Over no time, a segment that no interval
// inside the windows reached had its operations at a rate of 0.
func pieces(a, b int64, wins []window, t0, seg int64) []piece {
	if len(wins) == 0 {
		wins = []window{{a, b}}
	}
	var out []piece
	for _, w := range wins {
		lo, hi := max(a, w.start), min(b, w.end)
		first := len(out)
		for lo < hi {
			i := floorDiv(lo-t0, seg)
			end := min(hi, t0+(i+1)*seg)
			k := int(windowSeg(i, w, t0, seg))
			if n := len(out); n > first && out[n-1].index == k {
				out[n-1].ns += end - lo
				out[n-1].lo, out[n-1].hi = min(out[n-1].lo, lo), max(out[n-1].hi, end)
			} else {
				out = append(out, piece{k, end - lo, lo, end})
			}
			lo = end
		}
		out = mergeSlivers(out, first, seg)
	}
	if len(out) > 0 {
		return out
	}
	mid := a + (b-a)/2
	best, dist, in := int64(0), int64(math.MaxInt64), wins[0]
	for _, w := range wins {
		c := min(max(mid, w.start), w.end-1)
		if d := abs64(c - mid); d < dist {
			best, dist, in = c, d, w
		}
	}
	k := windowSeg(floorDiv(best-t0, seg), in, t0, seg)
	lo, hi := windowPart(k, in, t0, seg)
	return []piece{{int(k), 0, lo, hi}}
}

// windowPart is the part of window w that segment k counts (windowSeg):
// the window inside the segment, and the window's edge slivers merged
// into it.
func windowPart(k int64, w window, t0, seg int64) (lo, hi int64) {
	from, to := t0+k*seg, t0+(k+1)*seg
	lo, hi = max(w.start, from), min(w.end, to)
	if w.start < from && windowSeg(floorDiv(w.start-t0, seg), w, t0, seg) == k {
		lo = w.start
	}
	if w.end > to && windowSeg(floorDiv(w.end-1-t0, seg), w, t0, seg) == k {
		hi = w.end
	}
	return lo, hi
}

// windowSeg is the segment that segment i's part of window w is counted
// in: a window that ends 5 ms into a segment gives those 5 ms to the
// segment before, and one that starts 5 ms before a segment's end to the
// segment after, whichever interval holds them. An interval's own edges
// are merged apart (mergeSlivers); a window's must be too, else an
// interval that lies in its edge sliver alone (fio's last status 2 ms
// before its end; one read late after its end, which lies outside the
// window and goes to its nearest point) is a second of its own, of a
// rate over no time or over a few ms (issue 37: drawn at 0 ops/s, its
// operations missing from the chart's sum).
func windowSeg(i int64, w window, t0, seg int64) int64 {
	first, last := floorDiv(w.start-t0, seg), floorDiv(w.end-1-t0, seg)
	if last > first && w.end-(t0+last*seg) < sliver(seg) {
		if i == last {
			i = last - 1
		}
		last--
	}
	if last > first && t0+(first+1)*seg-w.start < sliver(seg) && i == first {
		i = first + 1
	}
	return i
}

// sliver is the longest piece at a window's edge that is not a segment
// of its own: a window that ends 5 ms into a segment adds those 5 ms to
// the segment before (rates stay over the true time), instead of a
// "second" of 5 ms with a handful of operations.
func sliver(seg int64) int64 { return seg / 10 }

// mergeSlivers merges the slivers at the edges of the pieces of one window
// (out[first:]) into their neighbours.
func mergeSlivers(out []piece, first int, seg int64) []piece {
	w := out[first:]
	if len(w) >= 2 && w[len(w)-1].ns < sliver(seg) {
		w[len(w)-2].ns += w[len(w)-1].ns
		w[len(w)-2].hi = w[len(w)-1].hi
		w = w[:len(w)-1]
	}
	if len(w) >= 2 && w[0].ns < sliver(seg) {
		w[1].ns += w[0].ns
		w[1].lo = w[0].lo
		w = w[1:]
	}
	return append(out[:first], w...)
}

// latPiece is the segment an interval's histogram goes to: that of its
// longest piece inside the windows (a histogram cannot be split).
func latPiece(a, b int64, wins []window, t0, seg int64) int {
	ps := pieces(a, b, wins, t0, seg)
	best := ps[0]
	for _, p := range ps[1:] {
		if p.ns > best.ns {
			best = p
		}
	}
	return best.index
}

// share splits n over ps in proportion to their lengths, each piece's
// share rounded so that the shares add up to n (an interval of no length
// inside the windows goes to its one piece).
func share(n uint64, ps []piece, k int) uint64 {
	var total, before int64
	for i, p := range ps {
		total += p.ns
		if i < k {
			before += p.ns
		}
	}
	if total == 0 {
		if k == 0 {
			return n
		}
		return 0
	}
	upTo := func(ns int64) uint64 { return uint64(math.Round(float64(n) * float64(ns) / float64(total))) }
	return upTo(before+ps[k].ns) - upTo(before)
}

// fraction is piece k's part of ps' length (all of it for the one piece
// of an interval of no length inside the windows).
func fraction(ps []piece, k int) float64 {
	var total int64
	for _, p := range ps {
		total += p.ns
	}
	if total == 0 {
		if k == 0 {
			return 1
		}
		return 0
	}
	return float64(ps[k].ns) / float64(total)
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// phaseStartOf is the earliest start of any host's operation window, or 0
// when no host tells one.
func phaseStartOf(hosts []*model.HostResult) int64 {
	t0 := int64(math.MaxInt64)
	for _, h := range hosts {
		for _, ws := range opWindows(h) {
			for _, w := range ws {
				t0 = min(t0, w.start)
			}
		}
	}
	if t0 == math.MaxInt64 {
		return 0
	}
	return t0
}
