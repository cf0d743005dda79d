// Command controllerscale measures the controller driving many agents
// (issue 15, item 5): its CPU and memory during each second of a phase, and
// the cadence of the live line.
//
// The agents are real agent servers (cluster.Server, the protocol storbench
// agent serves) on loopback ports, in other processes, the farms (this
// program with -farm), so the figures are the controller's alone. Each farm
// serves at most -per-farm agents (two descriptors each, its listener and
// the controller's connection), so 10,000 agents fit under a process's
// 20,000-descriptor limit; the controller holds one connection per agent. They run a
// fake engine, "scale-fake", registered only here: it does no I/O and sends
// one snapshot a second, with -ops operations' cumulative counts, as a busy
// md or s3 phase does. The controller is cluster.Controller, as storbench
// run uses it: connect (info and clock samples), then one phase (clock
// samples, prepare, common start, heartbeats every second per agent, the
// snapshot streams, results, cleanup). Its Progress callback does the work
// of the command line's live line (totals per operation over every host, a
// rate per host, min and max across hosts, the formatted line), writing the
// line nowhere; the rates are each host's own (its counts over its own
// elapsed time), so an update that comes early or late, as the last one
// does, shows the true rate.
//
// usage: go run ./bench/controllerscale [-agents 1000] [-seconds 30] [-ops 4]
// [-per-farm 2500] [-hb-timeout 3s]
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
	profile := flag.String("cpuprofile", "", "write the controller's CPU profile here (and farm K's to this path with .farmK added)")
	memProfile := flag.String("memprofile", "", "write the controller's heap profile here, taken at the run stage's first live update (every agent prepared, every run stream open); its alloc_space covers connect and prepare")
	perFarm := flag.Int("per-farm", 2500, "agents per farm process")
	hbTimeout := flag.Duration("hb-timeout", cluster.HeartbeatTimeout, "the heartbeat timeout (the controller's knob: the agents' timeout, and its own silence 2 s more)")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	var err error
	if *farm > 0 {
		err = serveFarm(*farm)
	} else {
		err = measure(*agents, *perFarm, *seconds, *ops, *hbTimeout, *profile, *memProfile)
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
// agent's consecutive heartbeats (a request each, or reads of the
// phase's heartbeat stream), in seconds, over every agent; then it ends.
func serveFarm(n int) error {
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
		srv := &cluster.Server{Agent: farmAgent(i), Token: token,
			Logf: func(format string, args ...any) {
				if l := fmt.Sprintf(format, args...); strings.Contains(l, "stopping the phase") {
					fmt.Fprintf(os.Stderr, "farm %s: agent%04d: %s\n", time.Now().Format("15:04:05.000"), i, l)
				}
			}}
		hs := srv.HTTPServer()
		hs.Handler = noteBeats(srv, &beats[i])
		go func() { _ = hs.Serve(countingListener{ln, &bytesIn, &bytesOut}) }()
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
			} else {
				fmt.Println("hbgaps (none: no agent heard two heartbeats)")
			}
			return nil
		case now := <-t.C:
			fmt.Printf("bytes %d %d %d\n", now.UnixNano(), bytesIn.Load(), bytesOut.Load())
		}
	}
}

// farmAgent is the farm's agent i. It measures no client CPU: each
// agent's monitor reads the process table and this process's descriptors
// (2,500 agents' sockets) once a second, and 2,500 of them took 61% of a
// farm's CPU in its profile, so that the farm, beside a CPU hog, handled
// its agents' heartbeats 30 s late and they stopped their phase (5,000
// agents: 4,450 lost). A real agent host runs one agent.
func farmAgent(i int) *cluster.LocalAgent {
	return &cluster.LocalAgent{Host: fmt.Sprintf("agent%04d", i), Version: "scale", Tools: engine.Tools{"fio": "/nonexistent/fio"},
		Engines: engines, NoClientLoad: true}
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

// noteBeats serves agent srv and notes in log when its heartbeats come:
// a request each, or, over HTTP/2, the phase's one heartbeat request,
// whose start is a beat and so is each read that brings bytes (as the
// agent's session counts them). Before, only the first kind was noted, and
// since the heartbeat stream the bench printed no gaps at all.
func noteBeats(srv *cluster.Server, log *beatLog) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case cluster.PathPrefix + "/heartbeat":
			log.add(time.Now())
		case cluster.PathPrefix + "/heartbeats":
			log.add(time.Now())
			r.Body = beatReader{r.Body, log}
		}
		srv.ServeHTTP(w, r)
	})
}

