package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/testutil"
)

// inputKind is one kind of file storbench reads, and a command that reads
// it: named on the command line (args gets the path), or put in place in
// a copy of a results folder (in is the file's path inside it).
type inputKind struct {
	name string
	// in, when set, is where the input goes in a copy of the results
	// folder from (relative to it), and args gets the copy's path.
	from, in string
	args     func(env *inputEnv, path string) []string
	// note: a bad file of this kind may be passed over with a note naming
	// it (exit 0), as compare does with a host's per-second latency.
	note bool
	// vars are environment variables (PATH given), {} replaced by the path.
	vars []string
}

// inputEnv is what the commands of a case are given: an empty target
// directory, a results root that must not come to exist, files that are
// good in their own right.
type inputEnv struct {
	data, results, token, catalog, out string
	// cert is a real certificate (PEM), for the key's case.
	cert string
}

// inputKinds are every kind of file storbench reads from a user or a
// results folder, each through a command that reads it.
func inputKinds() []inputKind {
	fioA, fioB := filepath.Join(testResults, "fio-a"), filepath.Join(testResults, "fio-b")
	latB := filepath.Join(testResults, "s3-lat-b")
	s3 := []string{"s3", "get", "--host", "127.0.0.1:1", "--duration", "1s"}
	md := func(e *inputEnv, extra ...string) []string {
		return append([]string{"md", "-d", e.data, "-n", "5", "--results", e.results}, extra...)
	}
	return []inputKind{
		{name: "suite", args: func(e *inputEnv, p string) []string { return []string{"run", p, "--results", e.results} }},
		{name: "suite (--dry-run)", args: func(e *inputEnv, p string) []string { return []string{"run", "--dry-run", p} }},
		{name: "job file", args: func(e *inputEnv, p string) []string {
			return []string{"fio", "-d", e.data, "-w", p, "--results", e.results}
		}},
		{name: "job file in a workload directory", args: func(e *inputEnv, p string) []string {
			dir := filepath.Dir(p)
			return []string{"fio", "-d", e.data, "-w", dir, "--results", e.results}
		}},
		{name: "--agents-file", args: func(e *inputEnv, p string) []string { return md(e, "--agents-file", p) }},
		{name: "--hostfile", args: func(e *inputEnv, p string) []string { return md(e, "--hostfile", p) }},
		{name: "--token-file of an agent", args: func(e *inputEnv, p string) []string {
			return []string{"agent", "--listen", "127.0.0.1:0", "--token-file", p}
		}},
		{name: "--token-file of a controller", args: func(e *inputEnv, p string) []string {
			return md(e, "--token-file", p, "127.0.0.1:1")
		}},
		{name: "--token-file of serve", args: func(e *inputEnv, p string) []string {
			return []string{"serve", "--listen", "127.0.0.1:0", "--catalog", e.catalog, "--token-file", p}
		}},
		{name: "--tls-cert", args: func(e *inputEnv, p string) []string {
			return []string{"agent", "--listen", "127.0.0.1:0", "--token-file", e.token, "--tls-cert", p, "--tls-key", e.token}
		}},
		{name: "--tls-key", args: func(e *inputEnv, p string) []string {
			return md(e, "--token-file", e.token, "--tls-cert", e.cert, "--tls-key", p, "127.0.0.1:1")
		}},
		{name: "--tls-ca", args: func(e *inputEnv, p string) []string {
			return md(e, "--token-file", e.token, "--tls-ca", p, "127.0.0.1:1")
		}},
		{name: "--spec", args: func(e *inputEnv, p string) []string {
			return []string{"report", "--spec", p, "-o", e.out, "--md", "-", fioA}
		}},
		{name: "--credentials-file", args: func(e *inputEnv, p string) []string {
			return []string{"agent", "--listen", "127.0.0.1:0", "--token-file", e.token, "--credentials-file", p}
		}},
		{name: "AWS shared credentials file", vars: []string{"AWS_SHARED_CREDENTIALS_FILE={}"}, args: func(e *inputEnv, p string) []string {
			return append(s3, "--results", e.results)
		}},
		{name: "--ca-cert", args: func(e *inputEnv, p string) []string {
			return append(s3, "--results", e.results, "--access-key", "a", "--secret-key", "b", "--tls", "--ca-cert", p)
		}},
		{name: "benchdata file", args: func(e *inputEnv, p string) []string { return []string{"analyze", p} }},
		{name: "summary.json (analyze)", from: "fio-a", in: "summary.json", args: func(e *inputEnv, p string) []string { return []string{"analyze", p} }},
		{name: "summary.json (compare)", from: "fio-a", in: "summary.json", args: func(e *inputEnv, p string) []string { return []string{"compare", fioB, p} }},
		{name: "summary.json (report)", from: "fio-a", in: "summary.json", args: func(e *inputEnv, p string) []string {
			return []string{"report", "-o", e.out, "--md", "-", p}
		}},
		{name: "summary.json (merge)", from: "fio-a", in: "summary.json", args: func(e *inputEnv, p string) []string {
			return []string{"merge", "-o", filepath.Join(e.results, "m"), p, fioB}
		}},
		{name: "summary.json (catalog add)", from: "fio-a", in: "summary.json", args: func(e *inputEnv, p string) []string {
			return []string{"catalog", "add", "--catalog", e.catalog, p}
		}},
		{name: "run.json (analyze)", from: "fio-a", in: "run.json", note: true, args: func(e *inputEnv, p string) []string { return []string{"analyze", p} }},
		{name: "run.json (merge)", from: "fio-a", in: "run.json", args: func(e *inputEnv, p string) []string {
			return []string{"merge", "-o", filepath.Join(e.results, "m"), p, fioB}
		}},
		{name: "run.json (catalog add)", from: "fio-a", in: "run.json", args: func(e *inputEnv, p string) []string {
			return []string{"catalog", "add", "--catalog", e.catalog, p}
		}},
		{name: "result.json (analyze)", from: "fio-a", in: "01-randrw/hosts/vm/result.json", args: func(e *inputEnv, p string) []string { return []string{"analyze", p} }},
		{name: "result.json (report)", from: "fio-a", in: "01-randrw/hosts/vm/result.json", args: func(e *inputEnv, p string) []string {
			return []string{"report", "-o", e.out, "--md", "-", p}
		}},
		{name: "latency-seconds.zst (analyze --per-second)", from: "s3-lat-a", in: "01-s3-mixed/hosts/vm/latency-seconds.zst", args: func(e *inputEnv, p string) []string {
			return []string{"analyze", "--per-second", p}
		}},
		{name: "latency-seconds.zst (compare)", from: "s3-lat-a", in: "01-s3-mixed/hosts/vm/latency-seconds.zst", note: true, args: func(e *inputEnv, p string) []string {
			return []string{"compare", latB, p}
		}},
		{name: "latency-seconds.zst (report)", from: "s3-lat-a", in: "01-s3-mixed/hosts/vm/latency-seconds.zst", note: true, args: func(e *inputEnv, p string) []string {
			return []string{"report", "-o", e.out, "--md", "-", p}
		}},
	}
}

