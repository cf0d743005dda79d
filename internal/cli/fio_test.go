package cli

import (
	"context"
	"encoding/json"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine/all"
	"github.com/storbench/storbench/internal/engine/fio"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/run"
)

func needFio(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed (make test installs it)")
	}
}

func testState() (*State, *testutil.Buffer) {
	out := &testutil.Buffer{}
	return &State{Stdout: out, Stderr: out, Getenv: func(string) string { return "" }, Now: time.Now, Args: []string{"storbench", "test"}, Engines: all.Engines()}, out
}

// quickJob is a small job file: no start delay, one second, so bad-input
// tests stay fast.
func quickJob(rw string, extra string) string {
	return `# report bandwidth
[global]
filesize=4M
time_based=1
runtime=1
ioengine=psync
filename_format=$jobnum
group_reporting=1
numjobs=1

[job]
bs=64k
rw=` + rw + "\n" + extra
}

func workloadDir(t *testing.T, jobs map[string]string) string {
	t.Helper()
	d := t.TempDir()
	for name, text := range jobs {
		if err := os.WriteFile(filepath.Join(d, name+".job"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// fioJSON reads fio's raw output kept for a phase.
func fioJSON(t *testing.T, folder string, ps results.PhaseSummary) *fio.Output {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(folder, ps.Dir, "hosts", results.SafeName(ps.Hosts[0]), "fio.json"))
	if err != nil {
		t.Fatalf("raw fio JSON of %s not kept: %v", ps.Name, err)
	}
	o, err := fio.ParseOutput(b)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// The "must show": the default four corners with --runtime and
// --size print all six results, and summary.json equals fio's own JSON.
func TestFourCornersSummaryEqualsFioJSON(t *testing.T) {
	t.Parallel()
	needFio(t)
	if testing.Short() {
		t.Skip("runs six fio jobs (about 45 s)")
	}
	dir := t.TempDir()
	st, out := testState()
	res, err := runFio(context.Background(), st, FioOptions{Dir: dir, Workload: "default", Runtime: "1s", Size: "8M", Numjobs: 2, Results: t.TempDir()}, nil)
	if err != nil {
		t.Fatalf("run failed: %v\n%s", err, out)
	}
	text := out.String()
	for _, want := range []string{"read bandwidth:", "write bandwidth:", "read iops:", "write iops:", "read latency:", "write latency:", "p99.5"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	sum, err := results.ReadSummary(res.Folder.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Phases) != 6 || sum.Status != results.StatusCompleted {
		t.Fatalf("want 6 completed phases, got %d, status %s", len(sum.Phases), sum.Status)
	}
	wantReport := map[string]model.Headline{"011-bandwidthR": "bandwidth", "021-latencyR": "latency", "031-iopsR": "iops"}
	for _, ps := range sum.Phases {
		if r, ok := wantReport[ps.Name]; ok && ps.Report != r {
			t.Errorf("%s: report %q, want %q", ps.Name, ps.Report, r)
		}
		raw := fioJSON(t, res.Folder.Path, ps)
		if len(ps.Ops) != 1 {
			t.Fatalf("%s: want one direction, got %+v", ps.Name, ps.Ops)
		}
		compareWithFio(t, ps.Name, ps.Ops[0], raw)
	}
	// Nothing of storbench's is left in the target directory.
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("target directory not cleaned: %v", ents)
	}
}

func compareWithFio(t *testing.T, name string, o results.OpSummary, raw *fio.Output) {
	t.Helper()
	var d *fio.DirOut
	for i := range raw.Jobs {
		j := &raw.Jobs[i]
		switch o.Op {
		case "read":
			if j.Read.TotalIOs > 0 {
				d = &j.Read
			}
		case "write":
			if j.Write.TotalIOs > 0 {
				d = &j.Write
			}
		}
	}
	if d == nil {
		t.Fatalf("%s: fio's JSON has no %s I/O", name, o.Op)
	}
	if o.BwBytesPerS == nil || o.OpsPerS == nil || o.Lat == nil {
		t.Fatalf("%s %s: summary.json lacks bandwidth, IOPS or latency fio measured: %+v", name, o.Op, o)
	}
	l := o.Lat
	checks := []struct {
		what      string
		got, want float64
	}{
		{"bw_bytes_per_s", *o.BwBytesPerS, d.BwBytes},
		{"ops_per_s", *o.OpsPerS, d.IOPS},
		{"ops", float64(o.Ops), float64(d.TotalIOs)},
		{"bytes", float64(o.Bytes), float64(d.IOBytes)},
		{"lat.mean_ns", l.MeanNs, d.Clat.Mean},
		{"lat.min_ns", float64(l.MinNs), float64(d.Clat.Min)},
		{"lat.max_ns", float64(l.MaxNs), float64(d.Clat.Max)},
		{"lat.p50_ns", float64(l.P50Ns), float64(d.Clat.Percentile["50.000000"])},
		{"lat.p90_ns", float64(l.P90Ns), float64(d.Clat.Percentile["90.000000"])},
		{"lat.p99_ns", float64(l.P99Ns), float64(d.Clat.Percentile["99.000000"])},
		{"lat.p99_5_ns", float64(l.P995Ns), float64(d.Clat.Percentile["99.500000"])},
		{"lat.p99_9_ns", float64(l.P999Ns), float64(d.Clat.Percentile["99.900000"])},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s %s: summary.json %v, fio %v", name, c.what, c.got, c.want)
		}
	}
	// The stddev goes through the variance and back: equal to rounding.
	if diff := l.StddevNs - d.Clat.Stddev; diff > 1e-6*d.Clat.Stddev+1e-9 || diff < -1e-6*d.Clat.Stddev-1e-9 {
		t.Errorf("%s lat.stddev_ns: summary.json %v, fio %v", name, l.StddevNs, d.Clat.Stddev)
	}
}

// A mixed job reports read and write separately, each equal to fio's own
// read and write sections.
func TestMixedReportsReadAndWriteSeparately(t *testing.T) {
	t.Parallel()
	needFio(t)
	w := workloadDir(t, map[string]string{"mix": quickJob("randrw", "rwmixread=70\nbs=4k\n")})
	st, out := testState()
	res, err := runFio(context.Background(), st, FioOptions{Dir: t.TempDir(), Workload: w, Results: t.TempDir()}, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	ps := res.Summary.Phases[0]
	if len(ps.Ops) != 2 || ps.Ops[0].Op != "read" || ps.Ops[1].Op != "write" {
		t.Fatalf("want read and write, got %+v", ps.Ops)
	}
	raw := fioJSON(t, res.Folder.Path, ps)
	compareWithFio(t, "mix", ps.Ops[0], raw)
	compareWithFio(t, "mix", ps.Ops[1], raw)
	if !strings.Contains(out.String(), "read bandwidth:") || !strings.Contains(out.String(), "write bandwidth:") {
		t.Errorf("output does not show both directions:\n%s", out)
	}
}

// Everything runs under DIR/storbench/<run id>/ and nothing else in DIR is
// touched; --keep leaves fio's files.
func TestFioTouchesOnlyItsOwnFiles(t *testing.T) {
	t.Parallel()
	needFio(t)
	dir := t.TempDir()
	mine := filepath.Join(dir, "precious.dat")
	if err := os.WriteFile(mine, []byte("do not touch"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "storbench", "other-run"), 0o755); err != nil {
		t.Fatal(err)
	}
	w := workloadDir(t, map[string]string{"w": quickJob("write", "")})
	st, out := testState()
	if _, err := runFio(context.Background(), st, FioOptions{Dir: dir, Workload: w, Results: t.TempDir()}, nil); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "do not touch" {
		t.Errorf("pre-existing file changed: %q %v", b, err)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "storbench"))
	if len(ents) != 1 || ents[0].Name() != "other-run" {
		t.Errorf("DIR/storbench should hold only the other run's folder, has %v", ents)
	}

	st, out = testState()
	res, err := runFio(context.Background(), st, FioOptions{Dir: dir, Workload: w, Results: t.TempDir(), Keep: true}, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	kept, _ := filepath.Glob(filepath.Join(dir, "storbench", res.Summary.RunID, "*", "w", "data", "*"))
	if len(kept) == 0 {
		t.Errorf("--keep left no files under DIR/storbench/%s", res.Summary.RunID)
	}
}

func TestFioBadInput(t *testing.T) {
	t.Parallel()
	needFio(t)
	good := workloadDir(t, map[string]string{"a": quickJob("read", "")})
	notDir := filepath.Join(t.TempDir(), "file")
	os.WriteFile(notDir, nil, 0o644)
	cases := []struct {
		name string
		o    FioOptions
		want string
	}{
		{"fio missing", FioOptions{Tools: engine.Tools{"fio": "/nonexistent/fio"}}, "--tool fio=/nonexistent/fio: not found"},
		{"dir missing", FioOptions{Dir: "/nonexistent/dir"}, "target directory /nonexistent/dir does not exist"},
		{"dir is a file", FioOptions{Dir: notDir}, "is not a directory"},
		{"unknown workload", FioOptions{Workload: "fourcorners"}, `unknown workload "fourcorners"`},
		{"bad runtime", FioOptions{Runtime: "ten seconds"}, `invalid duration "ten seconds"`},
		{"bad size", FioOptions{Size: "12Q"}, `invalid size "12Q"`},
		{"exec refused", FioOptions{Workload: workloadDir(t, map[string]string{"x": quickJob("read", "exec_prerun=touch /tmp/storbench-pwned\n")})}, "exec_prerun=touch /tmp/storbench-pwned: runs a command"},
		{"escape refused", FioOptions{Workload: workloadDir(t, map[string]string{"x": quickJob("read", "filename=/etc/passwd\n")})}, "filename=/etc/passwd: an absolute path leaves the job's directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			if o.Dir == "" {
				o.Dir = t.TempDir()
			}
			if o.Workload == "" {
				o.Workload = good
			}
			resDir := t.TempDir()
			o.Results = resDir
			st, _ := testState()
			_, err := runFio(context.Background(), st, o, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want error containing %q, got %v", c.want, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			if code := ExitCode(err); code != ExitUsage {
				t.Errorf("exit code %d, want %d", code, ExitUsage)
			}
			if ents, _ := os.ReadDir(resDir); len(ents) != 0 {
				t.Errorf("bad input still made a results folder")
			}
		})
	}
}

// A job that fio accepts but that fails while it runs (here: verifying data
// it never wrote) fails the run with fio's own message, and the jobs that
// ran before it stay in the results folder. (A job file fio rejects is
// refused before anything runs: TestBadInputIsOneLineExit2.)
func TestFioFailingJobKeepsEarlierResults(t *testing.T) {
	t.Parallel()
	needFio(t)
	w := workloadDir(t, map[string]string{"1-good": quickJob("read", ""), "2-bad": quickJob("read", "verify=crc32c\n")})
	st, out := testState()
	res, err := runFio(context.Background(), st, FioOptions{Dir: t.TempDir(), Workload: w, Results: t.TempDir()}, nil)
	if err == nil || ExitCode(err) != ExitFailed {
		t.Fatalf("want a failed run, got %v\n%s", err, out)
	}
	if !strings.Contains(err.Error(), "verify") {
		t.Errorf("error does not carry fio's message: %v", err)
	}
	checkKeptAfterFailure(t, res, results.StatusFailed)
}

func checkKeptAfterFailure(t *testing.T, res *run.Result, status string) {
	t.Helper()
	if res == nil {
		t.Fatal("no results folder")
	}
	sum, err := results.ReadSummary(res.Folder.Path)
	if err != nil {
		t.Fatal(err)
	}
	run, err := results.ReadRunInfo(res.Folder.Path)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Status != status || run.Status != status {
		t.Errorf("status: summary %s, run.json %s, want %s", sum.Status, run.Status, status)
	}
	if len(sum.Phases) < 2 || sum.Phases[0].Status != results.StatusCompleted || len(sum.Phases[0].Ops) == 0 || sum.Phases[0].Ops[0].Ops == 0 {
		t.Fatalf("the first job's results are not intact: %+v", sum.Phases)
	}
	if sum.Phases[1].Status != status {
		t.Errorf("second phase status %s, want %s", sum.Phases[1].Status, status)
	}
	if _, err := os.Stat(filepath.Join(res.Folder.Path, sum.Phases[0].Dir, "hosts", results.SafeName(sum.Phases[0].Hosts[0]), "fio.json")); err != nil {
		t.Errorf("raw output of the first job lost: %v", err)
	}
}

// Ctrl-C mid-job: fio stops, the finished job is kept, status says
// interrupted, exit code 130.
func TestFioInterruptKeepsResults(t *testing.T) {
	t.Parallel()
	needFio(t)
	long := strings.Replace(quickJob("read", ""), "runtime=1", "runtime=60", 1)
	w := workloadDir(t, map[string]string{"1-short": quickJob("read", ""), "2-long": long})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, out := testState()
	st.Verbosity = 1
	canceled := make(chan time.Time, 1)
	go func() {
		// Cancel once the long job is under way.
		for !strings.Contains(out.String(), "[2-long]") {
			time.Sleep(50 * time.Millisecond)
		}
		canceled <- time.Now()
		cancel()
	}()
	res, err := runFio(ctx, st, FioOptions{Dir: t.TempDir(), Workload: w, Results: t.TempDir()}, nil)
	if ExitCode(err) != ExitInterrupted {
		t.Fatalf("want exit %d, got %v", ExitInterrupted, err)
	}
	// Timed from the interrupt, against the long job's 60 s: timed from
	// the start, the short job and the layouts counted, and took 37 s at a
	// load of 25.
	if took := time.Since(testutil.Recv(t, canceled, testutil.Bound, "the run was never interrupted")); took > 30*time.Second {
		t.Errorf("interrupt took %s to stop fio (its job runs 60 s)", took)
	}
	checkKeptAfterFailure(t, res, results.StatusInterrupted)
}

// The disk filling up mid-job fails that job with the reason and keeps the
// earlier ones. It needs root to mount a small tmpfs.
func TestFioDiskFull(t *testing.T) {
	t.Parallel()
	needFio(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs (CI runs as root)")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=8m"); err != nil {
		t.Skipf("cannot mount tmpfs: %v", err)
	}
	defer syscall.Unmount(dir, syscall.MNT_DETACH)
	// Two jobs side by side, each of which fits alone (so the free-space
	// check before the phase lets it through): together they fill the
	// disk mid-job.
	fill := `[global]
ioengine=psync
bs=64k
size=6M
[fill]
rw=write
filename=fill
[fill2]
rw=write
filename=fill2
`
	w := workloadDir(t, map[string]string{"1-good": quickJob("read", ""), "2-fill": fill})
	st, out := testState()
	res, err := runFio(context.Background(), st, FioOptions{Dir: dir, Workload: w, Results: t.TempDir()}, nil)
	if err == nil || ExitCode(err) != ExitFailed {
		t.Fatalf("want a failed run, got %v\n%s", err, out)
	}
	if !strings.Contains(err.Error(), "No space left on device") {
		t.Errorf("error does not say the disk is full: %v", err)
	}
	checkKeptAfterFailure(t, res, results.StatusFailed)
}

// A remote host without credentials for its agent is bad input, said in one
// line before anything runs.
func TestRemoteHostNeedsToken(t *testing.T) {
	t.Parallel()
	st, _ := testState()
	res := t.TempDir()
	_, err := runFio(context.Background(), st, FioOptions{Dir: t.TempDir(), Workload: "default", Results: res}, []string{"client1"})
	if err == nil || !strings.Contains(err.Error(), "--token-file") || ExitCode(err) != ExitUsage {
		t.Fatalf("want a usage error naming --token-file, got %v", err)
	}
	if ents, _ := os.ReadDir(res); len(ents) != 0 {
		t.Error("a results folder was made")
	}
}

func TestVersionAndHelp(t *testing.T) {
	t.Parallel()
	st, out := testState()
	if err := Execute(context.Background(), st, []string{"--version"}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "storbench ") {
		t.Errorf("--version printed %q", out)
	}
	out.Reset()
	if err := Execute(context.Background(), st, []string{"fio", "--help"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Examples:", "--fio-bin", "--runtime", "--numjobs", "--allow-exec"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("fio --help lacks %q", want)
		}
	}
	err := Execute(context.Background(), st, []string{"fio", "--no-such-flag"})
	if ExitCode(err) != ExitUsage {
		t.Errorf("unknown flag: exit %d (%v), want %d", ExitCode(err), err, ExitUsage)
	}
}

// summary.json is valid JSON with the schema version and unit-named fields
// a program reads.
func TestSummaryFieldNames(t *testing.T) {
	t.Parallel()
	needFio(t)
	w := workloadDir(t, map[string]string{"a": quickJob("read", "")})
	st, _ := testState()
	res, err := runFio(context.Background(), st, FioOptions{Dir: t.TempDir(), Workload: w, Results: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(res.Folder.Path, "summary.json"))
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["schema_version"] != float64(results.SchemaVersion) {
		t.Errorf("schema_version %v", m["schema_version"])
	}
	for _, f := range []string{`"bw_bytes_per_s"`, `"lat": {`, `"p99_ns"`, `"p99_5_ns"`, `"ops_per_s"`} {
		if !strings.Contains(string(b), f) {
			t.Errorf("summary.json lacks %s", f)
		}
	}
	md, _ := os.ReadFile(filepath.Join(res.Folder.Path, "summary.md"))
	if !strings.Contains(string(md), "| a | 1 | read |") {
		t.Errorf("summary.md lacks the job's row:\n%s", md)
	}
	run, _ := results.ReadRunInfo(res.Folder.Path)
	if run.Versions.Fio == "" || run.Versions.Kernel == "" || len(run.Targets) != 1 || run.Targets[0].FSType == "" || len(run.Plan) != 1 {
		t.Errorf("run.json lacks versions, target or plan: %+v", run)
	}
	if !strings.Contains(string(run.Plan[0].Params), "rw=read") {
		t.Errorf("run.json lacks the job text")
	}
}
