package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/all"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/testutil"
)

// envProbeAgent makes this test binary run as `storbench` with the probe
// engine registered (TestMain), so the agents a test starts from it know
// the engine as the test's own State does.
const envProbeAgent = "STORBENCH_TEST_AS_STORBENCH"

func TestMain(m *testing.M) {
	if os.Getenv(envProbeAgent) == "1" {
		// As cmd/storbench's main, with the probe engine in the list.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := Execute(ctx, NewState(probeEngines()), os.Args[1:])
		stop()
		if err != nil {
			fmt.Fprintf(os.Stderr, "storbench: %v\n", err)
		}
		os.Exit(ExitCode(err))
	}
	parallelTests(6)
	os.Exit(m.Run())
}

// parallelTests runs n of this package's parallel tests at once unless
// -test.parallel was given. They mostly wait (fio's runtimes, agents,
// versitygw: a tenth of a core each on average, measured one by one), so
// go test's default of one a core left the package's wall time the sum
// of theirs: the longest pole of make test. Tests that hold a timing
// bound or measure the machine stay serial (docs/development.md).
func parallelTests(n int) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(n))
	}
}

// probeEngines is storbench's engine list with the probe, vault and
// tally engines added through the registration hook, as a test adds an engine.
func probeEngines() engine.Registry {
	reg := all.Engines()
	if err := reg.Register("probe", probeEngine{}); err != nil {
		panic(err)
	}
	if err := reg.Register("vault", vaultEngine{}); err != nil {
		panic(err)
	}
	if err := reg.Register("tally", tallyEngine{}); err != nil {
		panic(err)
	}
	return reg
}

// probeEngine is an engine that lives in this test file only: it stats
// its target directory (a real system call on the target) for ms
// milliseconds and records every stat, with a per-second series, as an
// engine of storbench's own does. With meet, a phase also runs until meet
// hosts' phases have run together for 3 s (each leaves a marker file in
// dir until its cleanup), so runs started by hand overlap whatever the
// machine's load.
type probeEngine struct{}

type probeParams struct {
	Dir string `json:"dir"`
	Ms  int    `json:"ms"`
	// Meet is how many hosts' phases must have run together.
	Meet int `json:"meet,omitempty"`
	// Host names the file server behind dir, for the reader (an NFS
	// server, say): the probe never talks to it.
	Host string `json:"host,omitempty"`
}

// Info names the probe's rates, which the summary keeps for readers.
func (probeEngine) Info() engine.Info {
	return engine.Info{RateUnit: "stat/s", ParamKeys: engine.JSONKeys(probeParams{})}
}

// probePlan is a probe phase decoded.
type probePlan struct {
	engine.BasePlan
	pp probeParams
}

func (probeEngine) Plan(p engine.Phase) (engine.Plan, error) {
	var pp probeParams
	if err := engine.DecodeStrict(p.Params, &pp); err != nil {
		return nil, err
	}
	return probePlan{pp: pp}, nil
}

func (p probePlan) Check() error {
	if p.pp.Ms < 1 {
		return fmt.Errorf("ms %d: want 1 or more", p.pp.Ms)
	}
	return nil
}

func (probeEngine) Prepare(_ context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	var pp probeParams
	if err := engine.DecodeStrict(p.Params, &pp); err != nil {
		return nil, err
	}
	return &probePhase{p: pp, host: env.Host, name: p.Name}, nil
}

type probePhase struct {
	p          probeParams
	host, name string
}

func (f *probePhase) Run(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	if err := engine.WaitUntil(ctx, startAt); err != nil {
		return nil, engine.Interrupted(err)
	}
	ops := []string{"stat"}
	rec := record.NewRecorder(ops, false)
	start := time.Now()
	smp := record.NewSampler(ops, []*record.Recorder{rec}, start.UnixNano())
	end, tick := start.Add(time.Duration(f.p.Ms)*time.Millisecond), start.Add(time.Second)
	marker := filepath.Join(f.p.Dir, "probe-"+f.host)
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		return nil, err
	}
	met := time.Time{}
	running := func(now time.Time) bool {
		if f.p.Meet > 0 && met.IsZero() {
			if m, _ := filepath.Glob(filepath.Join(f.p.Dir, "probe-*")); len(m) >= f.p.Meet {
				met = now
			}
		}
		if now.Sub(start) > time.Minute {
			return false
		}
		return now.Before(end) || f.p.Meet > 0 && (met.IsZero() || now.Sub(met) < 3*time.Second)
	}
	var runErr error
	for now := start; running(now); now = time.Now() {
		if ctx.Err() != nil {
			runErr = engine.Interrupted(ctx.Err())
			break
		}
		t0 := time.Now()
		if _, err := os.Stat(f.p.Dir); err != nil {
			rec.Op(0).RecordError("stat")
		} else {
			rec.Op(0).Record(time.Since(t0).Nanoseconds(), 0)
		}
		if now.After(tick) {
			cum := smp.Sample(now.UnixNano())
			if live != nil {
				live(engine.Snapshot{Host: f.host, Phase: f.name, Stage: "run", Elapsed: now.Sub(start), Ops: cum})
			}
			tick = tick.Add(time.Second)
		}
		time.Sleep(time.Millisecond)
	}
	stop := time.Now()
	smp.Sample(stop.UnixNano())
	st := rec.Stats(0, "stat")
	st.StartNs, st.EndNs = start.UnixNano(), stop.UnixNano()
	return &engine.HostResult{Host: f.host, Ops: []record.OpStats{st}, Series: smp.Series}, runErr
}

