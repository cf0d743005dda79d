package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/s3test"
)

// lateCase is bad input the third hostile pass found accepted, or found only
// once a phase started (exit 1 and a results folder), or said in Go's words
// instead of the user's (issue 21). Each must be one line naming what to
// fix, exit 2, with no results folder and nothing under the target
// directory, and `run --dry-run` must refuse a suite the same way.
type lateCase struct {
	name string
	// args run as given, with DATA replaced by an empty target directory;
	// suite, when set, is written to a file (DATA replaced too) and run
	// with `run FILE` and `run FILE --dry-run`.
	args  []string
	suite string
	env   map[string]string
	// now, when set, is the clock's time.
	now  time.Time
	want []string
	// not are words the message must not carry (Go's parser text, a
	// default that does not exist).
	not []string
}

// readers are the commands that read results and write no results folder.
var readers = map[string]bool{"analyze": true, "compare": true, "report": true, "merge": true, "help": true, "completion": true,
	"catalog": true, "check": true}

// lyingFolders are copies of test results changed as no run writes them
// (issue 32): a negative rate, a negative duration, a host's window that
// ends before it starts, a phase directory that is a symbolic link to
// /etc; and a catalog holding fio-b, for check.
type lyingFolders struct {
	negRate, negDuration, negWindow, linked, catalog string
}

