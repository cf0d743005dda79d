package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/storbench/storbench/internal/metrics"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/s3test"
)

// loadCPU keeps every CPU busy (four spinning goroutines per CPU) until
// the test ends: the load under which --live lost, merged and repeated
// seconds.
func loadCPU(t *testing.T) {
	var stop atomic.Bool
	t.Cleanup(func() { stop.Store(true) })
	for range 4 * runtime.NumCPU() {
		go func() {
			x := 0
			for !stop.Load() {
				for i := range 100000 {
					x += i
				}
			}
			_ = x
		}()
	}
}

// liveSums reads a --live file: every host line's operations per host and
// operation (its count, and its rate times the step of the host's
// elapsed time since its previous line), every total line's count, and
// the elapsed times repeated by one host's or the total's lines.
type liveSums struct {
	count, fromRate map[string]float64 // by host + " " + op
	// totalCount is the total lines' count; totalFromRate their rates
	// times their intervals.
	totalCount, totalFromRate float64
	repeated                  []float64
	lines                     int
}

func readLive(t *testing.T, file string) liveSums {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := liveSums{count: map[string]float64{}, fromRate: map[string]float64{}}
	last := map[string]float64{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l metrics.LiveLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("live line is not JSON: %s", sc.Text())
		}
		s.lines++
		who := l.Host
		if l.Total {
			who = "total"
		}
		if seen[who] && l.ElapsedS <= last[who] {
			s.repeated = append(s.repeated, l.ElapsedS)
		}
		step := l.ElapsedS - last[who]
		last[who], seen[who] = l.ElapsedS, true
		for _, o := range l.Ops {
			if l.Total {
				s.totalCount += float64(o.Count)
				s.totalFromRate += o.OpsPerS * l.IntervalS
				continue
			}
			s.count[l.Host+" "+o.Op] += float64(o.Count)
			s.fromRate[l.Host+" "+o.Op] += o.OpsPerS * step
		}
	}
	return s
}

// Under a loaded CPU, --live writes every second of every host once: the
// lines' counts (and their rates times their seconds' lengths) add up to
// summary.json's count of every operation, the last partial second
// included, so do the total lines' (their rates times their intervals),
// and no host's or total's elapsed time comes twice.
func TestLiveUnderLoadSumsToSummary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs a loaded s3 phase of 6 s and an md phase")
	}
	srv := s3test.StartT(t, s3test.Options{})
	// An agent in this process, reached over HTTP: its seconds stream to
	// the controller, several at once when the controller reads late.
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("live-load-token-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	agent := l.Addr().String()
	l.Close()
	if _, err := startAgentIn(t, AgentServeOptions{Listen: agent, TokenFile: token, MetricsListen: "127.0.0.1:0"}); err != nil {
		t.Fatal(err)
	}
	loadCPU(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"s3", []string{"s3", "get", "--obj.size", "4KiB", "--objects", "50", "--concurrent", "4", "--duration", "6s", "--bucket", "livebucket"}},
		{"md", mdArgs(t)[:len(mdArgs(t))-2]},
		{"md-agent", append(mdArgs(t)[:len(mdArgs(t))-2], "--agents", agent, "--token-file", token)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, out := s3State(srv)
			dir, live := t.TempDir(), filepath.Join(t.TempDir(), "live.jsonl")
			err := Execute(context.Background(), st, append(tc.args, "--results", dir, "--live", live))
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			sum, err := results.ReadSummary(onlyFolder(t, dir))
			if err != nil {
				t.Fatal(err)
			}
			s := readLive(t, live)
			if len(s.repeated) > 0 {
				t.Errorf("elapsed times written twice: %v", s.repeated)
			}
			var all float64
			for _, o := range sum.Phases[0].Ops {
				all += float64(o.Ops)
				for _, h := range sum.Phases[0].Hosts {
					key := h + " " + o.Op
					t.Logf("%s: summary.json %d, live counts %.0f, rates x seconds %.1f", key, o.Ops, s.count[key], s.fromRate[key])
					if s.count[key] != float64(o.Ops) {
						t.Errorf("%s: the live lines count %.0f operations, summary.json %d", key, s.count[key], o.Ops)
					}
					if math.Abs(s.fromRate[key]-float64(o.Ops)) > 0.5+1e-6*float64(o.Ops) {
						t.Errorf("%s: the live lines' rates times their seconds add up to %.1f operations, summary.json %d", key, s.fromRate[key], o.Ops)
					}
				}
			}
			if s.totalCount != all {
				t.Errorf("the total's lines count %.0f operations, summary.json %.0f", s.totalCount, all)
			}
			// One total line a second, over its true interval (issue 35:
			// a total of two seconds said interval_s 1.0).
			if math.Abs(s.totalFromRate-all) > 0.5+1e-6*all {
				t.Errorf("the total lines' rates times their intervals add up to %.1f operations, summary.json %.0f", s.totalFromRate, all)
			}
		})
	}
}