func (f *probePhase) Cleanup(context.Context) error {
	if err := os.Remove(filepath.Join(f.p.Dir, "probe-"+f.host)); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// An engine that exists only in a test runs end to end as storbench's own
// do: a suite names it, a run sends its phase to an agent (a process of
// this test binary, which registers it too), two runs on two agents merge
// into one results folder, and the report reads it. Nothing outside this
// file knows the engine.
func TestEngineFromATestRunsEndToEnd(t *testing.T) {
	t.Setenv(envProbeAgent, "1") // for the agents started below only
	dir, root := t.TempDir(), t.TempDir()
	token := "probe-token-0123456789"
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	suiteFile := filepath.Join(t.TempDir(), "suite.yaml")
	yaml := "name: probe\ndir: " + dir + "\nphases:\n  - name: look\n    probe: {ms: 2000, meet: 2}\n"
	if err := os.WriteFile(suiteFile, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Two clients started together, each with its agent, as merge expects;
	// the agents are reached under two names (127.0.0.1, localhost), as
	// two hosts.
	folders := make([]string, 2)
	var wg sync.WaitGroup
	for i := range folders {
		addr := testutil.AgentProcess(t, self, token)
		if i == 1 {
			addr = strings.Replace(addr, "127.0.0.1", "localhost", 1)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, buf := testState()
			st.Engines = probeEngines()
			res := filepath.Join(root, fmt.Sprint(i))
			if err := Execute(t.Context(), st, []string{"run", suiteFile, "--agents", addr, "--token-file", tok, "--results", res}); err != nil {
				t.Errorf("run %d: %v\n%s", i, err, buf)
				return
			}
			ents, err := os.ReadDir(res)
			if err != nil || len(ents) != 1 {
				t.Errorf("run %d: want one results folder in %s: %v %v", i, res, ents, err)
				return
			}
			folders[i] = filepath.Join(res, ents[0].Name())
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for _, f := range folders {
		b, err := os.ReadFile(filepath.Join(f, "summary.json"))
		if err != nil || !strings.Contains(string(b), `"engine": "probe"`) || !strings.Contains(string(b), `"op": "stat"`) {
			t.Fatalf("%s: summary.json without the probe phase's stat: %v\n%s", f, err, b)
		}
	}
	merged := filepath.Join(t.TempDir(), "merged")
	st, buf := testState()
	st.Engines = probeEngines()
	if err := Execute(t.Context(), st, []string{"merge", folders[0], folders[1], "-o", merged}); err != nil {
		t.Fatalf("merge: %v\n%s", err, buf)
	}
	var sum struct {
		Phases []struct {
			Engine string `json:"engine"`
			Ops    []struct {
				Op      string  `json:"op"`
				Ops     uint64  `json:"ops"`
				OpsPerS float64 `json:"ops_per_s"`
			} `json:"ops"`
		} `json:"phases"`
	}
	b, err := os.ReadFile(filepath.Join(merged, "summary.json"))
	if err == nil {
		err = json.Unmarshal(b, &sum)
	}
	if err != nil || len(sum.Phases) != 1 || sum.Phases[0].Engine != "probe" || len(sum.Phases[0].Ops) != 1 ||
		sum.Phases[0].Ops[0].Op != "stat" || sum.Phases[0].Ops[0].Ops == 0 || sum.Phases[0].Ops[0].OpsPerS <= 0 {
		t.Fatalf("merged summary: %v\n%s", err, b)
	}
	buf.Reset()
	if err := Execute(t.Context(), st, []string{"report", merged}); err != nil {
		t.Fatalf("report: %v\n%s", err, buf)
	}
	// Both hosts' stats, in the table of phases, with a rate and latency.
	if md, err := os.ReadFile(filepath.Join(merged, "summary.md")); err != nil || !strings.Contains(string(md), "| look | 2 | stat | - |") {
		t.Fatalf("summary.md does not show the probe phase on 2 hosts: %v\n%s", err, md)
	}
	html, err := os.ReadFile(filepath.Join(merged, "report.html"))
	if err != nil || !strings.Contains(string(html), "look stat") || !strings.Contains(string(html), " stat/s") {
		t.Fatalf("report.html does not show the probe phase's headline in its unit: %v", err)
	}
}