func newLyingFolders(t *testing.T) lyingFolders {
	var l lyingFolders
	l.negRate = copyResults(t, "fio-a")
	editResults(t, l.negRate, "summary.json", `"ops_per_s": 3742.257742`, `"ops_per_s": -3742.257742`)
	l.negDuration = copyResults(t, "md-a")
	editResults(t, l.negDuration, "summary.json", `"duration_s": 2.730524866`, `"duration_s": -2.730524866`)
	l.negWindow = copyResults(t, "fio-a")
	editResults(t, l.negWindow, "01-randrw/hosts/vm/result.json", `"end_ns": 1795238693339000000`, `"end_ns": 1795238680000000000`)
	l.linked = copyResults(t, "fio-a")
	if err := os.RemoveAll(filepath.Join(l.linked, "01-randrw")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(l.linked, "01-randrw")); err != nil {
		t.Fatal(err)
	}
	l.catalog = filepath.Join(t.TempDir(), "catalog.db")
	st, out := testState()
	if err := Execute(context.Background(), st, []string{"catalog", "add", "--catalog", l.catalog, filepath.Join(testResults, "fio-b")}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return l
}

func TestBadInputFoundLate(t *testing.T) {
	t.Parallel()
	needFio(t)
	keys := map[string]string{"STORBENCH_ACCESS_KEY": "a", "STORBENCH_SECRET_KEY": "b"}
	job := func(text string) string {
		return filepath.Join(workloadDir(t, map[string]string{"bad": text}), "bad.job")
	}
	s3 := func(args ...string) []string {
		return append([]string{"s3", args[0], "--host", "127.0.0.1:1"}, args[1:]...)
	}
	long := strings.Repeat("a", 300)
	// A tree (2 levels of 300, one per worker) whose directories, all
	// open at once, are more than this process may open.
	var nofile syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &nofile); err != nil {
		t.Fatal(err)
	}
	treeWorkers := min(nofile.Cur/90301+2, 1024)
	noon := time.Date(2026, 11, 25, 12, 0, 0, 0, time.Local)
	fioA, mdA := filepath.Join(testResults, "fio-a"), filepath.Join(testResults, "md-a")
	fioB, lies := filepath.Join(testResults, "fio-b"), newLyingFolders(t)
	negative := []string{"no figure storbench writes is negative", "changed or is damaged"}
	cut := copyResults(t, "fio-a")
	if err := os.Truncate(filepath.Join(cut, "summary.json"), 100); err != nil {
		t.Fatal(err)
	}
	cases := []lateCase{
		// Found only when the phase started.
		{name: "bucket name with capitals and _", args: s3("get", "--bucket", "Bad_Bucket"), env: keys, want: []string{"--bucket", `"Bad_Bucket"`, "lowercase"}},
		{name: "bucket name too short", args: s3("put", "--bucket", "ab"), env: keys, want: []string{"--bucket", `"ab"`, "3 to 63"}},
		{name: "bucket name an IP address", args: s3("put", "--bucket", "192.168.1.1"), env: keys, want: []string{"--bucket", "IP address"}},
		{name: "suite bucket name", suite: "name: x\nphases:\n  - s3: {op: get, bucket: Bad_Bucket, host: '127.0.0.1:1', access_key: a, secret_key: b}\n", want: []string{"bucket", `"Bad_Bucket"`}},
		{name: "part size below S3's minimum", args: s3("multipart", "--parts", "2", "--part.concurrent", "1", "--part.size", "1KiB"), env: keys, want: []string{"--part.size", "5 MiB"}},
		{name: "rate NaN", args: s3("put", "--rate", "NaN"), env: keys, want: []string{"--rate", "NaN"}, not: []string{"json"}},
		{name: "rate Inf", args: s3("put", "--rate", "Inf"), env: keys, want: []string{"--rate", "Inf"}, not: []string{"json"}},
		{name: "numjobs past fio's limit", args: []string{"fio", "-d", "DATA", "-w", job("[j]\nrw=read\nsize=1M\nnumjobs=100000\n")}, want: []string{"numjobs", "4096"}},
		{name: "size=0", args: []string{"fio", "-d", "DATA", "-w", job("[j]\nrw=read\nsize=0\n")}, want: []string{"size=0"}},
		{name: "a [global] section alone", args: []string{"fio", "-d", "DATA", "-w", job("[global]\nrw=read\nsize=1M\n")}, want: []string{"no job section"}},
		{name: "runtime=-1", args: []string{"fio", "-d", "DATA", "-w", job("[j]\nrw=read\nsize=1M\ntime_based\nruntime=-1\n")}, want: []string{"runtime=-1"}},
		{name: "suite job: {}", suite: "name: x\ndir: DATA\nphases:\n  - fio: {job: {}}\n", want: []string{"size"}},
		{name: "suite job numjobs past fio's limit", suite: "name: x\ndir: DATA\nphases:\n  - fio: {job: {rw: read, size: 1M, numjobs: 100000}}\n", want: []string{"numjobs", "4096"}},
		{name: "suite job fio's parser rejects", suite: "name: x\ndir: DATA\nphases:\n  - fio: {job: {rw: sideways, size: 1M}}\n", want: []string{"fio rejects", "rw=sideways"}},
		{name: "phase name with ../", suite: "name: x\ndir: DATA\nphases:\n  - name: ../../escape\n    md: {items: 5}\n", want: []string{`"../../escape"`, "name"}},
		{name: "md on /proc", args: []string{"md", "-d", "/proc", "-n", "5"}, want: []string{"/proc", "proc", "kernel's own file system"}},
		{name: "md on /sys/kernel", args: []string{"md", "-d", "/sys/kernel", "-n", "5"}, want: []string{"/sys/kernel", "sysfs", "kernel's own file system"}},
		{name: "a tree past the open-file limit", args: []string{"md", "-d", "DATA", "-n", "1", "-u", "-t", strconv.FormatUint(treeWorkers, 10), "--depth", "2", "--branch", "300", "--force"},
			want: []string{"open directories", "open-file limit", "ulimit -n"}},
		{name: "phase name of 300 characters", suite: "name: x\ndir: DATA\nphases:\n  - name: " + long + "\n    md: {items: 5}\n", want: []string{"name", "255"}},
		{name: "suite name of 300 characters", suite: "name: " + long + "\ndir: DATA\nphases:\n  - md: {items: 5}\n", want: []string{"suite.yaml:1: name:", "300 bytes", "at most 233", "results folder"}, not: []string{"mkdir", "file name too long"}},

		// Silently accepted.
		{name: "--max-error-share NaN", args: []string{"md", "-d", "DATA", "-n", "5", "--max-error-share", "NaN"}, want: []string{"--max-error-share", "NaN"}},
		{name: "--cov-warn NaN", args: []string{"run", "--cov-warn", "NaN", "-d", "DATA"}, want: []string{"--cov-warn", "NaN"}},
		{name: "compare --threshold NaN", args: []string{"compare", "--threshold", "NaN", fioA, filepath.Join(testResults, "fio-b")}, want: []string{"--threshold", "NaN"}},
		{name: "s3 --duration without a unit", args: s3("get", "--duration", "30"), env: keys, want: []string{"--duration", `"30"`, "unit"}},
		{name: "md --stonewall without a unit", args: []string{"md", "-d", "DATA", "-n", "5", "--stonewall", "5"}, want: []string{"--stonewall", "unit"}},
		{name: "--max-duration without a unit", args: []string{"run", "-d", "DATA", "--max-duration", "600"}, want: []string{"--max-duration", "unit"}},
		{name: "analyze --skip without a unit", args: []string{"analyze", "--skip", "10", fioA}, want: []string{"--skip", "unit"}},
		{name: "suite duration without a unit", suite: "name: x\nphases:\n  - s3: {op: get, duration: 30, host: '127.0.0.1:1', access_key: a, secret_key: b}\n", want: []string{"duration", "unit"}},
		{name: "iterations 2.5", suite: "name: x\ndir: DATA\nphases:\n  - md: {items: 5}\n    iterations: 2.5\n", want: []string{"iterations", "2.5", "whole number"}},
		{name: "md reads more than it writes", args: []string{"md", "-d", "DATA", "-n", "5", "--write-bytes", "4KiB", "--read-bytes", "8KiB"}, want: []string{"--read-bytes", "--write-bytes"}},
		{name: "--autoterm.dur longer than the phase", args: s3("get", "--duration", "1m", "--autoterm", "--autoterm.dur", "10m"), env: keys, want: []string{"--autoterm.dur", "--duration"}},
		{name: "--syncstart that has passed", args: s3("get", "--syncstart", "09:00"), env: keys, now: noon, want: []string{"--syncstart", "09:00", "passed"}},
		{name: "--syncstart 00:00 when midnight has passed", args: s3("get", "--syncstart", "00:00"), env: keys, now: noon, want: []string{"--syncstart", "00:00", "passed", "it is 12:00 now"}},
		{name: "analyze --skip longer than the phase", args: []string{"analyze", "--skip", "1h", fioA}, want: []string{"--skip", "1h"}},
		{name: "analyze --op NOPE", args: []string{"analyze", "--op", "NOPE", fioA}, want: []string{"--op"}},
		{name: "report of runs with no phase in common", args: []string{"report", "-o", "DATA/r.html", "--md", "DATA/r.md", fioA, mdA}, want: []string{"no phase in common"}},
		{name: "a repeated single-value flag", args: []string{"md", "-d", "DATA", "-n", "5", "-n", "6"}, want: []string{"-n/--items", "twice"}},
		{name: "completion for an unknown shell", args: []string{"completion", "tcsh"}, want: []string{"tcsh"}},
		{name: "help for an unknown command", args: []string{"help", "frobnicate"}, want: []string{"frobnicate"}},

		// Wrong or unclear words.
		{name: "--ioengine mistyped", args: []string{"fio", "-d", "DATA", "--rw", "randread", "--size", "1M", "--ioengine", "nosuch"}, want: []string{"ioengine=nosuch", `fio has no engine "nosuch"`, "libaio, io_uring"}, not: []string{"allow-exec", "shared library"}},
		{name: "--tool naming no engine's tool", args: []string{"fio", "-d", "DATA", "--tool", "fiio=/bin/false"}, want: []string{"--tool fiio=/bin/false", `"fiio"`, "the tools: fio"}},
		{name: "--tool without a name", args: []string{"fio", "-d", "DATA", "--tool", "/bin/false"}, want: []string{"--tool", "NAME=PATH"}},
		{name: "--tool and --fio-bin both for fio", args: []string{"fio", "-d", "DATA", "--tool", "fio=/bin/false", "--fio-bin", "/bin/true"}, want: []string{"--fio-bin", "fio's path is set already"}},
		{name: "--tool fio= that is not fio", args: []string{"fio", "-d", "DATA", "--tool", "fio=/bin/false"}, want: []string{"--tool fio=/bin/false", "not fio"}, not: []string{"job file", "--fio-bin"}},
		{name: "--tool fio= that is not there", args: []string{"fio", "-d", "DATA", "--tool", "fio=/nonexistent/fio"}, want: []string{"--tool fio=/nonexistent/fio", "not found"}, not: []string{"--fio-bin"}},
		{name: "--fio-bin that is not fio", args: []string{"fio", "-d", "DATA", "--fio-bin", "/bin/false"}, want: []string{"--tool fio=/bin/false", "not fio"}, not: []string{"job file"}},
		{name: "md workers out of range", args: []string{"md", "-d", "DATA", "-n", "5", "-t", "100000"}, want: []string{"workers (-t)", "1 to"}, not: []string{"0 for one per CPU"}},
		{name: "an integer flag given a float", args: []string{"md", "-d", "DATA", "-n", "1e30"}, want: []string{"-n/--items", `"1e30"`}, not: []string{"strconv"}},
		{name: "suite name a list", suite: "name: [a]\ndir: DATA\nphases:\n  - md: {items: 5}\n", want: []string{"name"}, not: []string{"!!seq", "unmarshal"}},
		{name: "suite iterations a word", suite: "name: x\ndir: DATA\nphases:\n  - md: {items: 5}\n    iterations: x\n", want: []string{"iterations", `"x"`}, not: []string{"!!str", "unmarshal"}},
		{name: "suite s3 objects a word", suite: "name: x\nphases:\n  - s3: {op: get, objects: x, host: '127.0.0.1:1', access_key: a, secret_key: b}\n", want: []string{"objects", `"x"`}, not: []string{"Go struct", "unmarshal"}},
		{name: "suite md items a list", suite: "name: x\ndir: DATA\nphases:\n  - md: {items: [5]}\n", want: []string{"items"}, not: []string{"Go struct", "unmarshal"}},
		{name: "--verbosity a word", args: []string{"analyze", "--verbosity=abc", fioA}, want: []string{"--verbosity", `"abc"`, "level"}, not: []string{"strconv", "invalid syntax"}},
		{name: "--verbosity negative", args: []string{"analyze", "--verbosity=-1", fioA}, want: []string{"--verbosity", "-1", "0 or more"}},
		{name: "suite that is not YAML", suite: "name: x\ndir: DATA\nphases:\n  - md: {items: 5\n", want: []string{"suite.yaml:", "not valid YAML"}, not: []string{"yaml: line"}},
		{name: "summary.json cut short", args: []string{"analyze", cut}, want: []string{"summary.json is damaged", "cut short"}, not: []string{"unexpected end of JSON input"}},
		{name: "analyze -o a directory", args: []string{"analyze", "-o", "DATA", fioA}, want: []string{"-o/--output", "is a directory"}, not: []string{"rename"}},
		{name: "report -o a directory", args: []string{"report", "-o", "DATA", "--md", "-", fioA}, want: []string{"-o/--output", "is a directory"}, not: []string{"rename"}},
		{name: "analyze -o in a file", args: []string{"analyze", "-o", filepath.Join(fioA, "summary.json", "x.txt"), fioA}, want: []string{"-o/--output", "is not a directory"}},
		{name: "report --md in a file", args: []string{"report", "-o", "DATA/r.html", "--md", filepath.Join(fioA, "summary.json", "x.md"), fioA}, want: []string{"--md", "is not a directory"}},
		{name: "merge -o ''", args: []string{"merge", "-o", "", filepath.Join(testResults, "s3-a"), filepath.Join(testResults, "s3-b")}, want: []string{"-o/--output"}, not: []string{"default"}},
		{name: "analyze -o in a missing directory", args: []string{"analyze", "-o", "/nonexistent/x.txt", fioA}, want: []string{"/nonexistent/x.txt"}},
		{name: "report -o in a missing directory", args: []string{"report", "-o", "/nonexistent/x.html", "--md", "-", fioA}, want: []string{"/nonexistent/x.html"}},

		// Results folders that lie (issue 32): refused the same way by
		// every reader, where each was read, compared, reported and
		// cataloged with exit 0.
		{name: "analyze a negative ops_per_s", args: []string{"analyze", lies.negRate}, want: append([]string{"summary.json", "ops_per_s is -3742.257742"}, negative...)},
		{name: "compare a negative ops_per_s", args: []string{"compare", fioB, lies.negRate}, want: append([]string{"ops_per_s is -3742.257742"}, negative...)},
		{name: "report a negative ops_per_s", args: []string{"report", "-o", "DATA/r.html", "--md", "DATA/r.md", lies.negRate}, want: append([]string{"ops_per_s is -3742.257742"}, negative...)},
		{name: "merge a negative ops_per_s", args: []string{"merge", "-o", "DATA/m", lies.negRate, fioB}, want: append([]string{"ops_per_s is -3742.257742"}, negative...)},
		{name: "catalog add a negative ops_per_s", args: []string{"catalog", "add", "--catalog", lies.catalog, lies.negRate}, want: []string{lies.negRate}},
		{name: "analyze a negative duration_s", args: []string{"analyze", lies.negDuration}, want: append([]string{"duration_s is -2.730524866"}, negative...)},
		{name: "check a negative duration_s", args: []string{"check", "--catalog", lies.catalog, "--baseline", "name=*", lies.negDuration}, want: append([]string{"duration_s is -2.730524866"}, negative...)},
		{name: "analyze a host's window that ends before it starts", args: []string{"analyze", lies.negWindow}, want: []string{"result.json", "ends", "before it starts"}},
		{name: "analyze a phase directory linked to /etc", args: []string{"analyze", lies.linked}, want: []string{"01-randrw is a symbolic link (to /etc)"}},
		{name: "compare a phase directory linked to /etc", args: []string{"compare", fioB, lies.linked}, want: []string{"01-randrw is a symbolic link (to /etc)"}},
		{name: "report a phase directory linked to /etc", args: []string{"report", "-o", "DATA/r.html", "--md", "DATA/r.md", lies.linked}, want: []string{"01-randrw is a symbolic link (to /etc)"}},
		{name: "merge a phase directory linked to /etc", args: []string{"merge", "-o", "DATA/m", lies.linked, fioB}, want: []string{"01-randrw is a symbolic link (to /etc)"}},
		{name: "catalog add a phase directory linked to /etc", args: []string{"catalog", "add", "--catalog", lies.catalog, lies.linked}, want: []string{lies.linked}},
		{name: "check a phase directory linked to /etc", args: []string{"check", "--catalog", lies.catalog, "--baseline", "name=*", lies.linked}, want: []string{"01-randrw is a symbolic link (to /etc)"}},
	}
	for _, c := range cases {
		if c.suite != "" {
			runLate(t, c, false)
			runLate(t, c, true)
			continue
		}
		runLate(t, c, false)
	}
}

