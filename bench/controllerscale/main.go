// Command controllerscale measures the controller driving many agents
// (issue 15, item 5): its CPU and memory during each second of a phase, and
// the cadence of the live line.
//
// The agents are real agent servers (cluster.Server, the protocol storbench
// agent serves) on loopback ports, all in a second process, the farm (this
// program with -farm), so the figures are the controller's alone. They run a
// fake engine, "scale-fake", registered only here: it does no I/O and sends
// one snapshot a second, with -ops operations' cumulative counts, as a busy
// md or s3 phase does. The controller is cluster.Controller, as storbench
// run uses it: connect (info and clock samples), then one phase (clock
// samples, prepare, common start, heartbeats every second per agent, the
// snapshot streams, results, cleanup). Its Progress callback does the work
// of the command line's live line (totals per operation over every host, a
// rate per host, min and max across hosts, the formatted line), writing the
// line nowhere.
//
// usage: go run ./bench/controllerscale [-agents 1000] [-seconds 30] [-ops 4]
// (bench/controller-scale.sh builds it and runs it).
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
)

func main() {
	farm := flag.Int("farm", 0, "serve this many agents and print their addresses (the farm process)")
	agents := flag.Int("agents", 1000, "agents")
	seconds := flag.Int("seconds", 30, "length of the phase's run stage")
	ops := flag.Int("ops", 4, "operations in each snapshot")
	profile := flag.String("cpuprofile", "", "write the controller's CPU profile here")
	hbTimeout := flag.Duration("hb-timeout", cluster.HeartbeatTimeout, "the agents' heartbeat timeout (the farm's)")
	flag.Parse()
	if *profile != "" && *farm == 0 {
		f, err := os.Create(*profile)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	var err error
	if *farm > 0 {
		err = serveFarm(*farm, *hbTimeout)
	} else {
		err = measure(*agents, *seconds, *ops, *hbTimeout)
	}
	if err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "controllerscale:", err)
		os.Exit(1)
	}
}

// fakeEngine is the benchmark's fake engine: no load, one snapshot a
// second with Ops operations whose counts grow, until DurationS.
type fakeEngine struct{ engine.Base }

type fakeParams struct {
	DurationS int `json:"duration_s"`
	Ops       int `json:"ops"`
}

type fakePhase struct {
	env  engine.Env
	name string
	p    fakeParams
}

func (fakeEngine) Prepare(_ context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	var fp fakeParams
	if err := json.Unmarshal(p.Params, &fp); err != nil {
		return nil, err
	}
	return &fakePhase{env: env, name: p.Name, p: fp}, nil
}

var opNames = []string{"file-create", "file-stat", "file-read", "file-remove", "dir-create", "dir-stat", "dir-remove", "tree-create", "tree-remove"}

func (f *fakePhase) Run(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	if err := engine.WaitUntil(ctx, startAt); err != nil {
		return nil, err
	}
	start := time.Now()
	end := start.Add(time.Duration(f.p.DurationS) * time.Second)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	counts := make([]record.Count, min(f.p.Ops, len(opNames)))
	for i := range counts {
		counts[i].Op = opNames[i]
	}
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case now := <-t.C:
			for i := range counts {
				counts[i].Ops += 12345
				counts[i].Bytes += 12345 * 4096
			}
			live(engine.Snapshot{Host: f.env.Host, Phase: f.name, Stage: "run", Elapsed: now.Sub(start),
				Planned: end.Sub(start), Ops: append([]record.Count(nil), counts...)})
			done = !now.Before(end)
		}
	}
	stop := time.Now()
	res := &engine.HostResult{Host: f.env.Host}
	for _, c := range counts {
		res.Ops = append(res.Ops, record.OpStats{Op: c.Op, Ops: c.Ops, Bytes: c.Bytes, StartNs: start.UnixNano(), EndNs: stop.UnixNano()})
	}
	return res, ctx.Err()
}

func (f *fakePhase) Cleanup(context.Context) error { return nil }

var engines = engine.Registry{"scale-fake": fakeEngine{}}

// countingConn counts the bytes the farm's agents read and write.
type countingConn struct {
	net.Conn
	in, out *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.in.Add(int64(n))
	return n, err
}

func (c countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.out.Add(int64(n))
	return n, err
}

type countingListener struct {
	net.Listener
	in, out *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c, l.in, l.out}, nil
}

