package cpuload

import (
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
)

// A sample reads every counter again and appends to series allocated at
// the start: in the steady state it allocates nothing (a sampler that
// allocated would feed the garbage collector once a second on every
// host, beside the load).
func TestSampleAllocatesNothing(t *testing.T) {
	s := newSampler(time.Now())
	defer s.close()
	at := time.Now()
	s.sample(at.Add(time.Second)) // the buffers have grown to the files
	n := 1
	allocs := testing.AllocsPerRun(200, func() {
		n++
		s.sample(at.Add(time.Duration(n) * time.Second))
	})
	if allocs != 0 {
		t.Errorf("a sample allocates %.1f times, want none", allocs)
	}
}

// BenchmarkSample is one sample's cost (run with -benchmem: 0 allocs/op).
func BenchmarkSample(b *testing.B) {
	s := newSampler(time.Now())
	defer s.close()
	at := time.Now()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if len(s.ts) == cap(s.ts) {
			b.StopTimer()
			s.close()
			s = newSampler(time.Now())
			b.StartTimer()
		}
		s.sample(at.Add(time.Duration(i+1) * time.Second))
	}
}

// A busy loop in this process for two seconds on a host sampled by a
// Monitor: the samples are there, one a second, the busiest core at
// least near full in one of them, and the host's memory and cores
// named; the verdicts are judged from them.
func TestMonitorSamplesTheHost(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc")
	}
	m := Start(time.Now())
	stop := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		for {
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	time.Sleep(3200 * time.Millisecond)
	close(stop)
	c := m.Stop()
	h := c.Samples
	if h == nil {
		t.Fatal("no samples")
	}
	// One a second from the monitor's start. On a starved machine its
	// goroutine may begin late (under load 30 it covered only 2.5 of the
	// 3.2 s), so the count is held to the seconds it covered: at least
	// two samples, none closer than 0.9 s but a last part second (at
	// least half one) at Stop, none further apart than a starved 2 s.
	if n := len(h.TS); n < 2 || n > 4 || len(h.UserPct) != n || len(h.UsedPct) != n || len(h.RunQueue) != n || len(h.CoreBusyPct) != runtime.NumCPU() {
		t.Fatalf("%d samples over 3.2 s (want 2 to 4, every series as long, a series per core): %+v", n, h)
	}
	for i, prev := 0, 0.0; i < len(h.TS); i++ {
		least := 0.9
		if i == len(h.TS)-1 {
			least = 0.5
		}
		if gap := h.TS[i] - prev; gap < least || gap > 2 {
			t.Fatalf("sample %d at %.3f s, %.3f s after the one before: want one a second %v", i, h.TS[i], gap, h.TS)
		}
		prev = h.TS[i]
	}
	if h.Cores == "" || len(h.MemUsedBytes) == 0 || h.MemUsedBytes[0] <= 0 || h.CacheBytes[0] <= 0 {
		t.Errorf("cores %q, memory %v, cache %v", h.Cores, h.MemUsedBytes, h.CacheBytes)
	}
	busiest := 0.0
	for _, core := range h.CoreBusyPct {
		for _, v := range core {
			busiest = max(busiest, v)
		}
	}
	if busiest < 50 {
		t.Errorf("a busy loop ran 3 s, yet no core was half busy in any second: %v", h.CoreBusyPct)
	}
	if got, want := len(c.Verdicts), len(Verdicts(c)); got != want {
		t.Errorf("the monitor's verdicts %v, judged again %v", c.Verdicts, Verdicts(c))
	}
}

