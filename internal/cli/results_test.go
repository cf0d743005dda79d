package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil"
)

// copyResults copies a committed results folder into a temporary one that a
// test may change.
func copyResults(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join(testResults, name)
	dst := filepath.Join(t.TempDir(), name)
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// editResults replaces old with new in a results folder's file.
func editResults(t *testing.T, dir, file, old, new string) {
	t.Helper()
	p := filepath.Join(dir, file)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s has no %q", p, old)
	}
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(b), old, new)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Merging the same run twice would double every rate, and merging runs
// with no phase in common merges nothing: both are refused with one line,
// exit code 2, and nothing left behind.
func TestMergeRefusesTheSameRunTwiceAndNothingInCommon(t *testing.T) {
	t.Parallel()
	s3a := filepath.Join(testResults, "s3-a")
	// A copy of s3-a under another run id: the same host's s3-mixed twice.
	renamed := copyResults(t, "s3-a")
	editResults(t, renamed, "run.json", "20261121T052511Z-d747", "20261121T052511Z-0000")
	editResults(t, renamed, "summary.json", "20261121T052511Z-d747", "20261121T052511Z-0000")
	for _, tc := range []struct {
		name   string
		inputs []string
		want   string
	}{
		{"same folder twice", []string{s3a, s3a}, "same run"},
		{"a copy of the same run", []string{s3a, copyResults(t, "s3-a")}, "same run"},
		{"the same host twice in a phase", []string{s3a, renamed}, "host vm"},
		{"no phase in common", []string{filepath.Join(testResults, "fio-a"), filepath.Join(testResults, "md-a")}, "no phase in common"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "merged")
			st, buf := testState()
			err := Execute(context.Background(), st, append([]string{"merge", "-o", out}, tc.inputs...))
			if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err %v (exit %d), want exit 2 and one line with %q\n%s", err, ExitCode(err), tc.want, buf)
			}
			if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
				t.Errorf("left behind: %v", entries)
			}
		})
	}
}

// A host's result.json that is missing, cut short or not JSON is named, and
// analyze, report and compare fail with exit code 2 instead of printing
// "0 host(s)" and succeeding.
func TestUnreadableHostResultIsNamed(t *testing.T) {
	t.Parallel()
	const file = "01-randrw/hosts/vm/result.json"
	for _, damage := range []struct {
		name string
		do   func(path string) error
	}{
		{"missing", os.Remove},
		{"cut short", func(p string) error { return os.Truncate(p, 100) }},
		{"empty", func(p string) error { return os.Truncate(p, 0) }},
		{"not JSON", func(p string) error { return os.WriteFile(p, []byte("<html>"), 0o644) }},
	} {
		t.Run(damage.name, func(t *testing.T) {
			dir := copyResults(t, "fio-a")
			if err := damage.do(filepath.Join(dir, file)); err != nil {
				t.Fatal(err)
			}
			other := filepath.Join(testResults, "fio-b")
			for _, args := range [][]string{
				{"analyze", dir},
				{"analyze", "--json", dir},
				{"report", dir},
				{"compare", dir, other},
				{"compare", other, dir},
				{"report", other, dir, "-o", filepath.Join(t.TempDir(), "r.html")},
			} {
				st, out := testState()
				err := Execute(context.Background(), st, args)
				if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), filepath.Join(dir, file)) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%v: err %v (exit %d), want exit 2 and one line naming %s\n%s", args[0], err, ExitCode(err), file, out)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "report.html")); err == nil {
				t.Error("report wrote report.html from a folder it could not read")
			}
		})
	}
}

// twoPhaseJobs is a workload of two fio phases: "first" (1 s) and "second"
// (runtime seconds), so a test can act while the second runs.
func twoPhaseJobs(t *testing.T, runtime string) string {
	t.Helper()
	return workloadDir(t, map[string]string{
		"first":  quickJob("read", ""),
		"second": strings.Replace(quickJob("read", ""), "runtime=1", "runtime="+runtime, 1),
	})
}

// waitForPhase waits until a results folder under root lists phase in its
// summary.json and returns the folder.
func waitForPhase(t *testing.T, root, phase string, done <-chan struct{}) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		folders, _ := filepath.Glob(filepath.Join(root, "*"))
		for _, f := range folders {
			if b, err := os.ReadFile(filepath.Join(f, "summary.json")); err == nil && strings.Contains(string(b), `"name": "`+phase+`"`) {
				return f
			}
		}
		select {
		case <-done:
			t.Fatalf("the run ended before phase %s was saved", phase)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("phase %s never appeared in %s", phase, root)
	return ""
}

// waitForOutput waits until out holds text, failing when the run ends
// first.
func waitForOutput(t *testing.T, out *testutil.Buffer, text string, done <-chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(out.String(), text) {
		select {
		case <-done:
			t.Fatalf("the run ended before it printed %q:\n%s", text, out)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q never printed:\n%s", text, out)
		}
	}
}

