package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
)

// A farm's agent runs its phase without measuring the host's CPU: a farm
// holds 2,500 agents, and each one's monitor read the process table and
// the farm's descriptors every second, most of the farm's CPU, so that
// beside a CPU hog its agents heard their heartbeats too late and 4,450 of
// 5,000 stopped their phase. Before, the result carried client figures.
func TestFarmAgentsMeasureNoClientCPU(t *testing.T) {
	a := farmAgent(7)
	params, _ := json.Marshal(fakeParams{DurationS: 2, Ops: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := a.Prepare(ctx, cluster.Request{RunID: "r", Phase: engine.Phase{Name: "p", Engine: "scale-fake", Params: params}}); err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(ctx, time.Now(), func(engine.Snapshot) {})
	if err != nil {
		t.Fatal(err)
	}
	if res.Client != nil {
		t.Errorf("a farm's agent measured the host's CPU over its run: %+v", res.Client)
	}
	if len(res.Ops) == 0 || res.Ops[0].Ops == 0 {
		t.Errorf("the fake engine's counts are missing: %+v", res.Ops)
	}
}
