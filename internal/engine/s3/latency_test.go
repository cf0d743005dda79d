package s3

import (
	"context"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/testutil"
)

// A real mixed run against versitygw keeps a latency histogram per second
// for every operation, adding up to each operation's phase histogram.
func TestLatencyPerSecond(t *testing.T) {
	srv := s3test.StartT(t, s3test.Options{})
	p := baseParams(srv, "mixed")
	p["duration"] = "2500ms"
	pr, err := Engine{}.Prepare(context.Background(), engine.Env{Host: "h", RunID: "lat"}, phaseOf(t, "s3-mixed", p))
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Cleanup(context.Background())
	res, err := pr.Run(context.Background(), time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckLatSeconds(t, res, 2)
}
