package fio

import (
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// fio's per-second status output (cumulative json+ bins) becomes a
// histogram per interval for each operation, named as the phase's
// operations are, and adding up to them: here two job groups, so the
// operations are "<job> read" and "<job> write".
func TestLatencyPerSecond(t *testing.T) {
	bin, err := FindFio("")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	job := `[global]
ioengine=psync
bs=4k
size=4m
time_based=1
runtime=3

[a]
rw=randread

[b]
rw=randwrite
`
	var e Engine
	ctx := testutil.Ctx(t, testutil.Bound)
	pr, err := e.Prepare(ctx, engine.Env{Host: "h", RunID: "lat", Tools: engine.Tools{"fio": bin}}, fioPhase(t, dir, "lat", job, Overrides{}))
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Cleanup(ctx)
	res, err := pr.Run(ctx, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Ops) != 2 || res.Ops[0].Op != "a read" || res.Ops[1].Op != "b write" {
		t.Fatalf("operations %+v", res.Ops)
	}
	testutil.CheckLatSeconds(t, res, 2)
}