// runLate runs one case and checks what the user sees and what is left.
func runLate(t *testing.T, c lateCase, dryRun bool) {
	name := c.name
	if dryRun {
		name += " (--dry-run)"
	}
	if targetless(c) {
		t.Fatalf("case %q names no target directory: it would work in ./%s, which this parallel table cannot watch; give -d DATA (dir: DATA), or put it in TestBadInputIsOneLineExit2, whose cases run in an empty working directory", c.name, defaultDir)
	}
	t.Run(name, func(t *testing.T) {
		results, data := filepath.Join(t.TempDir(), "results"), t.TempDir()
		args := make([]string, 0, len(c.args)+4)
		for _, a := range c.args {
			args = append(args, strings.ReplaceAll(a, "DATA", data))
		}
		if c.suite != "" {
			p := filepath.Join(t.TempDir(), "suite.yaml")
			if err := os.WriteFile(p, []byte(strings.ReplaceAll(c.suite, "DATA", data)), 0o644); err != nil {
				t.Fatal(err)
			}
			args = []string{"run", p}
			if dryRun {
				args = append(args, "--dry-run")
			}
		}
		if !readers[args[0]] {
			args = append(args, "--results", results)
		}
		st, out := testState()
		st.Getenv = func(k string) string { return c.env[k] }
		if !c.now.IsZero() {
			st.Now = func() time.Time { return c.now }
		}
		msg := refusedInOneLine(t, st, out, args, c.want)
		for _, w := range c.not {
			if strings.Contains(msg, w) {
				t.Errorf("%q says %q", msg, w)
			}
		}
		noResults(t, results)
		for _, d := range []string{data} {
			if ents, _ := os.ReadDir(d); len(ents) != 0 {
				t.Errorf("%s was written: %v", d, ents)
			}
		}
	})
}