// beatReader notes a beat in log for each read of the heartbeat stream
// that brings bytes.
type beatReader struct {
	io.ReadCloser
	log *beatLog
}

func (r beatReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if n > 0 {
		r.log.add(time.Now())
	}
	return n, err
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

// peakRSS is the process's peak resident set (VmHWM), in bytes.
func peakRSS() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
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

// farm is one farm process: its agents' addresses, its byte counters
// every second and, once it ends, its heartbeat gaps.
type farm struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	addrs  []string
	mu     sync.Mutex
	marks  []mark
	hbgaps chan string
}

// startFarm starts a farm process of n agents; closing its stdin ends it.
func startFarm(n int, token, profile string) (*farm, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	f := &farm{cmd: exec.Command(self, "-farm", strconv.Itoa(n), "-cpuprofile", profile), hbgaps: make(chan string, 1)}
	f.cmd.Stderr = os.Stderr
	f.stdin, _ = f.cmd.StdinPipe()
	stdout, _ := f.cmd.StdoutPipe()
	if err := f.cmd.Start(); err != nil {
		return nil, err
	}
	fmt.Fprintln(f.stdin, token)
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		l := sc.Text()
		if l == "ready" {
			go f.read(sc)
			return f, nil
		}
		if a, ok := strings.CutPrefix(l, "agent "); ok {
			f.addrs = append(f.addrs, a)
		}
	}
	_ = f.stdin.Close()
	_ = f.cmd.Wait()
	return nil, fmt.Errorf("a farm ended after %d agents", len(f.addrs))
}

// read takes the farm's later lines: its byte counters and heartbeat gaps.
func (f *farm) read(sc *bufio.Scanner) {
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 4 && fs[0] == "bytes" {
			ns, _ := strconv.ParseInt(fs[1], 10, 64)
			in, _ := strconv.ParseInt(fs[2], 10, 64)
			out, _ := strconv.ParseInt(fs[3], 10, 64)
			f.mu.Lock()
			f.marks = append(f.marks, mark{time.Unix(0, ns), in, out})
			f.mu.Unlock()
		}
		if g, ok := strings.CutPrefix(sc.Text(), "hbgaps "); ok {
			f.hbgaps <- g
		}
	}
}

// end closes the farm's stdin and returns its heartbeat gaps.
func (f *farm) end() string {
	_ = f.stdin.Close()
	gaps := "(the farm told none within 30 s)"
	select {
	case gaps = <-f.hbgaps:
	case <-time.After(30 * time.Second):
	}
	_ = f.cmd.Wait()
	return gaps
}

// startFarms starts farms of at most perFarm agents for n agents, appended
// to farms (also when one fails: the caller ends them), and returns their
// agents' addresses.
func startFarms(n, perFarm int, token, cpuProfile string, farms []*farm) ([]*farm, []string, error) {
	var addrs []string
	for left := n; left > 0; left -= perFarm {
		farmProfile := ""
		if cpuProfile != "" {
			farmProfile = fmt.Sprintf("%s.farm%d", cpuProfile, len(farms))
		}
		f, err := startFarm(min(left, perFarm), token, farmProfile)
		if err != nil {
			return farms, nil, err
		}
		farms = append(farms, f)
		addrs = append(addrs, f.addrs...)
	}
	return farms, addrs, nil
}

