package main

import (
	"context"
	"encoding/json"
	"net"
	"slices"
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

// The bench's heartbeat gaps come from the phase's heartbeat stream: a
// controller's phase of 4 s gives the farm's agent a beat a second, and
// the gaps noted are about a second. Before, only a request a beat was
// noted, and since the stream (one request a phase) the bench printed
// "(none)".
func TestFarmNotesStreamedHeartbeats(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	const token = "sb-test-token-0123456789"
	srv := &cluster.Server{Agent: farmAgent(0), Token: token}
	var log beatLog
	hs := srv.HTTPServer()
	hs.Handler = noteBeats(srv, &log)
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })

	ra := &cluster.RemoteAgent{Addr: ln.Addr().String(), Host: "agent0000", Token: token, Controller: "t"}
	defer ra.Close()
	ctrl := &cluster.Controller{Agents: []cluster.Agent{ra}, Engines: engines, Lead: 500 * time.Millisecond, Name: "t"}
	params, _ := json.Marshal(fakeParams{DurationS: 4, Ops: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := ctrl.RunPhase(ctx, "beats", false, engine.Phase{Name: "p", Engine: "scale-fake", Params: params}); err != nil {
		t.Fatal(err)
	}
	gaps := log.gaps()
	if len(gaps) < 3 {
		t.Fatalf("%d heartbeat gaps noted over a 4 s phase, want 3 or more (a beat a second)", len(gaps))
	}
	slices.Sort(gaps)
	if med := gaps[len(gaps)/2]; med < 0.5 || med > 2 {
		t.Errorf("median gap %.3f s, want about 1 s (0.5-2): %v", med, gaps)
	}
}
