package cpuload

import (
	"net"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
)

// hog starts n busy loops outside this process's tree (each reparented
// once its shell exits), as other work on the host is, and stops them
// when the test ends.
func hog(t *testing.T, n int) {
	t.Helper()
	out, err := exec.Command("sh", "-c", `for i in $(seq `+strconv.Itoa(n)+`); do (while :; do :; done) </dev/null >/dev/null 2>&1 & echo $!; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(out)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	}
}

// Two busy loops per CPU beside a phase that itself needs little: other
// work took most of the host's CPU, and the phase says it was starved,
// with the load it saw. Before, nothing measured it: a starved client's
// figures passed as the storage's.
func TestOtherWorkMarksTheClientStarved(t *testing.T) {
	hog(t, 2*runtime.NumCPU())
	time.Sleep(200 * time.Millisecond) // the loops are running
	m := Start(time.Now())
	// Long enough for the kernel's 10-ms ticks to give shares.
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
	}
	c := m.Stop()
	if c == nil || c.OthersPct == nil || c.LoadEnd == nil || c.CPUs != runtime.NumCPU() {
		t.Fatalf("figures not taken: %+v", c)
	}
	if *c.OthersPct < StarvedOthersPct || !c.Starved || !strings.Contains(c.Why, "other work took") || !strings.Contains(c.Why, "load average") {
		t.Errorf("two busy loops per CPU: others %.0f%%, starved %v (%q); want at least %.0f%%, starved, said with the load", *c.OthersPct, c.Starved, c.Why, StarvedOthersPct)
	}
}

// A run stopped before its start measured nothing: no figures, not zeros.
func TestStoppedBeforeItsStartMeasuresNothing(t *testing.T) {
	if c := Start(time.Now().Add(time.Hour)).Stop(); c != nil {
		t.Errorf("a run that never began: %+v, want none", c)
	}
}

// A tool that gave up for want of CPU marks the host starved whatever
// the figures, and keeps the measured figures beside it.
func TestGaveUpIsStarved(t *testing.T) {
	low := 1.0
	m := &model.ClientLoad{ClientSummary: model.ClientSummary{OthersPct: &low}}
	c := Merge(m, GaveUp(nil, "fio gave up"))
	if !c.Starved || c.OthersPct == nil || !strings.Contains(c.Why, "fio gave up") {
		t.Errorf("got %+v, want starved for fio's giving up, the figures kept", c)
	}
	fresh := &model.ClientLoad{ClientSummary: model.ClientSummary{OthersPct: &low}}
	if Merge(fresh, nil) != fresh || fresh.Starved {
		t.Errorf("no engine mark: %+v, want the measured figures alone, not starved", fresh)
	}
}

// BenchmarkMonitorEnd is what a phase's end costs a host beside its
// samples: the kernel's counters read again and the local servers looked
// for (none here: this process serves and dials nothing on loopback), as
// every host does at every phase's end, and once more a second into the
// phase.
func BenchmarkMonitorEnd(b *testing.B) {
	first := take()
	done := make(chan struct{})
	close(done)
	b.ReportAllocs()
	for b.Loop() {
		m := &Monitor{stop: make(chan struct{}), done: done, begun: true, first: first}
		if m.Stop() == nil {
			b.Fatal("no figures")
		}
	}
}

// BenchmarkProcTable is one reading of the process table, twice a phase
// on every host.
func BenchmarkProcTable(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if procTable() == nil {
			b.Fatal("no process table")
		}
	}
}

// localServers reads the kernel's TCP table only when this process holds
// a connection it could name a server by: one it made to loopback. A
// listening port and the connections it accepted from another process
// (an agent's controller) are not; a connection it dialled is, to any
// port on loopback but its own listening ones.
func TestDialsLoopbackOnlyForItsOwnConnections(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if dialsLoopback() {
		t.Fatal("a process that only listens: dials loopback, want not")
	}
	// Another process dials this one's listening port, as a controller
	// dials its agent.
	port := ln.Addr().(*net.TCPAddr).Port
	peer := exec.Command("bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/"+strconv.Itoa(port)+"; read -t 30 <&3")
	if err := peer.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = peer.Process.Kill(); _ = peer.Wait() }()
	accepted, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer accepted.Close()
	if dialsLoopback() {
		t.Error("a process whose one connection was accepted from another: dials loopback, want not")
	}
	if localServers(func() func(int) bool { t.Error("ours asked for with no connection made"); return nil }) != nil {
		t.Error("local servers found with no connection made")
	}
	dialled, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer dialled.Close()
	if !dialsLoopback() {
		t.Error("a process that dialled a port on loopback: does not dial loopback, want it does")
	}
}