// The verdicts from hand-made samples, each at its threshold and just
// under it.
func TestVerdictsThresholds(t *testing.T) {
	q := 0.1
	link := 1.25e9 // 10 Gb/s
	others, half, quarter, little := 60.0, 48.5, 27.0, 10.0
	for _, tc := range []struct {
		name string
		c    model.ClientLoad
		want []string
	}{
		{"quota used in half the seconds", model.ClientLoad{Samples: &model.HostSamples{Cores: "0-1", QuotaCPUs: &q, UsedPct: []float64{95, 99, 50, 10}}},
			[]string{"client CPU saturated: its cgroup's quota of 0.1 CPUs (cores 0-1) 95% used or more, or throttled in 50% of its periods, in 2 of 4 s"}},
		{"quota used in less than half", model.ClientLoad{Samples: &model.HostSamples{Cores: "0-1", QuotaCPUs: &q, UsedPct: []float64{95, 94.9, 50, 10}}}, nil},
		{"quota throttled in half the seconds", model.ClientLoad{Samples: &model.HostSamples{Cores: "0", QuotaCPUs: &q,
			UsedPct: []float64{89, 94.9, 50, 10}, ThrottledPct: []float64{90, 50, 49.9, 0}}},
			[]string{"client CPU saturated: its cgroup's quota of 0.1 CPUs (cores 0) 95% used or more, or throttled in 50% of its periods, in 2 of 4 s"}},
		{"quota throttled in less than half", model.ClientLoad{Samples: &model.HostSamples{Cores: "0", QuotaCPUs: &q,
			UsedPct: []float64{89, 94.9, 50, 10}, ThrottledPct: []float64{90, 49, 49.9, 0}}}, nil},
		{"cores busy", model.ClientLoad{Samples: &model.HostSamples{Cores: "0-3", UsedPct: []float64{96, 97, 98}}},
			[]string{"client CPU saturated: cores 0-3 95% busy or more in 3 of 3 s"}},
		{"cores busy with other work", model.ClientLoad{ClientSummary: model.ClientSummary{OthersPct: &others, Starved: true, Why: "other work took 60% of its CPU time"},
			Samples: &model.HostSamples{Cores: "0-3", UsedPct: []float64{96, 97, 98}}},
			[]string{"client starved: other work took 60% of its CPU time"}},
		// Other work took half of what was busy and not half the host:
		// not the client's own limit, nor starved, and said.
		{"cores busy, half of it other work", model.ClientLoad{ClientSummary: model.ClientSummary{OthersPct: &half},
			Samples: &model.HostSamples{Cores: "0-3", UsedPct: []float64{96, 97, 98}}},
			[]string{"client shares its CPU with other work: other work took 48% of the host's CPU time, half or more of what was busy, while cores 0-3 95% busy or more in 3 of 3 s"}},
		{"a thread at a core, other work half of what was busy", model.ClientLoad{ClientSummary: model.ClientSummary{OthersPct: &quarter},
			Samples: &model.HostSamples{Cores: "0-1", TS: []float64{1, 2, 3, 4}, UsedPct: []float64{60, 58, 56, 40},
				BusiestThread: &model.BusiestThread{Process: "fio", Pid: 4321, Tid: 4321, Seconds: 3}}},
			[]string{"client shares its CPU with other work: other work took 27% of the host's CPU time, half or more of what was busy, while one thread of fio (pid 4321) at 100% of a core (running or ready to run 95% of the time or more) in 3 of 4 s"}},
		{"cores busy, most of it ours", model.ClientLoad{ClientSummary: model.ClientSummary{OthersPct: &little},
			Samples: &model.HostSamples{Cores: "0-3", UsedPct: []float64{96, 97, 98}}},
			[]string{"client CPU saturated: cores 0-3 95% busy or more in 3 of 3 s"}},
		{"link", model.ClientLoad{Samples: &model.HostSamples{Net: []model.NetSamples{{Name: "eth0", LinkBytesPerS: &link,
			RxBytesPerS: []float64{1.2e9, 1.2e9, 0}, TxBytesPerS: []float64{0, 0, 0}}}}},
			[]string{"client network at 96% of its link: eth0 (10 Gb/s)"}},
		{"link under", model.ClientLoad{Samples: &model.HostSamples{Net: []model.NetSamples{{Name: "eth0", LinkBytesPerS: &link,
			RxBytesPerS: []float64{1.1e9, 1.1e9, 0}, TxBytesPerS: []float64{0, 0, 0}}}}}, nil},
		{"disk", model.ClientLoad{Samples: &model.HostSamples{Disks: []model.DiskSamples{{Name: "sda", BusyPct: []float64{90, 100, 3, 0}}}}},
			[]string{"client waited on its own disk: sda busy 90% or more in 2 of 4 s"}},
		{"nothing sampled", model.ClientLoad{}, nil},
		{"the local server took what other work did not", model.ClientLoad{ClientSummary: model.ClientSummary{OthersPct: &little,
			LocalServers: []model.LocalServer{{Process: "versitygw", Pid: 77, CPUPct: 45}}},
			Samples: &model.HostSamples{Cores: "0-1", UsedPct: []float64{99, 99}}},
			[]string{"client shares its CPU with the local server: versitygw (pid 77) took 45% of the host's CPU time, other work 10%"}},
		{"the local server took a little", model.ClientLoad{ClientSummary: model.ClientSummary{OthersPct: &little,
			LocalServers: []model.LocalServer{{Process: "versitygw", Pid: 77, CPUPct: 20}}}}, nil},
		{"a thread at a core in half the seconds", model.ClientLoad{Samples: &model.HostSamples{Cores: "0-1", TS: []float64{1, 2, 3, 4}, UsedPct: []float64{52, 51, 50, 10},
			BusiestThread: &model.BusiestThread{Process: "fio", Pid: 4321, Tid: 4321, Seconds: 2}}},
			[]string{"client CPU saturated: one thread of fio (pid 4321) at 100% of a core (running or ready to run 95% of the time or more) in 2 of 4 s"}},
		{"a thread at a core in less than half", model.ClientLoad{Samples: &model.HostSamples{Cores: "0-1", TS: []float64{1, 2, 3, 4}, UsedPct: []float64{52, 51, 50, 10},
			BusiestThread: &model.BusiestThread{Process: "fio", Pid: 4321, Tid: 4321, Seconds: 1}}}, nil},
		{"a thread of a process of many, with the cores busy", model.ClientLoad{Samples: &model.HostSamples{Cores: "0-1", TS: []float64{1, 2}, UsedPct: []float64{99, 99},
			BusiestThread: &model.BusiestThread{Process: "storbench", Pid: 10, Tid: 12, Seconds: 2}}},
			[]string{"client CPU saturated: cores 0-1 95% busy or more in 2 of 2 s; one thread of storbench (pid 10, thread 12) at 100% of a core (running or ready to run 95% of the time or more) in 2 of 2 s"}},
		// At a load of 12 per CPU a fio job reading 2 MiB/s was ready to
		// run all the time: it waited for cores other work took.
		{"a thread ready to run on cores other work took", model.ClientLoad{ClientSummary: model.ClientSummary{OthersPct: &others, Starved: true, Why: "other work took 60% of its CPU time"},
			Samples: &model.HostSamples{Cores: "0-1", TS: []float64{1, 2, 3, 4}, UsedPct: []float64{99, 99, 99, 99},
				BusiestThread: &model.BusiestThread{Process: "fio", Pid: 4321, Tid: 4321, Seconds: 4}}},
			[]string{"client starved: other work took 60% of its CPU time"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, v := range Verdicts(&tc.c) {
				got = append(got, v.Text)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("verdicts %q, want %q", got, tc.want)
			}
		})
	}
}