// serveFarm serves n agents on loopback ports with the token read from
// stdin's first line, prints "agent ADDR" for each, then "ready", then
// every second "bytes UNIXNS IN OUT" (what the agents read and wrote).
// When stdin closes it prints "hbgaps P50 P99 MAX": the gaps between one
// agent's consecutive heartbeats, in seconds, over every agent; then it
// ends.
func serveFarm(n int, hbTimeout time.Duration) error {
	in := bufio.NewReader(os.Stdin)
	token, err := in.ReadString('\n')
	if err != nil {
		return errors.New("farm: no token on stdin")
	}
	token = strings.TrimSpace(token)
	var bytesIn, bytesOut atomic.Int64
	out := bufio.NewWriter(os.Stdout)
	beats := make([]beatLog, n)
	for i := range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := &cluster.Server{Agent: &cluster.LocalAgent{Host: fmt.Sprintf("agent%04d", i), Version: "scale", FioBin: "/nonexistent/fio", Engines: engines},
			Token: token, HeartbeatTimeout: hbTimeout,
			Logf: func(format string, args ...any) {
				if l := fmt.Sprintf(format, args...); strings.Contains(l, "stopping the phase") {
					fmt.Fprintf(os.Stderr, "farm %s: agent%04d: %s\n", time.Now().Format("15:04:05.000"), i, l)
				}
			}}
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == cluster.PathPrefix+"/heartbeat" {
				beats[i].add(time.Now())
			}
			srv.ServeHTTP(w, r)
		})
		go func() { _ = (&http.Server{Handler: h}).Serve(countingListener{ln, &bytesIn, &bytesOut}) }()
		fmt.Fprintf(out, "agent %s\n", ln.Addr())
	}
	fmt.Fprintln(out, "ready")
	_ = out.Flush()
	eof := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, in)
		close(eof)
	}()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-eof:
			var gaps []float64
			for i := range beats {
				gaps = append(gaps, beats[i].gaps()...)
			}
			slices.Sort(gaps)
			if len(gaps) > 0 {
				fmt.Printf("hbgaps %.3f %.3f %.3f\n", gaps[len(gaps)/2], gaps[len(gaps)*99/100], gaps[len(gaps)-1])
			}
			return nil
		case now := <-t.C:
			fmt.Printf("bytes %d %d %d\n", now.UnixNano(), bytesIn.Load(), bytesOut.Load())
		}
	}
}

// beatLog is when one agent's heartbeats came.
type beatLog struct {
	mu sync.Mutex
	at []time.Time
}

func (b *beatLog) add(t time.Time) {
	b.mu.Lock()
	b.at = append(b.at, t)
	b.mu.Unlock()
}

func (b *beatLog) gaps() []float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []float64
	for i := 1; i < len(b.at); i++ {
		out = append(out, b.at[i].Sub(b.at[i-1]).Seconds())
	}
	return out
}

// sample is the controller process at one instant.
type sample struct {
	at         time.Time
	cpu        time.Duration // user + system since the process started
	rss        int64         // bytes
	fds        int
	goroutines int
}

func takeSample() sample {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	s := sample{at: time.Now(), cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), goroutines: runtime.NumGoroutine()}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				s.rss = kb << 10
			}
		}
	}
	if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
		s.fds = len(ents)
	}
	return s
}

// liveLine does the command line's live-line work on every update and
// records when each came.
type liveLine struct {
	mu       sync.Mutex
	at       []time.Time
	prev     map[string]record.Count
	prevHost map[string]uint64
	prevAt   time.Time
	last     string
}

func (l *liveLine) update(pr cluster.Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	l.at = append(l.at, now)
	total := map[string]record.Count{}
	var order []string
	cur := make(map[string]uint64, len(pr.Hosts))
	for _, h := range pr.Hosts {
		var n uint64
		for _, c := range h.Ops {
			t, seen := total[c.Op]
			if !seen {
				order = append(order, c.Op)
			}
			t.Ops, t.Bytes, t.Errors = t.Ops+c.Ops, t.Bytes+c.Bytes, t.Errors+c.Errors
			total[c.Op] = t
			n += c.Ops
		}
		cur[h.Host] = n
	}
	dt := now.Sub(l.prevAt).Seconds()
	var parts []string
	for _, op := range order {
		c, p := total[op], l.prev[op]
		if dt > 0 && c.Ops >= p.Ops {
			parts = append(parts, fmt.Sprintf("%s %.0f op/s %.1f MB/s", op, float64(c.Ops-p.Ops)/dt, float64(c.Bytes-p.Bytes)/dt/1e6))
		}
	}
	lo, hi := -1.0, 0.0
	for h, n := range cur {
		r := 0.0
		if p, ok := l.prevHost[h]; ok && n >= p && dt > 0 {
			r = float64(n-p) / dt
		}
		if lo < 0 || r < lo {
			lo = r
		}
		hi = max(hi, r)
	}
	parts = append(parts, fmt.Sprintf("per host op/s: min %.0f, max %.0f (%d hosts)", lo, hi, len(pr.Hosts)))
	l.prev, l.prevHost, l.prevAt = total, cur, now
	l.last = fmt.Sprintf("[%s] %s  %s", pr.Phase, pr.Elapsed.Round(time.Second), strings.Join(parts, ", "))
}

