package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/storbench/storbench/internal/infile"
)

// LatSecond is the latency histogram of one operation in one interval of
// the per-second series (on one host, or merged across hosts): the
// operations that ended between StartNs and EndNs (Unix ns).
type LatSecond struct {
	Op      string `json:"op"`
	StartNs int64  `json:"start_ns"`
	EndNs   int64  `json:"end_ns"`
	// SumNs is the sum of the interval's latencies in nanoseconds; over
	// Bins.Total() it is the interval's mean latency (exact for the native
	// engines, from fio's running mean for fio).
	SumNs float64 `json:"sum_ns"`
	Bins  Bins    `json:"bins"`
}

// LatSecondsFile is the name of a host's per-second latency file in a
// phase's folder of the results folder (NN-phase/hosts/<host>/).
const LatSecondsFile = "latency-seconds.zst"

// latMagic opens every per-second latency file, before its version.
const latMagic = "SBLATSEC"

// LatSecondsVersion is the version of the per-second latency file format
// EncodeLatSeconds writes.
const LatSecondsVersion = 1

// EncodeLatSeconds writes per-second histograms in storbench's per-second
// latency format, version 1: a zstd frame holding, in unsigned (u) and
// zig-zag signed (s) varints as encoding/binary writes them,
//
//	"SBLATSEC"  magic, 8 bytes
//	u version   1
//	u nops, then nops times: u length, the operation's name (UTF-8)
//	u nvals, then nvals times: u value - previous value (first: value)
//	            every bin value (ns) used in the file, ascending
//	s base      Unix ns that the first interval's start is counted from
//	u nrec, then nrec records, ordered by start:
//	  u op      index into the names
//	  s start   ns since the previous record's start (the first: base)
//	  u length  ns
//	  u sum     sum of the latencies, ns (rounded)
//	  u nbins, then nbins times:
//	    u index - previous index (first: index) into the values
//	    u count
//
// A bin's value is the highest latency it holds, as in Bins; its count
// is never 0. Readers refuse other magics and newer versions.
func EncodeLatSeconds(secs []LatSecond) ([]byte, error) {
	ops, opIdx := []string{}, map[string]int{}
	nbins := 0
	for _, s := range secs {
		nbins += len(s.Bins)
	}
	vals := make([]int64, 0, nbins)
	for _, s := range secs {
		if _, ok := opIdx[s.Op]; !ok {
			opIdx[s.Op] = len(ops)
			ops = append(ops, s.Op)
		}
		for _, b := range s.Bins {
			vals = append(vals, b.V)
		}
	}
	slices.Sort(vals)
	vals = slices.Compact(vals)
	order := make([]int, len(secs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return secs[order[i]].StartNs < secs[order[j]].StartNs })

	b := make([]byte, 0, 64+8*len(vals)+16*len(secs)+3*nbins)
	b = append(b, latMagic...)
	b = binary.AppendUvarint(b, LatSecondsVersion)
	b = binary.AppendUvarint(b, uint64(len(ops)))
	for _, op := range ops {
		b = binary.AppendUvarint(b, uint64(len(op)))
		b = append(b, op...)
	}
	b = binary.AppendUvarint(b, uint64(len(vals)))
	prev := int64(0)
	for _, v := range vals {
		if v < prev {
			return nil, fmt.Errorf("latency bin value %d is negative", v)
		}
		b = binary.AppendUvarint(b, uint64(v-prev))
		prev = v
	}
	base := int64(0)
	if len(secs) > 0 {
		base = secs[order[0]].StartNs
	}
	b = binary.AppendVarint(b, base)
	b = binary.AppendUvarint(b, uint64(len(secs)))
	last := base
	for _, i := range order {
		s := secs[i]
		if s.EndNs < s.StartNs {
			return nil, fmt.Errorf("interval of %s ends (%d) before it starts (%d)", s.Op, s.EndNs, s.StartNs)
		}
		b = binary.AppendUvarint(b, uint64(opIdx[s.Op]))
		b = binary.AppendVarint(b, s.StartNs-last)
		last = s.StartNs
		b = binary.AppendUvarint(b, uint64(s.EndNs-s.StartNs))
		b = binary.AppendUvarint(b, uint64(math.Round(max(s.SumNs, 0))))
		b = binary.AppendUvarint(b, uint64(len(s.Bins)))
		pi := 0
		for _, x := range s.Bins {
			vi, _ := slices.BinarySearch(vals, x.V)
			b = binary.AppendUvarint(b, uint64(vi-pi))
			b = binary.AppendUvarint(b, x.N)
			pi = vi
		}
	}
	enc, err := latCodec()
	if err != nil {
		return nil, err
	}
	return enc.EncodeAll(b, nil), nil
}

var (
	codecOnce sync.Once
	latEnc    *zstd.Encoder
	latDec    *zstd.Decoder
	codecErr  error
)

// latCodec returns the zstd encoder and decoder of the per-second files,
// made once: EncodeAll and DecodeAll may be called concurrently, and
// making them costs more than a phase's file.
func latCodec() (*zstd.Encoder, error) {
	codecOnce.Do(func() {
		latEnc, codecErr = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
		if codecErr == nil {
			latDec, codecErr = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(infile.LatencyLimit))
		}
	})
	return latEnc, codecErr
}

// errLatFormat is what a damaged or foreign file gets.
var errLatFormat = errors.New("not a storbench per-second latency file, or a damaged one")

