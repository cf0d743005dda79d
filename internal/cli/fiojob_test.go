package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/results"
)

// A one-off fio test with fio's own flags, as every fio user types first:
// no job file, no -d, and the job built is kept in the results folder like
// any other, with the headline its rw calls for.
func TestFioWithFiosOwnFlags(t *testing.T) {
	needFio(t)
	t.Chdir(t.TempDir())
	st, out := testState()
	res := t.TempDir()
	args := []string{"fio", "--rw", "randread", "--bs", "4k", "--iodepth", "16", "--ioengine", "libaio", "--size", "16M", "--runtime", "1s", "--results", res}
	if err := Execute(context.Background(), st, args); err != nil {
		t.Fatalf("storbench %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	folder := onlyFolder(t, res)
	s, err := results.ReadSummary(folder)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Phases) != 1 || s.Phases[0].Report != "iops" || len(s.Phases[0].Ops) != 1 || s.Phases[0].Ops[0].Op != "read" || s.Phases[0].Ops[0].Ops == 0 {
		t.Fatalf("want one randread phase headlined by IOPS with reads, got %+v", s.Phases)
	}
	var job []byte
	_ = filepath.Walk(folder, func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".fio") {
			job, _ = os.ReadFile(p)
		}
		return nil
	})
	for _, want := range []string{"rw=randread", "bs=4096", "iodepth=16", "ioengine=libaio", "size=16777216", "runtime=1"} {
		if !strings.Contains(string(job), want) {
			t.Errorf("the kept job file lacks %q:\n%s", want, job)
		}
	}
}

// fio's flags are refused where they do not belong or cannot run, before
// anything is written.
func TestFioFlagsBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rw", "sideways", "--size", "1M"}, `--rw "sideways": want one of fio's rw values`},
		{[]string{"--rw", "read"}, "--rw needs --size"},
		{[]string{"--rw", "read", "--size", "1M", "-w", "mixed"}, "--rw and -w both say what to run"},
		{[]string{"--bs", "4k"}, "--bs needs --rw"},
		{[]string{"--iodepth", "8", "-w", "mixed"}, "--iodepth needs --rw"},
		{[]string{"--rw", "read", "--size", "1M", "--bs", "0"}, "--bs 0: want a block size"},
		{[]string{"--rw", "read", "--size", "1M", "--bs", "3G"}, "--bs 3G: want a block size"},
		{[]string{"--rw", "read", "--size", "1M", "--iodepth", "-1"}, "--iodepth -1: want 1 to 65536"},
		{[]string{"--rw", "read", "--size", "1M", "--iodepth", "0"}, "--iodepth"},
		{[]string{"--rw", "read", "--size", "1M", "--rwmixread", "70"}, "--rwmixread is for --rw rw or randrw"},
		{[]string{"--rw", "randrw", "--size", "1M", "--rwmixread", "170"}, "--rwmixread 170: want a percentage"},
		{[]string{"--rw", "read", "--size", "1M", "--time-based"}, "--time-based needs --runtime"},
		{[]string{"--rw", "read", "--size", "10"}, "--size 10: want at least one 4 KiB block"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Chdir(t.TempDir())
			st, _ := testState()
			res := t.TempDir()
			err := Execute(context.Background(), st, append([]string{"fio", "--results", res}, c.args...))
			if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("exit %d, %v; want one line with %q, exit 2", ExitCode(err), err, c.want)
			}
			if ents, _ := os.ReadDir(res); len(ents) != 0 {
				t.Errorf("bad input wrote %d entries into the results folder", len(ents))
			}
		})
	}
}