// startFarm starts the farm process and returns its agents' addresses and
// a reader of its later lines; closing stdin ends it.
func startFarm(n int, hbTimeout time.Duration, token string) (*exec.Cmd, io.WriteCloser, []string, *bufio.Scanner, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	cmd := exec.Command(self, "-farm", strconv.Itoa(n), "-hb-timeout", hbTimeout.String())
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, nil, err
	}
	fmt.Fprintln(stdin, token)
	sc := bufio.NewScanner(stdout)
	var addrs []string
	for sc.Scan() {
		l := sc.Text()
		if l == "ready" {
			return cmd, stdin, addrs, sc, nil
		}
		if a, ok := strings.CutPrefix(l, "agent "); ok {
			addrs = append(addrs, a)
		}
	}
	return nil, nil, nil, nil, fmt.Errorf("the farm ended after %d agents", len(addrs))
}

func measure(n, seconds, ops int, hbTimeout time.Duration) error {
	var b [32]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	farm, farmIn, addrs, farmOut, err := startFarm(n, hbTimeout, token)
	if err != nil {
		return err
	}
	defer func() { _ = farmIn.Close(); _ = farm.Wait() }()
	hbgaps := make(chan string, 1)
	var marksMu sync.Mutex
	var marks []mark
	go func() {
		for farmOut.Scan() {
			f := strings.Fields(farmOut.Text())
			if len(f) == 4 && f[0] == "bytes" {
				ns, _ := strconv.ParseInt(f[1], 10, 64)
				in, _ := strconv.ParseInt(f[2], 10, 64)
				out, _ := strconv.ParseInt(f[3], 10, 64)
				marksMu.Lock()
				marks = append(marks, mark{time.Unix(0, ns), in, out})
				marksMu.Unlock()
			}
			if g, ok := strings.CutPrefix(farmOut.Text(), "hbgaps "); ok {
				hbgaps <- g
			}
		}
	}()
	agents := make([]cluster.Agent, n)
	for i, a := range addrs {
		agents[i] = &cluster.RemoteAgent{Addr: a, Host: fmt.Sprintf("agent%04d", i), Token: token, Controller: "scale"}
	}
	live := &liveLine{prevAt: time.Now()}
	ctrl := &cluster.Controller{Agents: agents, Engines: engines, Lead: 2 * time.Second, Progress: live.update, Name: "scale"}

	var samplesMu sync.Mutex
	samples := []sample{takeSample()}
	stopSampling := make(chan struct{})
	go sampleEverySecond(stopSampling, &samplesMu, &samples)
	ctx := context.Background()
	t0 := time.Now()
	if _, err := ctrl.Connect(ctx); err != nil {
		return fmt.Errorf("connect: %v", err)
	}
	connect := time.Since(t0)
	params, _ := json.Marshal(fakeParams{DurationS: seconds, Ops: ops})
	phase := engine.Phase{Name: "scale", Engine: "scale-fake", Params: params}
	out, err := ctrl.RunPhase(ctx, "scale-run", false, phase)
	if err != nil {
		return fmt.Errorf("phase: %v", err)
	}
	close(stopSampling)
	if len(out.Results) != n || len(out.Lost) > 0 {
		return fmt.Errorf("%d results, %d lost of %d agents", len(out.Results), len(out.Lost), n)
	}
	samplesMu.Lock()
	defer samplesMu.Unlock()
	_ = farmIn.Close()
	gaps := "(none)"
	select {
	case gaps = <-hbgaps:
	case <-time.After(30 * time.Second):
	}
	marksMu.Lock()
	defer marksMu.Unlock()
	report(n, seconds, ops, connect, out, samples, live, marks)
	fmt.Printf("heartbeats (agents' side, the whole phase): gap between an agent's consecutive beats median, p99, max (s): %s; the agents' timeout: %s\n", gaps, hbTimeout)
	return nil
}

