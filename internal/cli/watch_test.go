package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine/all"
	"github.com/storbench/storbench/internal/metrics"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil"
)

// splitState is a State whose stdout and stderr are apart.
func splitState() (*State, *testutil.Buffer, *testutil.Buffer) {
	out, errw := &testutil.Buffer{}, &testutil.Buffer{}
	return &State{Stdout: out, Stderr: errw, Getenv: func(string) string { return "" }, Now: time.Now, Args: []string{"storbench", "test"}, Engines: all.Engines()}, out, errw
}

// Bad watch options are one line and exit 2, before any load: nothing is
// written, neither in the target nor in the results folder.
func TestWatchBadInput(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	missing := filepath.Join(t.TempDir(), "missing", "live.jsonl")
	// Files that exist, and links to them (or to nowhere): refused, as
	// --benchdata refuses them, rather than truncated (before: exit 0,
	// the file emptied, through the link too).
	held := t.TempDir()
	existing := filepath.Join(held, "existing.jsonl")
	if err := os.WriteFile(existing, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link, dangling := filepath.Join(held, "link.jsonl"), filepath.Join(held, "dangling.jsonl")
	if os.Symlink(existing, link) != nil || os.Symlink(filepath.Join(held, "nowhere"), dangling) != nil {
		t.Fatal("symlink")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--metrics-listen", taken.Addr().String()}, "--metrics-listen " + taken.Addr().String() + ": the port is taken by another program"},
		{[]string{"--metrics-listen", "0.0.0.0:0"}, "served on loopback only"},
		{[]string{"--metrics-listen", "nonsense:port:x"}, "--metrics-listen"},
		{[]string{"--live", missing}, "--live " + missing + ": the folder " + filepath.Dir(missing) + " does not exist"},
		{[]string{"--live", t.TempDir()}, "is a folder"},
		{[]string{"--live", "-", "--json"}, "both want stdout"},
		{[]string{"--live", existing}, "--live " + existing + ": the file exists; give a new file name"},
		{[]string{"--live", link}, "--live " + link + " is a symbolic link"},
		{[]string{"--live", dangling}, "--live " + dangling + " is a symbolic link"},
	} {
		dir, res := t.TempDir(), t.TempDir()
		st, out := testState()
		err := Execute(context.Background(), st, append([]string{"md", "-d", dir, "-n", "10", "--results", res}, tc.args...))
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: err %v, want one usage line with %q\n%s", tc.args, err, tc.want, out)
		}
		for _, d := range []string{dir, res, filepath.Dir(filepath.Dir(missing))} {
			if left, _ := os.ReadDir(d); len(left) != 0 && d != filepath.Dir(filepath.Dir(missing)) {
				t.Errorf("%v: wrote %v in %s", tc.args, left, d)
			}
		}
		if _, err := os.Stat(filepath.Dir(missing)); err == nil {
			t.Errorf("%v: made the live file's folder", tc.args)
		}
		if b, _ := os.ReadFile(existing); string(b) != "kept\n" {
			t.Errorf("%v: the existing file now holds %q", tc.args, b)
		}
		if _, err := os.Lstat(filepath.Join(held, "nowhere")); err == nil {
			t.Errorf("%v: made the file a dangling link leads to", tc.args)
		}
	}
}

// --live to a FIFO that nobody reads: the run neither waits for a reader
// nor for one to read (before, it blocked for good opening the FIFO,
// deaf to SIGTERM); it ends as it would without --live, and says how many
// lines were dropped.
func TestLiveFIFOWithoutReader(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "live")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// A test that fails is not left blocked: a reader comes at its end.
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	st, out := testState()
	errc := make(chan error, 1)
	go func() {
		errc <- Execute(context.Background(), st, []string{"md", "-d", t.TempDir(), "-n", "200", "-t", "1", "--results", t.TempDir(), "--live", fifo})
	}()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("the run did not end within 60s with nobody reading --live:\n%s", out)
	}
	if !strings.Contains(out.String(), "lines were dropped") {
		t.Errorf("the dropped lines are not said:\n%s", out)
	}
}