// DecodeLatSeconds reads a file EncodeLatSeconds wrote, in its order:
// one this process was given by an engine or an agent. A file of a
// results folder is read with DecodeLatSecondsLimit.
func DecodeLatSeconds(data []byte) ([]LatSecond, error) {
	if _, err := latCodec(); err != nil {
		return nil, err
	}
	raw, err := latDec.DecodeAll(data, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errLatFormat, err)
	}
	return parseLatSeconds(raw)
}

// DecodeLatSecondsLimit reads a file EncodeLatSeconds wrote, as
// DecodeLatSeconds does, refusing one that decompresses to more than
// limit bytes (LatSecondsBound: what its phase could have written) with
// exit code 2, before holding more than that.
func DecodeLatSecondsLimit(data []byte, limit int64) ([]LatSecond, error) {
	raw, err := infile.Unzstd(LatSecondsFile, data, limit)
	if infile.IsRefusal(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errLatFormat, err)
	}
	return parseLatSeconds(raw)
}

// Bounds of the per-second latency format, for LatSecondsBound: a
// record's fixed fields (op, start, length, sum, bin count) take at most
// latRecordBytes, a bin (index step below 2^14, count) latBinBytes, and
// what comes before the records (magic, names, bin values) latHeadBytes.
const (
	latRecordBytes = 4*binary.MaxVarintLen64 + 2
	latBinBytes    = 2 + binary.MaxVarintLen64
	latHeadBytes   = 1 << 20
)

// LatSecondsBound is the most a host's per-second latency file may
// decompress to, given the host's operations in its result.json: each
// operation has a record per interval of its window (about a second each;
// twice as many are allowed, and a few more), a record at most histBins
// bins, and never more bins than latencies recorded (each bin counts one
// or more), nor, whatever the figures, more than infile.LatencyLimit.
func LatSecondsBound(ops []OpStats) int64 {
	total := float64(latHeadBytes)
	for _, o := range ops {
		secs := math.Max(float64(o.EndNs-o.StartNs)/1e9, 0)
		recs := 2*math.Ceil(secs) + 4 + 2*float64(len(o.Iterations))
		bins := math.Min(recs*histBins, float64(o.Lat.Stats.N+o.Ops+o.Errors))
		total += recs*latRecordBytes + bins*latBinBytes
		if o.TTFB != nil {
			total += recs*latRecordBytes + math.Min(recs*histBins, float64(o.TTFB.Stats.N+o.Ops+o.Errors))*latBinBytes
		}
	}
	return int64(math.Min(total, infile.LatencyLimit))
}

// parseLatSeconds reads a decompressed per-second latency file.
func parseLatSeconds(raw []byte) ([]LatSecond, error) {
	if !bytes.HasPrefix(raw, []byte(latMagic)) {
		return nil, errLatFormat
	}
	r := &latReader{b: raw[len(latMagic):]}
	if v := r.u(); r.err == nil && v != LatSecondsVersion {
		return nil, fmt.Errorf("per-second latency file version %d: this storbench reads version %d (a newer storbench wrote it)", v, LatSecondsVersion)
	}
	ops := make([]string, r.count(1))
	for i := range ops {
		ops[i] = string(r.bytes(r.count(1)))
	}
	vals := make([]int64, r.count(1))
	prev := uint64(0)
	for i := range vals {
		prev += r.u()
		vals[i] = int64(prev)
		if prev > math.MaxInt64 {
			r.fail()
		}
	}
	base := r.s()
	out := make([]LatSecond, r.count(5))
	last := base
	for i := range out {
		s := &out[i]
		op := r.u()
		if op >= uint64(len(ops)) {
			r.fail()
			break
		}
		s.Op = ops[op]
		last += r.s()
		s.StartNs = last
		s.EndNs = last + int64(r.u()&math.MaxInt64)
		if s.EndNs < s.StartNs {
			r.fail()
			break
		}
		s.SumNs = float64(r.u())
		s.Bins = make(Bins, r.count(2))
		vi := uint64(0)
		for j := range s.Bins {
			d := r.u()
			vi += d
			n := r.u()
			if vi >= uint64(len(vals)) || n == 0 || (j > 0 && d == 0) {
				r.fail()
				break
			}
			s.Bins[j] = Bin{V: vals[vi], N: n}
		}
		if r.err != nil {
			break
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	return out, nil
}

// latReader reads varints, remembering the first failure.
type latReader struct {
	b   []byte
	err error
}

func (r *latReader) fail() {
	if r.err == nil {
		r.err = errLatFormat
	}
	r.b = nil
}

func (r *latReader) u() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *latReader) s() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a count of items that take at least min bytes each, refusing
// one the rest of the file cannot hold (so damage cannot ask for a huge
// allocation).
func (r *latReader) count(min int) int {
	v := r.u()
	if v > uint64(len(r.b)/min) {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *latReader) bytes(n int) []byte {
	if n > len(r.b) {
		r.fail()
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

// ShiftLatSeconds moves every interval of an encoded file by ns (an
// agent's clock to the controller's).
func ShiftLatSeconds(data []byte, ns int64) ([]byte, error) {
	if len(data) == 0 || ns == 0 {
		return data, nil
	}
	secs, err := DecodeLatSeconds(data)
	if err != nil {
		return nil, err
	}
	for i := range secs {
		secs[i].StartNs += ns
		secs[i].EndNs += ns
	}
	return EncodeLatSeconds(secs)
}