// sampleEverySecond appends a sample to *samples (under mu) every second
// until stop is closed.
func sampleEverySecond(stop <-chan struct{}, mu *sync.Mutex, samples *[]sample) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s := takeSample()
			mu.Lock()
			*samples = append(*samples, s)
			mu.Unlock()
		}
	}
}

// mark is the farm's byte counters at one instant.
type mark struct {
	at      time.Time
	in, out int64
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// report prints, for the seconds of the run stage, the controller's CPU
// (cores: CPU seconds per second), RSS, open files and goroutines, the
// live line's intervals, and the bytes the agents read and wrote per
// second.
func report(n, seconds, ops int, connect time.Duration, out *cluster.Outcome, samples []sample, live *liveLine, marks []mark) {
	fmt.Printf("controller driving %d agents (loopback, real protocol, fake engine, %d operations per snapshot), run stage %ds on %d cores\n",
		n, ops, seconds, runtime.NumCPU())
	fmt.Printf("connect (info + 5 clock samples each): %.2fs; prepare (5 clock samples + prepare): %.2fs; cleanup: %.2fs\n",
		connect.Seconds(), out.Prepare.Seconds(), out.Cleanup.Seconds())
	var cores []float64
	var rssMax int64
	var fdsMax, gMax int
	var first, last *sample
	gap := time.Duration(0)
	fmt.Println("second  cpu(cores)  rss(MiB)  fds  goroutines")
	for i := 1; i < len(samples); i++ {
		a, b := samples[i-1], samples[i]
		if a.at.Before(out.Start) || b.at.After(out.End) {
			continue
		}
		if first == nil {
			first = &samples[i-1]
		}
		last = &samples[i]
		gap = max(gap, b.at.Sub(a.at))
		rssMax, fdsMax, gMax = max(rssMax, b.rss), max(fdsMax, b.fds), max(gMax, b.goroutines)
		// A sample that came late (the process waited for a CPU) makes
		// the next interval short: only intervals near a second count.
		if dt := b.at.Sub(a.at).Seconds(); dt >= 0.5 {
			c := (b.cpu - a.cpu).Seconds() / dt
			cores = append(cores, c)
			fmt.Printf("%6.1f  %10.3f  %8.1f  %4d  %10d\n", b.at.Sub(out.Start).Seconds(), c, float64(b.rss)/(1<<20), b.fds, b.goroutines)
		}
	}
	if first != nil && last != first {
		fmt.Printf("run stage: controller CPU %.3f cores over %.0fs (per second: median %.3f, max %.3f); RSS max %.1f MiB; fds max %d; goroutines max %d; longest gap between samples %.2fs\n",
			(last.cpu-first.cpu).Seconds()/last.at.Sub(first.at).Seconds(), last.at.Sub(first.at).Seconds(),
			median(cores), slices.Max(append(cores, 0)), float64(rssMax)/(1<<20), fdsMax, gMax, gap.Seconds())
	}
	var iv []float64
	for i := 1; i < len(live.at); i++ {
		if live.at[i-1].After(out.Start) && live.at[i].Before(out.End) {
			iv = append(iv, live.at[i].Sub(live.at[i-1]).Seconds())
		}
	}
	fmt.Printf("live line: %d updates in the run stage, interval median %.3fs, max %.3fs\n", len(iv)+1, median(iv), slices.Max(append(iv, 0)))
	var in []mark
	for _, m := range marks {
		if m.at.After(out.Start) && m.at.Before(out.End) {
			in = append(in, m)
		}
	}
	if len(in) >= 2 {
		a, b := in[0], in[len(in)-1]
		dt := b.at.Sub(a.at).Seconds()
		fmt.Printf("wire (agents' side, run stage): controller->agents %.0f B/s, agents->controller %.0f B/s (%.0f and %.0f B per agent per second)\n",
			float64(b.in-a.in)/dt, float64(b.out-a.out)/dt, float64(b.in-a.in)/dt/float64(n), float64(b.out-a.out)/dt/float64(n))
	}
	fmt.Printf("last live line: %.200s\n", live.last)
}