// mdArgs is an md phase of about five seconds or more: files are created
// for 4 s (stonewall), then stated, read and removed.
func mdArgs(t *testing.T) []string {
	return []string{"md", "-d", t.TempDir(), "-n", "1000000", "-t", "2", "-F", "-u", "-W", "4s", "--results", t.TempDir()}
}

// --json prints summary.json on stdout and nothing else (the text goes to
// stderr); --live writes a line per second per host and the total, with
// each second's percentiles; --quiet prints nothing at all.
func TestJSONLiveQuiet(t *testing.T) {
	t.Parallel()
	st, out, errw := splitState()
	live := filepath.Join(t.TempDir(), "live.jsonl")
	err := Execute(context.Background(), st, append(mdArgs(t), "--json", "--live", live))
	if err != nil {
		t.Fatalf("%v\n%s", err, errw)
	}
	var sum results.Summary
	if err := json.Unmarshal([]byte(out.String()), &sum); err != nil || len(sum.Phases) != 1 || sum.Phases[0].Engine != "md" {
		t.Fatalf("stdout is not summary.json: %v\n%s", err, out)
	}
	if !strings.Contains(errw.String(), "file-create") || !strings.Contains(errw.String(), "completed; results in") {
		t.Errorf("the text did not go to stderr:\n%s", errw)
	}
	f, err := os.Open(live)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var hosts, totals, withP99 int
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l metrics.LiveLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("live line is not JSON: %s", sc.Text())
		}
		if l.Run != sum.RunID || l.Phase != "md" {
			t.Errorf("line of run %q phase %q", l.Run, l.Phase)
		}
		switch {
		case l.Total:
			totals++
		case l.Host != "":
			hosts++
		}
		if l.P99Ns != nil && l.OpsPerS > 0 {
			withP99++
		}
	}
	if hosts < 2 || totals < 2 || withP99 < 1 {
		t.Errorf("live stream: %d host lines, %d total lines, %d with p99", hosts, totals, withP99)
	}

	st, out, errw = splitState()
	if err := Execute(context.Background(), st, append(mdArgs(t), "--quiet")); err != nil {
		t.Fatal(err)
	}
	if out.String() != "" || errw.String() != "" {
		t.Errorf("--quiet printed:\n%s\n%s", out, errw)
	}
}

// --live - writes the lines on stdout, and the text on stderr.
func TestLiveToStdout(t *testing.T) {
	t.Parallel()
	st, out, errw := splitState()
	if err := Execute(context.Background(), st, append(mdArgs(t), "--live", "-")); err != nil {
		t.Fatalf("%v\n%s", err, errw)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("stdout has a line that is not JSON: %q", l)
		}
	}
	if len(lines) < 2 || !strings.Contains(errw.String(), "completed; results in") {
		t.Errorf("%d lines on stdout; stderr:\n%s", len(lines), errw)
	}
}

var metricsLine = regexp.MustCompile(`metrics on http://(\S+)/metrics`)

// startAgentIn runs an agent in this process and returns its metrics
// address.
func startAgentIn(t *testing.T, o AgentServeOptions) (string, error) {
	t.Helper()
	st, out, _ := splitState()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	errc := make(chan error, 1)
	go func() { errc <- runAgent(ctx, st, o, func(string) { close(ready) }) }()
	t.Cleanup(func() { cancel(); <-errc })
	select {
	case <-ready:
	case err := <-errc:
		errc <- err
		return "", err
	case <-time.After(10 * time.Second):
		t.Fatal("agent did not start")
	}
	m := metricsLine.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("agent did not say where its metrics are:\n%s", out)
	}
	return m[1], nil
}

