package fio

import (
	"context"
	"io"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// fioClock runs fio --parse-only with --debug=time before args and says
// how many times it calibrated the CPU's clock and which clock it took
// (fio's number for it); ok is false when this fio says no such thing (a
// fio built without debug output).
func fioClock(t *testing.T, bin string, args ...string) (calibrations int, clock string, ok bool) {
	t.Helper()
	out, err := exec.Command(bin, append([]string{"--debug=time", "--parse-only"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("fio %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	took := regexp.MustCompile(`gettime: clocksource=(\d+)`).FindAllStringSubmatch(string(out), -1)
	if len(took) == 0 {
		return 0, "", false
	}
	return strings.Count(string(out), "trimmed mean="), took[len(took)-1][1], true
}

// A phase's fio calibrates its clock once. Left to pick, fio calibrates
// the CPU's clock, tests it on every CPU and calibrates again: 0.13 s of
// CPU a start on two cores, more than the I/O of a small phase's fio,
// paid by every fio of every phase (8 a round of bench/io500-vs-real.sh's
// storbench side). Where the kernel times with an invariant TSC, the
// phase's fio is told to time with it, fio's clock when its own test
// passes (its number 3), and calibrates once; elsewhere it is told
// nothing, and picks as fio on its own does. Before, it calibrated twice
// (this test failed so).
func TestPhaseFioCalibratesItsClockOnce(t *testing.T) {
	bin, err := FindFio("")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	// Two measured groups: not held at a gate, so Prepare leaves no fio
	// running and Run would start it by command.
	text := "[r]\nrw=read\nsize=64k\n[w]\nstonewall\nrw=write\nsize=64k\n"
	p, err := Engine{}.Prepare(testutil.Ctx(t, testutil.Bound), engine.Env{Host: "h", RunID: "clock"}, fioPhase(t, dir, "clock", text, Overrides{}))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Cleanup(context.Background())
	r := p.(*prepared)
	args := r.command(r.jobPath, io.Discard).Args[1:] // the options, then the job file
	ownN, own, ok := fioClock(t, bin, r.jobPath)
	if !ok {
		t.Skip("this fio prints no --debug=time lines")
	}
	n, clock, _ := fioClock(t, bin, args...)
	t.Logf("fio on its own: clock %s, calibrated %d times; as the phase runs it (%s): clock %s, %d times; the kernel times with an invariant TSC: %v",
		own, ownN, strings.Join(args[:len(args)-1], " "), clock, n, tscClock())
	switch {
	case tscClock():
		if clock != "3" || n != 1 {
			t.Errorf("the phase's fio takes clock %s and calibrates %d times, want the TSC (3), once", clock, n)
		}
		if ownN < 2 {
			t.Errorf("fio on its own calibrated %d times: this test no longer shows what it guards", ownN)
		}
	case slices.Contains(args, cpuClockArg):
		t.Errorf("told %s where the kernel does not time with an invariant TSC", cpuClockArg)
	}
	// A job file that names its clock keeps it, and is told no other.
	jf, err := ParseJobFile("own", "[r]\nrw=read\nclocksource=gettimeofday\n")
	if err != nil {
		t.Fatal(err)
	}
	if a := clockArgs(jf); a != nil {
		t.Errorf("a job file with a clocksource of its own is given %v, want nothing", a)
	}
}

// The CPUs' flags as /proc/cpuinfo lists them: invariant only when every
// CPU says nonstop_tsc.
func TestInvariantTSC(t *testing.T) {
	for _, tc := range []struct {
		info string
		want bool
	}{
		{"processor\t: 0\nflags\t\t: fpu tsc constant_tsc nonstop_tsc\n\nprocessor\t: 1\nflags\t\t: fpu nonstop_tsc\n", true},
		{"processor\t: 0\nflags\t\t: fpu nonstop_tsc\n\nprocessor\t: 1\nflags\t\t: fpu constant_tsc\n", false},
		{"processor\t: 0\nflags\t\t: fpu nonstop_tsc_x\n", false},
		{"processor\t: 0\nFeatures\t: fp asimd\n", false}, // arm64: no flags line
		{"", false},
	} {
		if got := invariantTSC([]byte(tc.info)); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.info, got, tc.want)
		}
	}
}
