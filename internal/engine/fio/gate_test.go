package fio

import (
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/record"
)

// The job file fio runs behind the gate: the WEKA seed's shape (a
// create_only section, then the measured one, a startdelay in [global])
// holds only the measured section, runs a section's own exec_prerun
// first, and drops the startdelay every section had alike.
func TestGatedJobFile(t *testing.T) {
	jf, err := ParseJobFile("w", "[global]\nstartdelay=5\nsize=1m\n[create]\ncreate_only=1\n[read]\nstonewall\nrw=read\nexec_prerun=echo hi\n[write]\nrw=write\n")
	if err != nil {
		t.Fatal(err)
	}
	out, ungated, err := gated(jf, func(own string) string { return "GATE(" + own + ")" })
	if err != nil || len(ungated) != 0 {
		t.Fatalf("%v, ungated %v", err, ungated)
	}
	want := map[string]string{"create": "", "read": "GATE(echo hi)", "write": "GATE()"}
	for _, s := range out.Sections[1:] {
		got, _ := s.Get("exec_prerun")
		if got != want[s.Name] {
			t.Errorf("[%s] exec_prerun %q, want %q", s.Name, got, want[s.Name])
		}
		if d, _ := out.Lookup(s, "startdelay"); d != "0" {
			t.Errorf("[%s] startdelay %q, want 0: the gate starts the jobs together", s.Name, d)
		}
	}
	// A startdelay that differs between sections staggers them on purpose.
	jf, _ = ParseJobFile("s", "[a]\nrw=read\n[b]\nrw=read\nstartdelay=10\n")
	out, _, _ = gated(jf, func(string) string { return "G" })
	if d, _ := out.Sections[1].Get("startdelay"); d != "10" {
		t.Errorf("a staggered startdelay became %q", d)
	}
	if !strings.Contains(out.Render(), "exec_prerun=G") {
		t.Errorf("not gated:\n%s", out.Render())
	}
}

// The windows of one host's operations, hand-computed: its two jobs passed
// the gate at 10.000 s and 10.004 s; fio says it ran 2,000 ms after a
// 500 ms ramp and printed its output at 12.530 s. The operation ran from
// 10.500 s (first start + ramp) to 12.504 s (last start + ramp + runtime,
// before fio's own end time). With two groups, run one after the other,
// a window keeps fio's end and starts no earlier than the first job.
func TestAlignStart(t *testing.T) {
	const s = int64(1e9)
	one := &Output{Jobs: []JobOut{{GroupID: 0, Write: DirOut{TotalIOs: 1}}}}
	ops := []record.OpStats{{Op: "write", StartNs: 12530*s/1000 - 2*s, EndNs: 12530 * s / 1000}}
	one.alignStart(ops, []int64{10 * s, 10*s + 4e6}, 500*time.Millisecond)
	if ops[0].StartNs != 10500*s/1000 || ops[0].EndNs != 12504*s/1000 {
		t.Errorf("one group: %d to %d, want 10.500 s to 12.504 s", ops[0].StartNs, ops[0].EndNs)
	}
	two := &Output{Jobs: []JobOut{{GroupID: 0, Read: DirOut{TotalIOs: 1}}, {GroupID: 1, Write: DirOut{TotalIOs: 1}}}}
	ops = []record.OpStats{{Op: "r read", StartNs: 9 * s, EndNs: 11 * s}, {Op: "w write", StartNs: 11 * s, EndNs: 13 * s}}
	two.alignStart(ops, []int64{10 * s}, 0)
	if ops[0].StartNs != 10*s || ops[0].EndNs != 11*s || ops[1].StartNs != 11*s || ops[1].EndNs != 13*s {
		t.Errorf("two groups: %+v", ops)
	}
}