// An agent's metrics on an address other than loopback need its token:
// a scrape without it gets 401 and nothing else, on any path; on
// loopback they are served without one. A taken port stops the agent
// before it listens for controllers.
func TestAgentMetricsListener(t *testing.T) {
	t.Parallel()
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("agent-secret-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	host := outsideIPv4(t)
	addr, err := startAgentIn(t, AgentServeOptions{Listen: "127.0.0.1:0", TokenFile: token, MetricsListen: net.JoinHostPort(host, "0")})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/metrics", "/", "/v1/info"} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || strings.Contains(string(b), "process_") {
			t.Errorf("%s without the token: %s %s", path, resp.Status, b)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer agent-secret-0123456789abcdef")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("with the token: %s", resp.Status)
	}

	local, err := startAgentIn(t, AgentServeOptions{Listen: "127.0.0.1:0", TokenFile: token, MetricsListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err = http.Get("http://" + local + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("loopback without a token: %s", resp.Status)
	}

	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	_, err = startAgentIn(t, AgentServeOptions{Listen: "127.0.0.1:0", TokenFile: token, MetricsListen: taken.Addr().String()})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.Contains(err.Error(), "the port is taken") {
		t.Errorf("taken metrics port: %v", err)
	}
}

// outsideIPv4 is an address of this machine other than loopback.
func outsideIPv4(t *testing.T) string {
	t.Helper()
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	t.Skip("this machine has no address besides loopback")
	return ""
}

// A scrape that began before the run's end and ended after it took the
// figures of before the end: the controller still waits for the next
// one. Before, the scrape was noted when it ended, taken for one after
// the end, and the final counts never reached Prometheus
// (TestPrometheusFioFinalCount failed on it in make test).
func TestScrapeAcrossTheEndIsNotTheLast(t *testing.T) {
	var c scrapeClock
	var end time.Time
	slow := c.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if end.IsZero() {
			end = time.Now() // the run ends while this scrape is served
			time.Sleep(20 * time.Millisecond)
		}
	}))
	scrape := func() { slow.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/metrics", nil)) }
	c.ch <- time.Now().Add(-200 * time.Millisecond) // an earlier scrape, 200 ms before
	scrape()
	st, _ := testState()
	next := make(chan struct{})
	go func() { time.Sleep(50 * time.Millisecond); scrape(); close(next) }()
	t0 := time.Now()
	c.awaitOne(st, end)
	if waited := time.Since(t0); waited < 40*time.Millisecond {
		t.Errorf("the controller waited %s: it took the scrape across the end for one after it", waited)
	}
	<-next
}

// A run interrupted while Prometheus scrapes its metrics every 5 s ends
// without waiting for the next scrape (which a run that ends on its own
// awaits, up to twice the interval, so its last figures are stored):
// before, the signal's run still waited up to 10 s for it.
func TestInterruptDoesNotAwaitScrape(t *testing.T) {
	needFio(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	job := filepath.Join(t.TempDir(), "long.fio")
	if err := os.WriteFile(job, []byte("[long]\nrw=read\nbs=4k\nsize=1m\ntime_based=1\nruntime=300\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	st, out := testState()
	errc := make(chan error, 1)
	go func() {
		errc <- Execute(ctx, st, []string{"fio", "-d", t.TempDir(), "-w", job, "--results", t.TempDir(), "--metrics-listen", addr})
	}()
	scrape := func() bool {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	}
	for deadline := time.Now().Add(60 * time.Second); !scrape(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no metrics:\n%s", out)
		}
	}
	time.Sleep(5 * time.Second)
	scrape()
	time.Sleep(500 * time.Millisecond)
	t0 := time.Now()
	cancel(errors.New("terminated signal received"))
	select {
	case err := <-errc:
		if ExitCode(err) != 130 {
			t.Errorf("exit %d (%v), want 130:\n%s", ExitCode(err), err, out)
		}
	case <-time.After(2*time.Second + 3*time.Second):
		t.Fatalf("the interrupted run still ran %v later:\n%s", time.Since(t0).Round(time.Millisecond), out)
	}
}
