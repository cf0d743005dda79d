package fio

import (
	"bytes"
	"os"
	"sync"
)

// fio picks its clock at every start (gettime.c's fio_clock_init): it
// calibrates the CPU's clock (50 rounds of 1.28 ms of waiting on the
// system's clock) and, where the CPU says its TSC is invariant, tests on
// every CPU that the TSC never goes back, calibrating again in that test,
// and takes the TSC when it passes. That is 0.13 s of CPU a start on two
// cores here, more than a small phase's fio spends on its I/O, and the
// test is a sample: on this 2-vCPU machine it failed in 4 of 10 starts
// (fio --cpuclock-test says so too), and those fio timed with
// clock_gettime, the others with the TSC. Told its clock on the command
// line, fio calibrates once and tests nothing (0.06 s).
//
// The kernel tests the same thing all the time: it keeps the TSC as its
// own clocksource only while the TSC stays in step across CPUs, and its
// clock_gettime then reads the TSC itself. Where the kernel's clocksource
// is the TSC and the CPU says it is invariant (the flag fio reads,
// nonstop_tsc in /proc/cpuinfo), a phase's fio is told to time with the
// TSC (--clocksource=cpu), the clock fio takes when its own test passes;
// elsewhere it is told nothing and picks as it always did.
const cpuClockArg = "--clocksource=cpu"

var tscClock = sync.OnceValue(func() bool {
	cs, err := os.ReadFile("/sys/devices/system/clocksource/clocksource0/current_clocksource")
	if err != nil || string(bytes.TrimSpace(cs)) != "tsc" {
		return false
	}
	info, err := os.ReadFile("/proc/cpuinfo")
	return err == nil && invariantTSC(info)
})

// invariantTSC says every CPU of /proc/cpuinfo has the flag nonstop_tsc
// (the kernel's name for CPUID's invariant TSC, which fio reads).
func invariantTSC(cpuinfo []byte) bool {
	cpus := 0
	for line := range bytes.Lines(cpuinfo) {
		name, flags, ok := bytes.Cut(line, []byte(":"))
		if !ok || string(bytes.TrimSpace(name)) != "flags" {
			continue
		}
		cpus++
		found := false
		for _, f := range bytes.Fields(flags) {
			found = found || string(f) == "nonstop_tsc"
		}
		if !found {
			return false
		}
	}
	return cpus > 0
}

// clockArgs is the clock option of a phase's fio: --clocksource=cpu where
// the kernel times with an invariant TSC and no section of the job file
// names a clock (fio would calibrate again for it), none elsewhere.
func clockArgs(jf *JobFile) []string {
	for _, s := range jf.Sections {
		if _, ok := s.Get("clocksource"); ok {
			return nil
		}
	}
	if !tscClock() {
		return nil
	}
	return []string{cpuClockArg}
}