// badInput is a hostile input file: a device that never ends, a FIFO no
// one writes to, a zstd bomb.
type badInput struct {
	name string
	// make puts it at path.
	make func(t *testing.T, path string)
}

func badInputs(bomb []byte) []badInput {
	link := func(dev string) func(t *testing.T, path string) {
		return func(t *testing.T, path string) {
			if err := os.Symlink(dev, path); err != nil {
				t.Fatal(err)
			}
		}
	}
	return []badInput{
		{"/dev/zero", link("/dev/zero")},
		{"/dev/urandom", link("/dev/urandom")},
		{"a FIFO", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"a 1 MB zstd bomb", func(t *testing.T, path string) {
			if err := os.WriteFile(path, bomb, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
}

// Every kind of file storbench reads, given /dev/zero, /dev/urandom, a
// FIFO no one writes to, or a 1 MB zstd bomb (32 GiB of zeros): the real
// binary refuses it in one line naming the file, exit code 2 (or, where
// a reader passes over a damaged file, goes on with a note naming it),
// within 2 s of CPU time and with a peak RSS under 200 MB, and makes no
// results folder. Before, each read forever (the heap growing 450 MB/s),
// blocked in open, or decompressed gigabytes.
func TestHostileInputFilesAreBounded(t *testing.T) {
	t.Parallel()
	bin := testutil.StorbenchBin(t)
	bomb := testutil.ZstdBomb(1 << 20)
	for _, kind := range inputKinds() {
		for _, bad := range badInputs(bomb) {
			t.Run(kind.name+"/"+bad.name, func(t *testing.T) {
				t.Parallel() // each in a process of its own, its CPU time its own
				tmp := t.TempDir()
				env := &inputEnv{data: filepath.Join(tmp, "data"), results: filepath.Join(tmp, "results"),
					token: filepath.Join(tmp, "token"), catalog: filepath.Join(tmp, "catalog.db"), out: filepath.Join(tmp, "report.html")}
				if err := os.Mkdir(env.data, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(env.token, []byte("a-good-token-0123456789abcdef\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				var err error
				if env.cert, _, err = s3test.SelfSigned(tmp); err != nil {
					t.Fatal(err)
				}
				path, arg := filepath.Join(tmp, "in", "hostile.job"), ""
				if kind.from != "" {
					arg = copyResults(t, kind.from)
					path = filepath.Join(arg, kind.in)
					if err := os.Remove(path); err != nil {
						t.Fatal(err)
					}
				} else {
					if err := os.Mkdir(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					arg = path
				}
				bad.make(t, path)
				var vars []string
				for _, v := range kind.vars {
					vars = append(vars, strings.ReplaceAll(v, "{}", path))
				}
				// Job files are named without .job in fio's messages.
				runBounded(t, bin, kind.args(env, arg), vars, strings.TrimSuffix(filepath.Base(path), ".job"), kind.note)
				if _, err := os.Stat(env.results); err == nil {
					ents, _ := os.ReadDir(env.results)
					t.Errorf("a results folder was made: %v", ents)
				}
			})
		}
	}
}

// runBounded runs storbench with args and checks what a hostile input
// file must get: exit 2 and one line naming the file (named: its base
// name), or with note, exit 0 and a note naming it; within a generous
// wall-clock deadline (the process is killed past it, and the test
// fails), 2 s of CPU time and 200 MB of peak RSS.
func runBounded(t *testing.T, bin string, args, vars []string, named string, note bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "STORBENCH_CATALOG=off"}, vars...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Start()
	var polled int64
	if err == nil {
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			pid := strconv.Itoa(cmd.Process.Pid)
			for {
				polled = max(polled, vmHWM(pid))
				select {
				case <-stop:
					return
				case <-time.After(2 * time.Millisecond):
				}
			}
		}()
		err = cmd.Wait()
		close(stop)
		<-done
	}
	wall := time.Since(start)
	// This process's peak so far covers its size when the child was
	// forked (read after the child ended: the race detector's memory may
	// grow this process between a read before and the fork).
	inherited := vmHWM("self")
	if ctx.Err() != nil {
		t.Fatalf("%v still ran after %v (killed): it reads or waits forever\n%s", args, wall.Round(time.Millisecond), stderr.String())
	}
	ps := cmd.ProcessState
	ru, _ := ps.SysUsage().(*syscall.Rusage)
	if ru == nil {
		t.Fatal("no rusage")
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	// A child's ru_maxrss starts from this test process's own peak, as
	// Go starts it sharing this process's memory until its exec (Linux
	// keeps the pre-exec peak). The child's own peak is the one polled
	// from /proc after its exec (Start returns after it), every 2 ms,
	// which growth past the bound cannot outrun; ru_maxrss counts only
	// well above this process's peak. Read here after the child, that
	// peak once came out below the one the child inherited: a full make
	// test read every child at 297 MB, this process's size under -race.
	rss := polled
	if own := ru.Maxrss << 10; own > inherited+inherited/4+32<<20 { // KiB on Linux
		rss = max(rss, own)
	}
	if cpu > 2*time.Second {
		t.Errorf("%v took %v of CPU time (wall %v): more than 2 s", args, cpu.Round(time.Millisecond), wall.Round(time.Millisecond))
	}
	if rss > 200<<20 {
		t.Errorf("%v peaked at %d MB of RSS: more than 200 MB", args, rss>>20)
	}
	msg := strings.TrimSpace(stderr.String())
	code := ps.ExitCode()
	switch {
	case code == ExitUsage:
		last := msg[strings.LastIndex(msg, "\n")+1:]
		if !strings.HasPrefix(last, "storbench: ") || !strings.Contains(last, named) {
			t.Errorf("%v: exit 2, but its last line does not name %s:\n%s", args, named, msg)
		}
		for _, l := range strings.Split(msg, "\n") {
			if !strings.HasPrefix(l, "storbench: ") && !strings.HasPrefix(l, "note: ") && !strings.HasPrefix(l, "catalog add: ") {
				t.Errorf("%v: a line that is neither the error nor a note: %q", args, l)
			}
		}
	case code == 0 && note:
		if !strings.Contains(stdout.String()+msg, named) {
			t.Errorf("%v: exit 0 without a note naming %s:\n%s%s", args, named, stdout.String(), msg)
		}
	default:
		t.Errorf("%v: exit %d (%v), want 2%s\n%s", args, code, err, map[bool]string{true: " or a note", false: ""}[note], msg)
	}
	t.Logf("%s: exit %d, wall %v, cpu %v, peak RSS %d MB: %s", strings.Join(args[:1], " "), code, wall.Round(time.Millisecond),
		cpu.Round(time.Millisecond), rss>>20, firstLine(msg))
}

// firstLine is the first line of s.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// vmHWM is the peak resident set of process pid ("self" for this one),
// in bytes, from /proc; 0 when it cannot be read (the process ended).
func vmHWM(pid string) int64 {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