// targetless says a case of fio, md or run names no target directory,
// so that it would work in ./storbench-data of the working directory
// (defaultDir): fio, md and run (the quick suite) without -d, and a
// suite of file phases without dir: (suites name it as dir: DATA).
func targetless(c lateCase) bool {
	if slices.Contains(c.args, "-d") || slices.Contains(c.args, "--directory") {
		return false
	}
	if c.suite != "" {
		return !strings.Contains(c.suite, "dir:") && (strings.Contains(c.suite, "md:") || strings.Contains(c.suite, "fio:"))
	}
	return c.args[0] == "fio" || c.args[0] == "md" || c.args[0] == "run"
}

// compare falls back from the block bootstrap over seconds to tests that
// assume independent requests when a side's latency-seconds.zst cannot be
// read: it says so, instead of changing its test without a word.
func TestCompareSaysWhenPerSecondLatencyIsDamaged(t *testing.T) {
	t.Parallel()
	a, b := copyResults(t, "s3-lat-a"), copyResults(t, "s3-lat-b")
	if err := os.WriteFile(filepath.Join(b, "01-s3-mixed", "hosts", "vm", "latency-seconds.zst"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"", "--md"} {
		st, out := testState()
		args := []string{"compare", a, b}
		if format != "" {
			args = append(args, format)
		}
		if err := Execute(context.Background(), st, args); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if !strings.Contains(out.String(), "latency-seconds.zst") || !strings.Contains(out.String(), "as if requests were independent") {
			t.Errorf("compare %s does not say the per-second latency was unreadable:\n%s", format, out)
		}
	}
}

// A results folder without run.json is read with a note saying what is
// unknown; one whose summary.json is of a newer schema than this build
// reads is refused (exit 2) instead of being read as if it were this one's.
func TestFolderWithoutRunJSONOrNewerSchema(t *testing.T) {
	t.Parallel()
	bare := copyResults(t, "fio-a")
	if err := os.Remove(filepath.Join(bare, "run.json")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"analyze", bare}, {"compare", bare, filepath.Join(testResults, "fio-b")}, {"report", "--md", "-", "-o", filepath.Join(t.TempDir(), "r.html"), bare}} {
		st, out := testState()
		if err := Execute(context.Background(), st, args); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		if !strings.Contains(out.String(), "note: "+bare+" has no run.json") {
			t.Errorf("%v does not note the missing run.json:\n%s", args, out)
		}
	}
	newer := copyResults(t, "fio-a")
	editResults(t, newer, "summary.json", `"schema_version": 2`, `"schema_version": 999`)
	for _, args := range [][]string{{"analyze", newer}, {"compare", newer, filepath.Join(testResults, "fio-b")}, {"report", "--md", "-", "-o", filepath.Join(t.TempDir(), "r.html"), newer}} {
		st, out := testState()
		err := Execute(context.Background(), st, args)
		if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "schema_version 999") {
			t.Errorf("%v: exit %d (%v), want 2 naming schema_version 999\n%s", args, ExitCode(err), err, out)
		}
	}
}

