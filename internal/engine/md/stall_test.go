package md

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// stallBarrier is the hosts' barrier of a run alone (as fakeBarrier), which
// before the file-create stage puts a FIFO where each worker's first file
// goes. A FIFO stands in for a file on a stalled file system: opening it
// for writing, as a create does, blocks in the kernel until a reader comes,
// as a create on a hung NFS server blocks until the server answers. The
// system call is real; only the reason it does not return is borrowed.
type stallBarrier struct {
	ws     string // the phase's directory
	fifos  []string
	placed chan struct{}
}

func (b *stallBarrier) Wait(ctx context.Context, name string, data []byte) (engine.Release, error) {
	if name == "0/file-create" {
		for i := range b.fifos {
			// Unique trees of depth 0: worker i's files are in it0/w<i>.
			b.fifos[i] = filepath.Join(b.ws, "it0", fmt.Sprintf("w%d", i), "f.0")
			if err := syscall.Mkfifo(b.fifos[i], 0o644); err != nil {
				return engine.Release{}, err
			}
		}
		close(b.placed)
	}
	return engine.Release{Start: time.Now(), Hosts: []engine.Arrival{{Host: "h1", Data: data}}}, nil
}

// stallHelperEnv runs TestStalledFileSystemLeavesProcessAlive's child.
const stallHelperEnv = "STORBENCH_MD_STALL_CHILD"

// A file system that stops answering in the middle of an md phase - every
// worker's create blocks in the kernel, with as many workers as the
// process has Ps, as `storbench md -t <cores>` runs - leaves the process
// alive: its other goroutines run and the garbage collector can stop the
// world (an agent keeps answering heartbeats), and a stop ends Run within
// its bound with what was measured and the stuck workers named. The phase
// runs in a child process: a process frozen by the stall cannot report on
// itself, and the parent sees its ticks stop.
func TestStalledFileSystemLeavesProcessAlive(t *testing.T) {
	if os.Getenv(stallHelperEnv) != "" {
		stallChild(t)
		return
	}
	if !supported {
		t.Skip("md runs on Linux only")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStalledFileSystemLeavesProcessAlive$", "-test.v")
	cmd.Env = append(os.Environ(), stallHelperEnv+"=1", "GOMAXPROCS=2")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var log []string
	ticking, returned, lastTick := false, false, time.Now()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				if !returned || cmd.Wait() != nil {
					t.Fatalf("the child ended without its phase returning:\n%s", strings.Join(log, "\n"))
				}
				return
			}
			log = append(log, l)
			switch {
			case strings.HasPrefix(l, "tick"):
				lastTick, ticking = time.Now(), true
			case strings.HasPrefix(l, "returned"):
				returned = true
			}
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatalf("the child did not finish in 60s:\n%s", strings.Join(log, "\n"))
		}
		if ticking && !returned && time.Since(lastTick) > 3*time.Second {
			t.Fatalf("the process froze: no tick for %v (its workers are stalled in the file system):\n%s",
				time.Since(lastTick).Round(time.Millisecond), strings.Join(log, "\n"))
		}
	}
}

// stallChild runs the stalled phase and prints what the parent checks:
// ticks from a goroutine that also collects garbage, "stalled", then
// "returned ..." once Run gave up on its stuck workers.
func stallChild(t *testing.T) {
	defer func(w time.Duration) { stopWait = w }(stopWait)
	stopWait = 2 * time.Second
	workers := runtime.GOMAXPROCS(0)
	dir := t.TempDir()
	raw, _ := json.Marshal(map[string]any{"dir": dir, "items": 1000, "workers": workers, "unique_dir": true, "files_only": true})
	env := engine.Env{Host: "h1", RunID: "stall"}
	b := &stallBarrier{ws: filepath.Join(dir, "storbench", "stall", "h1", "md"), fifos: make([]string, workers), placed: make(chan struct{})}
	env.Barrier = b
	pr, err := Engine{}.Prepare(context.Background(), env, engine.Phase{Name: "md", Engine: "md", Params: raw})
	if err != nil {
		t.Fatal(err)
	}
	ticked := make(chan struct{})
	go func() {
		for i := 0; ; i++ {
			runtime.GC() // stops the world, as an agent's collections do
			fmt.Printf("tick %d\n", i)
			if i == 0 {
				close(ticked)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	<-ticked
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-b.placed
		time.Sleep(300 * time.Millisecond) // the workers reach their FIFOs
		fmt.Println("stalled")
		time.Sleep(2 * time.Second)
		cancel()
	}()
	t0 := time.Now()
	res, err := pr.Run(ctx, time.Now(), nil)
	el := time.Since(t0)
	fmt.Printf("returned after %v: %v\n", el.Round(time.Millisecond), err)
	if err == nil || res == nil || !strings.Contains(res.Err, "did not return from a file system call") {
		t.Fatalf("Run returned %v, %+v: want the stuck workers named", err, res)
	}
	tree := uint64(0)
	for _, o := range res.Ops {
		if o.Op == "tree-create" {
			tree = o.Ops
		}
	}
	if tree != 1 { // one tree of one directory, as mdtest counts it
		t.Errorf("tree-create, measured before the stall, is missing: %+v", res.Ops)
	}
	// The file system answers again: the workers' creates return, and they
	// leave without touching anything.
	for _, f := range b.fifos {
		fd, err := syscall.Open(f, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			defer syscall.Close(fd)
		}
	}
	time.Sleep(200 * time.Millisecond)
	if err := pr.Cleanup(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left in DIR: %v", ents)
	}
}
