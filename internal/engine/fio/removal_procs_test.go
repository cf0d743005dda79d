package fio_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil"
)

// manyFilesJobs writes a workload directory of two fio jobs whose files
// are many (4 jobs of 300 files each): removing them takes a while.
func manyFilesJobs(t *testing.T, runtime string) string {
	t.Helper()
	dir := t.TempDir()
	job := "[global]\nioengine=psync\nbs=64k\nnrfiles=300\nfilesize=512k\nnumjobs=4\ntime_based=1\nruntime=" + runtime + "\n[w]\nrw=randwrite\n"
	for _, n := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(dir, n+".job"), []byte(job), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var folderRE = regexp.MustCompile(`results in (\S+)`)

func lastFolder(t *testing.T, out string) string {
	t.Helper()
	m := folderRE.FindAllStringSubmatch(out, -1)
	if len(m) == 0 {
		t.Fatalf("no results folder in the output:\n%s", out)
	}
	return m[len(m)-1][1]
}

// Issue 25 item 12: a fio phase's files are removed in the background,
// overlapping what follows (the next phase's layout, the results), and
// the removal ends before the next phase starts and before the run ends;
// summary.json records when it ran.
func TestBackgroundRemovalLocal(t *testing.T) {
	data := t.TempDir()
	code, out := runBin(t, "fio", "-d", data, "-w", manyFilesJobs(t, "2"), "--results", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	s, err := results.ReadSummary(lastFolder(t, out))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Phases) != 2 {
		t.Fatalf("%d phases, want 2:\n%s", len(s.Phases), out)
	}
	checkRemovalOverlaps(t, s)
	if got := tree(data); len(got) != 0 {
		t.Errorf("DIR holds %v after the run", got)
	}
}

// SIGINT while the last phase's files are being removed: the removal is
// still awaited (bounded), the results are written, the run says it was
// interrupted (exit 130), and nothing is left in DIR, or what is left is
// reported.
func TestSIGINTDuringRemoval(t *testing.T) {
	bin := storbenchBin(t)
	data := t.TempDir()
	w := manyFilesJobs(t, "1")
	_ = os.Remove(filepath.Join(w, "b.job"))
	cmd := testutil.Command(t, bin, "fio", "-d", data, "-w", w, "--results", t.TempDir())
	var out testutil.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The phase's figures are printed when its run ended: its files are
	// being removed from then on.
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(out.String(), "write bandwidth") && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	text := out.String()
	s, rerr := results.ReadSummary(lastFolder(t, text))
	if rerr != nil {
		t.Fatalf("results not written: %v\n%s", rerr, text)
	}
	if len(s.Phases) != 1 || s.Phases[0].Timing == nil {
		t.Fatalf("the phase is not in summary.json:\n%s", text)
	}
	left := tree(data)
	switch {
	case code == 0:
		t.Skipf("the run ended before the SIGINT:\n%s", text)
	case code != 130 && !(code == 1 && len(left) > 0):
		t.Errorf("exit %d, want 130:\n%s", code, text)
	}
	if len(left) > 0 && !strings.Contains(text, "left behind") {
		t.Errorf("DIR holds %v and the output does not say so:\n%s", left, text)
	}
	if tm := s.Phases[0].Timing; len(left) == 0 && tm.RemovalEndNs == 0 {
		t.Errorf("the removal's end is not recorded: %+v", tm)
	}
}

// Phases of one job (a suite's iterations) use one phase directory: the
// next is prepared only once the earlier one's removal, in the background,
// is done with that path, and the removal never takes the next phase's
// directory with it (fio then failed to start: "fork/exec /usr/bin/fio: no
// such file or directory").
func TestBackgroundRemovalSameJobTwice(t *testing.T) {
	storbenchBin(t)
	data := t.TempDir()
	suite := filepath.Join(t.TempDir(), "suite.yaml")
	text := "name: again\ndir: " + data + "\nphases:\n  - fio: {job: {rw: randwrite, bs: 64k, nrfiles: 300, filesize: 256k, numjobs: 4, ioengine: psync, time_based: 1, runtime: 1}}\n    iterations: 3\n"
	if err := os.WriteFile(suite, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := runBin(t, "run", suite, "--results", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	s, err := results.ReadSummary(lastFolder(t, out))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Phases) != 3 {
		t.Fatalf("%d phases, want 3:\n%s", len(s.Phases), out)
	}
	for _, ph := range s.Phases {
		if ph.Status != "completed" {
			t.Errorf("phase %s: %s", ph.Name, ph.Status)
		}
	}
	checkRemovalOverlaps(t, s)
	if got := tree(data); len(got) != 0 {
		t.Errorf("DIR holds %v after the run", got)
	}
}

// checkRemovalOverlaps asserts that every phase's removal is recorded,
// ended before the next phase started on any host and before the run
// ended, and overlapped what followed: the run took less than its stages
// one after another.
func checkRemovalOverlaps(t *testing.T, s *results.Summary) {
	t.Helper()
	var serial float64
	for i, ph := range s.Phases {
		tm := ph.Timing
		if tm == nil || tm.RemovalS == nil || tm.RemovalStartNs == 0 || tm.RemovalEndNs == 0 {
			t.Fatalf("phase %s: the removal of its files is not recorded: %+v", ph.Name, tm)
		}
		serial += tm.PrepareS + tm.RunS + tm.CleanupS + *tm.RemovalS
		if end := s.EndedAt.UnixNano(); tm.RemovalEndNs > end {
			t.Errorf("phase %s: removal ended %s after the run ended", ph.Name, time.Duration(tm.RemovalEndNs-end))
		}
		if i == 0 {
			continue
		}
		prev := s.Phases[i-1].Timing
		for _, h := range ph.PerHost {
			if h.StartNs <= prev.RemovalEndNs {
				t.Errorf("phase %s started %s before phase %s's files were removed", ph.Name, time.Duration(prev.RemovalEndNs-h.StartNs), s.Phases[i-1].Name)
			}
		}
	}
	if wall := s.EndedAt.Sub(s.StartedAt).Seconds(); wall >= serial {
		t.Errorf("the run took %.2f s, not less than its stages one after another (%.2f s): the removal overlapped nothing", wall, serial)
	}
}