// neverFinished is what analyze, report and compare say of a run whose
// run.json still says running.
const neverFinished = "never finished"

// A run killed with kill -9 leaves run.json saying running. analyze, report
// and compare say so in a note line, and still show the phases it saved.
func TestKilledRunIsSaidNeverFinished(t *testing.T) {
	t.Parallel()
	needFio(t)
	if testing.Short() {
		t.Skip("builds storbench and runs fio")
	}
	bin := testutil.StorbenchBin(t)
	res := t.TempDir()
	cmd := exec.Command(bin, "fio", "-d", t.TempDir(), "-w", twoPhaseJobs(t, "30"), "--results", res)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // fio dies with it, as on a power cut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	folder := waitForPhase(t, res, "first", done)
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
	run, err := results.ReadRunInfo(folder)
	if err != nil || run.Status != results.StatusRunning {
		t.Fatalf("after kill -9 run.json says %v (%v), want running", run, err)
	}

	html, md := filepath.Join(t.TempDir(), "r.html"), filepath.Join(t.TempDir(), "s.md")
	for _, tc := range []struct {
		args  []string
		file  string // where to look; "" is stdout
		shows string // a figure of the finished phase
	}{
		{[]string{"analyze", folder}, "", "Phase first"},
		{[]string{"analyze", "--md", folder}, "", "## first (fio)"},
		{[]string{"analyze", "--json", folder}, "", `"name": "first"`},
		{[]string{"report", folder, "-o", html, "--md", md}, html, "first"},
		{[]string{"report", folder, "-o", html, "--md", md}, md, "| first |"},
		// Compared with itself: compare refuses runs with no phase in
		// common before it says anything.
		{[]string{"compare", folder, folder}, "", "first"},
		{[]string{"compare", "--md", folder, folder}, "", "Compare"},
		{[]string{"compare", "--json", folder, folder}, "", `"before"`},
	} {
		st, out := testState()
		err := Execute(context.Background(), st, tc.args)
		if err != nil {
			t.Errorf("%v: %v\n%s", tc.args, err, out)
			continue
		}
		text := out.String()
		if tc.file != "" {
			b, _ := os.ReadFile(tc.file)
			text = string(b)
		}
		if !strings.Contains(text, neverFinished) || !strings.Contains(text, tc.shows) {
			t.Errorf("%v: output does not say the run %s, or lacks %q:\n%s", tc.args, neverFinished, tc.shows, text)
		}
	}
}

// mountTmpfs mounts a tmpfs with the given options on a new directory and
// unmounts it at the end of the test; it skips when not root.
func mountTmpfs(t *testing.T, opts string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs to fill (run the tests as root, as CI does)")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// fill writes a file in dir until the file system is full.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			return
		}
	}
}

// The results disk fills up while a phase runs. The run exits 1 naming
// what was not saved, leaves no temporary file behind, and the folder still
// reads: the phase saved before the disk filled, and a note that the run
// never finished (run.json could not be updated).
func TestFullResultsDiskIsReported(t *testing.T) {
	t.Parallel()
	needFio(t)
	disk := mountTmpfs(t, "size=4m")
	st, out := testState()
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		err = Execute(context.Background(), st, []string{"fio", "-d", t.TempDir(), "-w", twoPhaseJobs(t, "3"), "--results", disk})
	}()
	folder := waitForPhase(t, disk, "first", done)
	// summary.json lists the first phase before the run's other files are
	// rewritten for it; the disk fills once the second phase has begun.
	waitForOutput(t, out, "starting fio phase second", done)
	fill(t, disk)
	<-done
	if ExitCode(err) != ExitFailed {
		t.Fatalf("exit %d (%v), want %d\n%s", ExitCode(err), err, ExitFailed, out)
	}
	msg := err.Error()
	t.Logf("the run said: %s", msg)
	for _, want := range []string{"not saved", "no space left on device", "02-second/hosts/", "run.json", "report.html", "second"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error is not one line: %q", msg)
	}
	// The phase that was not saved was printed while the run went on.
	if !strings.Contains(out.String(), "read bandwidth:") || strings.Count(out.String(), "read bandwidth:") != 2 {
		t.Errorf("both phases' figures were not printed:\n%s", out)
	}
	_ = filepath.WalkDir(disk, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".tmp") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
	st, out = testState()
	if err := Execute(context.Background(), st, []string{"analyze", folder}); err != nil {
		t.Fatalf("analyze of the folder left by a full disk: %v\n%s", err, out)
	}
	if text := out.String(); !strings.Contains(text, neverFinished) || !strings.Contains(text, "Phase first") {
		t.Errorf("analyze does not show the saved phase with a note that the run %s:\n%s", neverFinished, text)
	}
}
