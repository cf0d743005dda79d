package md

import (
	"os"
	"strconv"
	"testing"

	"github.com/storbench/storbench/internal/engine"
)

// TestPerf prints create/stat/remove rates for the comparison with mdloop;
// it runs only when STORBENCH_MD_PERF names a directory.
func TestPerf(t *testing.T) {
	dir := os.Getenv("STORBENCH_MD_PERF")
	if dir == "" {
		t.Skip("set STORBENCH_MD_PERF=DIR to measure")
	}
	n, _ := strconv.Atoi(os.Getenv("STORBENCH_MD_ITEMS"))
	if n == 0 {
		n = 20000
	}
	for i := 0; i < 3; i++ {
		res, err := runPhase(t, map[string]any{"dir": dir, "items": n, "workers": 2, "unique_dir": true, "files_only": true}, engine.Env{RunID: "perf" + strconv.Itoa(i)})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("create %.0f stat %.0f remove %.0f; cpu ns/op create %s stat %s remove %s", rate(op(t, res, "file-create").Iterations[0]), rate(op(t, res, "file-stat").Iterations[0]), rate(op(t, res, "file-remove").Iterations[0]), res.Meta["cpu_ns_per_op_file-create"], res.Meta["cpu_ns_per_op_file-stat"], res.Meta["cpu_ns_per_op_file-remove"])
	}
}