// A run.json that is there but does not parse is noted as a missing one
// is (it was passed over without a word), in the user's words; merge and
// catalog add, which need it, refuse the folder.
func TestDamagedRunJSONIsNoted(t *testing.T) {
	t.Parallel()
	damaged := copyResults(t, "fio-a")
	if err := os.WriteFile(filepath.Join(damaged, "run.json"), []byte(`{"run_id": "x", "status": `), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "note: " + filepath.Join(damaged, "run.json") + " is damaged: cut short"
	for _, args := range [][]string{{"analyze", damaged}, {"compare", damaged, filepath.Join(testResults, "fio-b")}, {"report", "--md", "-", "-o", filepath.Join(t.TempDir(), "r.html"), damaged}} {
		st, out := testState()
		if err := Execute(context.Background(), st, args); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		if !strings.Contains(out.String(), want) || strings.Contains(out.String(), "unexpected end of JSON") {
			t.Errorf("%v does not note the damaged run.json (%q):\n%s", args, want, out)
		}
	}
	for _, args := range [][]string{{"merge", "-o", filepath.Join(t.TempDir(), "m"), damaged, filepath.Join(testResults, "fio-b")},
		{"catalog", "add", "--catalog", filepath.Join(t.TempDir(), "c.db"), damaged}} {
		st, out := testState()
		err := Execute(context.Background(), st, args)
		if ExitCode(err) != ExitUsage || !strings.Contains(out.String()+err.Error(), "run.json is damaged: cut short") {
			t.Errorf("%v: exit %d (%v), want 2 saying run.json is damaged\n%s", args, ExitCode(err), err, out)
		}
	}
}

// --tls against a server that speaks plain HTTP (a real versitygw): bad
// input, found on first contact before any load, one line, exit 2 and no
// results folder. Before, the run failed (exit 1) with a results folder.
func TestTLSToPlainServerIsBadInput(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	res := t.TempDir()
	st, out := testState()
	st.Getenv = func(k string) string {
		return map[string]string{"STORBENCH_ACCESS_KEY": s3test.AccessKey, "STORBENCH_SECRET_KEY": s3test.SecretKey}[k]
	}
	refusedInOneLine(t, st, out, []string{"s3", "get", "--host", srv.Endpoint, "--tls", "--objects", "5", "--duration", "1s", "--results", res},
		[]string{srv.Endpoint, "does not speak TLS", "drop --tls"})
	if ents, _ := os.ReadDir(res); len(ents) != 0 {
		t.Errorf("results written: %v", ents)
	}
}
