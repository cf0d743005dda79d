package md

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// Every operation of a real run gets a histogram per interval, and the
// intervals of an operation add up to its phase histogram.
func TestLatencyPerSecond(t *testing.T) {
	old := liveEvery
	liveEvery = 20 * time.Millisecond
	defer func() { liveEvery = old }()
	raw, _ := json.Marshal(map[string]any{"dir": shmDir(t), "items": 4000, "workers": 2, "unique_dir": true, "iterations": 2})
	var e Engine
	ctx := context.Background()
	pr, err := e.Prepare(ctx, engine.Env{Host: "h1", RunID: "lat1"}, engine.Phase{Name: "md", Engine: "md", Params: raw})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Cleanup(ctx)
	res, err := pr.Run(ctx, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckLatSeconds(t, res, 1)
}
