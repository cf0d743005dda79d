package md

import (
	"os"
	"testing"

	"github.com/storbench/storbench/internal/engine"
)

// BenchmarkItems runs, per loop, a phase of one worker over 2000 files
// (create with 1 KiB, stat, read, rename, remove) on tmpfs when there is
// one: ns/item is the time in the operations' windows per item operation,
// the hot loop's cost with the file system's; allocs/op stays the same
// whatever the item count when the loop allocates nothing per item.
func BenchmarkItems(b *testing.B) {
	dir, err := os.MkdirTemp("/dev/shm", "storbench-md-bench-")
	if err != nil {
		dir = b.TempDir()
	} else {
		b.Cleanup(func() { os.RemoveAll(dir) })
	}
	p := map[string]any{"dir": dir, "items": 2000, "workers": 1, "files_only": true,
		"rename": true, "write_bytes": "1k", "read_bytes": "1k"}
	var ops uint64
	var windows int64
	b.ReportAllocs()
	for b.Loop() {
		res, err := runPhase(b, p, engine.Env{})
		if err != nil {
			b.Fatal(err)
		}
		for _, o := range res.Ops {
			if o.Errors != 0 {
				b.Fatalf("%s: %d errors", o.Op, o.Errors)
			}
			ops += o.Ops
			windows += o.EndNs - o.StartNs
		}
	}
	b.ReportMetric(float64(windows)/float64(ops), "ns/item")
}