// The cgroup files as the kernel writes them.
func TestCgroupFiles(t *testing.T) {
	dir := t.TempDir()
	w := func(name, s string) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if q := quotaV2(w("max", "max 100000\n")); q != 0 {
		t.Errorf("cpu.max max: quota %v", q)
	}
	if q := quotaV2(w("q", "10000 100000\n")); q != 0.1 {
		t.Errorf("cpu.max 10000 100000: quota %v", q)
	}
	if q := quotaV1(w("q1", "-1\n"), w("p1", "100000\n")); q != 0 {
		t.Errorf("cfs_quota_us -1: quota %v", q)
	}
	if q := quotaV1(w("q2", "50000\n"), w("p1", "100000\n")); q != 0.5 {
		t.Errorf("cfs_quota_us 50000: quota %v", q)
	}
	if got := CoreList(parseCPUList("0-3,8,10-11")); got != "0-3,8,10-11" {
		t.Errorf("cpu list: %q", got)
	}
	l := cpuLimit{usage: openProc(w("cpu.stat", "usage_usec 1234\nuser_usec 1000\n")), usageV2: true}
	defer l.usage.close()
	if ns, ok := l.usageNs(); !ok || ns != 1234000 {
		t.Errorf("usage_usec 1234: %d ns, %v", ns, ok)
	}
}

// cpuTime is this process's CPU time (user and system).
func cpuTime(t testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSamplerCost measures what sampling costs a host: a Monitor
// runs with its sampler and without it in alternating rounds of 2 s
// of its steady state
// (16 rounds, 8 each way: what else loads the machine falls on both
// alike), and the difference in this process's CPU time, over the
// rounds' time, is the sampler's share of a core. Run it alone:
//
//	go test -run '^$' -bench SamplerCost -benchtime 1x ./internal/cpuload
//
// It fails above 0.5% of a core.
func BenchmarkSamplerCost(b *testing.B) {
	const rounds, round = 16, 2 * time.Second
	for b.Loop() {
		var on, off time.Duration
		var onWall, offWall time.Duration
		for i := range rounds {
			sampling := i%2 == 0
			// The monitor's start and end (the process table read twice,
			// the files opened) are outside the round: the steady state
			// is measured.
			m := start(time.Now(), sampling)
			time.Sleep(300 * time.Millisecond)
			t0, c0 := time.Now(), cpuTime(b)
			time.Sleep(round)
			wall, cpu := time.Since(t0), cpuTime(b)-c0
			c := m.Stop()
			if sampling != (c.Samples != nil) {
				b.Fatalf("round %d: sampling %v, samples %v", i, sampling, c.Samples)
			}
			if sampling {
				on, onWall = on+cpu, onWall+wall
			} else {
				off, offWall = off+cpu, offWall+wall
			}
		}
		onPct, offPct := 100*on.Seconds()/onWall.Seconds(), 100*off.Seconds()/offWall.Seconds()
		cost := onPct - offPct
		b.ReportMetric(onPct, "on_pct_of_core")
		b.ReportMetric(offPct, "off_pct_of_core")
		b.ReportMetric(cost, "cost_pct_of_core")
		if cost >= 0.5 {
			b.Errorf("sampling costs %.3f%% of a core (%.3f%% on, %.3f%% off), want under 0.5%%", cost, onPct, offPct)
		}
	}
}
