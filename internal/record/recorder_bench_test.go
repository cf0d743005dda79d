package record

import (
	"testing"
)

// BenchmarkRecord measures what a worker pays per operation to record it,
// as the engines record: with a sampler taking the per-second histograms
// (here every 2^20 operations, so the swap is in the figure). The md
// engine calls Record once per create, stat or remove, so this must stay
// allocation-free and well under the cost of the cheapest metadata
// syscall.
func BenchmarkRecord(b *testing.B) {
	r := NewRecorder([]string{"file-create", "file-stat"}, false)
	s := NewSampler([]string{"file-create", "file-stat"}, []*Recorder{r}, 0)
	op := r.Op(1)
	// Latencies spread over several buckets, as a real run's are.
	lats := [8]int64{900, 1_100, 1_300, 2_500, 4_000, 12_000, 150_000, 3_000_000}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		op.Record(lats[i&7], 0)
		if i&(1<<20-1) == 0 {
			s.Sample(int64(i))
		}
	}
}

// TestRecordCost is the gate behind BenchmarkRecord: recording allocates
// nothing, with or without a sampler. Its speed is a figure of the
// benchmark (bench/recorder-cost.sh runs it in alternating rounds), not a
// test: a time limit fails on a loaded machine and proves nothing.
func TestRecordCost(t *testing.T) {
	for _, sampled := range []bool{false, true} {
		r := NewRecorder([]string{"file-stat"}, false)
		if sampled {
			NewSampler([]string{"file-stat"}, []*Recorder{r}, 0).Sample(1)
		}
		op := r.Op(0)
		op.Record(1000, 0) // warm up
		if a := testing.AllocsPerRun(10_000, func() { op.Record(1234, 4096) }); a != 0 {
			t.Fatalf("Record (sampled: %v) allocates %v times per operation, want 0", sampled, a)
		}
	}
}
