package record

import (
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The buckets are HdrHistogram's (1 ns to 1 hour, 2 digits): a bin holds
// the latencies HdrHistogram puts together and reports the value its
// ValueAtQuantile gives them, so figures match HdrHistogram's and fio's
// rule alike.
func TestBinIndexMatchesHdrHistogram(t *testing.T) {
	h := hdr.New(histLowest, histHighest, histSigFigs)
	// One value at the top makes Distribution walk every bucket up to
	// it, in the order of HdrHistogram's counts: bucket i is bar i.
	if err := h.RecordValue(histHighest); err != nil {
		t.Fatal(err)
	}
	bars := h.Distribution()
	if len(bars) != binIndex(histHighest)+1 || len(bars) > histBins {
		t.Fatalf("HdrHistogram has %d buckets up to an hour, the per-second histograms %d of %d", len(bars), binIndex(histHighest)+1, histBins)
	}
	for i, b := range bars {
		if got := binValue(i); got != b.To {
			t.Fatalf("bucket %d: per-second value %d, HdrHistogram's %d", i, got, b.To)
		}
		for _, v := range []int64{b.From, b.To, (b.From + b.To) / 2} {
			if v >= histLowest && v <= histHighest && binIndex(v) != i {
				t.Fatalf("latency %d: per-second bucket %d, HdrHistogram's %d (%d-%d)", v, binIndex(v), i, b.From, b.To)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100_000 {
		v := 1 + int64(rng.Float64()*rng.Float64()*float64(histHighest-1))
		b := bars[binIndex(v)]
		if v < b.From || v > b.To {
			t.Fatalf("latency %d is in bucket %d-%d", v, b.From, b.To)
		}
	}
}

// Operations go to the interval in which they were recorded, including a
// worker that sits idle through several samples and one that records
// after the last sample.
func TestSecondsAttribution(t *testing.T) {
	r := NewRecorder([]string{"get"}, false)
	s := NewSampler([]string{"get"}, []*Recorder{r}, 100)
	op := r.Op(0)
	for range 3 {
		op.Record(1000, 1)
	}
	s.Sample(200)
	op.Record(2000, 1)
	s.Sample(300)
	s.Sample(400) // idle
	s.Sample(500) // idle
	op.Record(3000, 1)
	op.Record(3000, 1)
	s.Sample(600)
	op.Record(4000, 1) // after the last tick: the engine samples once more at its end
	s.Sample(700)
	got := s.LatSeconds()
	want := []LatSecond{
		// 1000 ns falls in the bucket 1000-1003, 2000 in 2000-2007,
		// 3000 in 2992-3007, 4000 in 4000-4015 (HdrHistogram, 2 digits).
		{Op: "get", StartNs: 100, EndNs: 200, SumNs: 3000, Bins: Bins{{1003, 3}}},
		{Op: "get", StartNs: 200, EndNs: 300, SumNs: 2000, Bins: Bins{{2007, 1}}},
		{Op: "get", StartNs: 500, EndNs: 600, SumNs: 6000, Bins: Bins{{3007, 2}}},
		{Op: "get", StartNs: 600, EndNs: 700, SumNs: 4000, Bins: Bins{{4015, 1}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("seconds\n got %+v\nwant %+v", got, want)
	}
	if again := s.LatSeconds(); !reflect.DeepEqual(again, got) {
		t.Fatalf("a second call changed the seconds: %+v", again)
	}
}

// Workers recording flat out while a sampler ticks fast: every operation
// lands in exactly one interval, and the intervals add up to the phase
// histogram bin by bin (run under -race, this also checks the handshake).
func TestSecondsAddUpToPhase(t *testing.T) {
	names := []string{"read", "write"}
	const workers = 4
	recs := make([]*Recorder, workers)
	for i := range recs {
		recs[i] = NewRecorder(names, false)
	}
	s := NewSampler(names, recs, 1)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var sums [workers]uint64
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := 0; !stop.Load() || i < 1000; i++ {
				v := int64(rng.ExpFloat64()*50_000) + 1
				recs[w].Op(i&1).Record(v, 4096)
				sums[w] += uint64(v)
			}
		}()
	}
	ticks := 0
	for now := int64(2); ticks < 100; now++ {
		s.Sample(now)
		ticks++
		time.Sleep(100 * time.Microsecond)
		if ticks == 60 {
			stop.Store(true)
		}
	}
	wg.Wait()
	s.Sample(1_000_000)
	secs := s.LatSeconds()
	if len(secs) < 10 {
		t.Fatalf("only %d intervals had operations", len(secs))
	}
	for i, name := range names {
		var phase OpStats
		for _, r := range recs {
			phase = phase.Combine(r.Stats(i, name))
		}
		var bins Bins
		var sum float64
		for _, x := range secs {
			if x.Op == name {
				bins = Merge(bins, x.Bins)
				sum += x.SumNs
				if x.EndNs <= x.StartNs {
					t.Errorf("interval %+v is empty", x)
				}
			}
		}
		if !reflect.DeepEqual(bins, phase.Lat.Bins) {
			t.Errorf("%s: seconds hold %d operations, the phase %d; their bins differ", name, bins.Total(), phase.Lat.Bins.Total())
		}
		if bins.Total() != phase.Ops {
			t.Errorf("%s: seconds hold %d operations, %d recorded", name, bins.Total(), phase.Ops)
		}
	}
	var total float64
	for _, x := range secs {
		total += x.SumNs
	}
	var want uint64
	for _, v := range sums {
		want += v
	}
	if uint64(total) != want {
		t.Errorf("latency sum over the seconds %v, recorded %d", total, want)
	}
}

func TestLatSecondsRoundTrip(t *testing.T) {
	secs := []LatSecond{
		{Op: "GET", StartNs: 1_700_000_000_000_000_000, EndNs: 1_700_000_001_000_000_000, SumNs: 123456, Bins: Bins{{1000, 3}, {2047, 1}, {900_000, 2}}},
		{Op: "PUT", StartNs: 1_700_000_000_000_000_000, EndNs: 1_700_000_001_000_000_000, SumNs: 9, Bins: Bins{{9, 1}}},
		{Op: "GET", StartNs: 1_700_000_001_000_000_000, EndNs: 1_700_000_002_000_500_000, SumNs: 5000, Bins: Bins{{1000, 5}}},
	}
	b, err := EncodeLatSeconds(secs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeLatSeconds(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, secs) {
		t.Fatalf("round trip\n got %+v\nwant %+v", got, secs)
	}
	shifted, err := ShiftLatSeconds(b, -5_000_000)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = DecodeLatSeconds(shifted)
	if got[2].StartNs != secs[2].StartNs-5_000_000 || got[2].EndNs != secs[2].EndNs-5_000_000 {
		t.Errorf("shifted %+v", got[2])
	}
	if _, err := DecodeLatSeconds([]byte("not zstd")); err == nil {
		t.Error("garbage decoded")
	}
	if _, err := DecodeLatSeconds(b[:len(b)/2]); err == nil {
		t.Error("a cut file decoded")
	}
	if got, err := DecodeLatSeconds(mustEncode(t, nil)); err != nil || len(got) != 0 {
		t.Errorf("empty file: %v %v", got, err)
	}
}

func mustEncode(t *testing.T, secs []LatSecond) []byte {
	t.Helper()
	b, err := EncodeLatSeconds(secs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzDecodeLatSeconds: a damaged file is an error, never a panic or a
// huge allocation.
func FuzzDecodeLatSeconds(f *testing.F) {
	b, _ := EncodeLatSeconds([]LatSecond{{Op: "read", StartNs: 5, EndNs: 10, SumNs: 3, Bins: Bins{{1, 1}, {2, 1}}}})
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		secs, err := DecodeLatSeconds(data)
		if err != nil {
			return
		}
		if _, err := EncodeLatSeconds(secs); err != nil {
			t.Fatalf("decoded seconds do not encode again: %v", err)
		}
	})
}
