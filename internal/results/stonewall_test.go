package results

import (
	"slices"
	"strings"
	"testing"
)

// IO500 marks a write phase that ran under its own stonewall INVALID
// (io500's src/phase_ior.c: "Write phase needed X s instead of stonewall
// Y s"), beside the 300 s minimum: the deadline the phase ran with, not
// a fixed one, decides.
func TestIO500WriteUnderItsStonewallInvalid(t *testing.T) {
	sum, err := ReadSummary("testdata/io500")
	if err != nil {
		t.Fatal(err)
	}
	// The fixture's ior writes ran 10 s.
	ps := clonePhases(sum.Phases)
	ps[indexOf(ps, "ior-easy-write")].Stonewall = &StonewallSummary{DeadlineS: 20}
	ps[indexOf(ps, "ior-hard-write")].Stonewall = &StonewallSummary{DeadlineS: 5}
	s := ComputeIO500(ps)
	want := "ior-easy-write: ran 10 s, under its stonewall of 20 s (IOR: the write phase needed less than its deadline)"
	if !slices.Contains(s.Invalid, want) {
		t.Errorf("invalid %q, want %q", s.Invalid, want)
	}
	for _, r := range s.Invalid {
		if strings.HasPrefix(r, "ior-hard-write:") && strings.Contains(r, "stonewall") {
			t.Errorf("ior-hard-write ran past its 5 s stonewall, yet: %s", r)
		}
	}
	for _, f := range s.Figures {
		if f.Phase == "ior-easy-write" && (f.StonewallS == nil || *f.StonewallS != 20) {
			t.Errorf("ior-easy-write's figure has stonewall %v, want 20 s", f.StonewallS)
		}
	}
}