func measure(n, perFarm, seconds, ops int, hbTimeout time.Duration, cpuProfile, memProfile string) error {
	var b [32]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	var farms []*farm
	defer func() {
		for _, f := range farms {
			_ = f.stdin.Close()
			_ = f.cmd.Wait()
		}
	}()
	farms, addrs, err := startFarms(n, perFarm, token, cpuProfile, farms)
	if err != nil {
		return err
	}
	agents := make([]cluster.Agent, n)
	for i, a := range addrs {
		agents[i] = &cluster.RemoteAgent{Addr: a, Host: fmt.Sprintf("agent%04d", i), Token: token, Controller: "scale", HeartbeatTimeout: hbTimeout}
	}
	live := &liveLine{}
	progress := live.update
	if memProfile != "" {
		var once sync.Once
		progress = func(pr cluster.Progress) {
			once.Do(func() { writeHeapProfile(memProfile) })
			live.update(pr)
		}
	}
	ctrl := &cluster.Controller{Agents: agents, Engines: engines, Lead: 2 * time.Second, Progress: progress, Name: "scale"}

	var samplesMu sync.Mutex
	samples := []sample{takeSample()}
	stopSampling := make(chan struct{})
	go sampleEverySecond(stopSampling, &samplesMu, &samples)
	ctx := context.Background()
	t0 := time.Now()
	// Printed however the run ends: a run that failed used CPU and memory
	// too, and they may be why it failed.
	var phaseStart, phaseEnd *sample
	defer func() { printCost(phaseStart, phaseEnd) }()
	if _, err := ctrl.Connect(ctx); err != nil {
		return fmt.Errorf("connect: %v", err)
	}
	connect := time.Since(t0)
	ps := takeSample()
	phaseStart = &ps
	params, _ := json.Marshal(fakeParams{DurationS: seconds, Ops: ops})
	phase := engine.Phase{Name: "scale", Engine: "scale-fake", Params: params}
	out, err := ctrl.RunPhase(ctx, "scale-run", false, phase)
	pe := takeSample()
	phaseEnd = &pe
	if err != nil {
		return fmt.Errorf("phase: %v", err)
	}
	close(stopSampling)
	if len(out.Results) != n || len(out.Lost) > 0 {
		return fmt.Errorf("%d results, %d lost of %d agents", len(out.Results), len(out.Lost), n)
	}
	samplesMu.Lock()
	defer samplesMu.Unlock()
	var gaps []string
	var marks [][]mark
	for _, f := range farms {
		gaps = append(gaps, f.end())
		f.mu.Lock()
		marks = append(marks, f.marks)
		f.mu.Unlock()
	}
	farms = nil
	report(n, seconds, ops, connect, out, samples, live, marks)
	fmt.Printf("heartbeats (agents' side, the whole phase): gap between an agent's consecutive beats median, p99, max (s), by farm of at most %d agents: %s; the heartbeat timeout: %s\n",
		perFarm, strings.Join(gaps, "; "), hbTimeout)
	return nil
}

// writeHeapProfile writes the controller's heap profile to path, after a
// collection so that its in-use figures are the live heap's.
func writeHeapProfile(path string) {
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "controllerscale: heap profile:", err)
		return
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "controllerscale: heap profile:", err)
	}
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
func report(n, seconds, ops int, connect time.Duration, out *cluster.Outcome, samples []sample, live *liveLine, marks [][]mark) {
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
	// Each farm's counters over its own run-stage samples, summed.
	var inRate, outRate float64
	for _, fm := range marks {
		var in []mark
		for _, m := range fm {
			if m.at.After(out.Start) && m.at.Before(out.End) {
				in = append(in, m)
			}
		}
		if len(in) >= 2 {
			a, b := in[0], in[len(in)-1]
			dt := b.at.Sub(a.at).Seconds()
			inRate, outRate = inRate+float64(b.in-a.in)/dt, outRate+float64(b.out-a.out)/dt
		}
	}
	if inRate > 0 {
		fmt.Printf("wire (agents' side, run stage): controller->agents %.0f B/s, agents->controller %.0f B/s (%.0f and %.0f B per agent per second)\n",
			inRate, outRate, inRate/float64(n), outRate/float64(n))
	}
	fmt.Printf("last live line: %.200s\n", live.last)
}

// printCost prints the controller's CPU seconds per second of the phase
// (from its start, from, to its end, to: prepare, run and cleanup, or up
// to where the phase failed) and its peak RSS over the whole run.
func printCost(from, to *sample) {
	if from != nil && to != nil {
		now := *to
		wall := now.at.Sub(from.at).Seconds()
		fmt.Printf("controller over the phase: %.3f CPU seconds per second (%.1f s of CPU in %.1f s)\n",
			(now.cpu-from.cpu).Seconds()/wall, (now.cpu - from.cpu).Seconds(), wall)
	}
	fmt.Printf("controller peak RSS (VmHWM, the whole run): %.1f MiB\n", float64(peakRSS())/(1<<20))
}
