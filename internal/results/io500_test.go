package results

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The IO500-shaped score of testdata/io500/summary.json, a run of the
// twelve IO500 phases written by hand, computed by hand:
//
//	bandwidth (GiB/s): ior-easy-write 8, ior-hard-write 1, ior-easy-read 16,
//	  ior-hard-read 2: product 8 x 1 x 16 x 2 = 256 = 4^4, mean 4
//	metadata (kIOPS): mdtest-easy-write 50, mdtest-hard-write 20, find 1000,
//	  mdtest-easy-stat 500, mdtest-hard-stat 200, mdtest-easy-delete 40,
//	  mdtest-hard-read 100, mdtest-hard-delete 25:
//	  50 x 20 = 1e3; x 1000 = 1e6; x 500 = 5e8; x 200 = 1e11; x 40 = 4e12;
//	  x 100 = 4e14; x 25 = 1e16 = 100^8, mean 100
//	score: sqrt(4 x 100) = sqrt(400) = 20
//
// The fixture also holds what must not count: a fio phase named warmup at
// 1000 GiB/s, and tree-create operations at 1 kIOPS beside the md phases'
// file operations. Either one counted would move the score.
func TestIO500ScoreHandComputed(t *testing.T) {
	sum, err := ReadSummary("testdata/io500")
	if err != nil {
		t.Fatal(err)
	}
	s := ComputeIO500(sum.Phases)
	if len(s.Missing) != 0 || s.Score == nil || s.BandwidthGiB == nil || s.MetadataKIOPS == nil {
		t.Fatalf("score absent: %+v", s)
	}
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"bandwidth mean (GiB/s)", *s.BandwidthGiB, 4},
		{"metadata mean (kIOPS)", *s.MetadataKIOPS, 100},
		{"score", *s.Score, 20},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s: %.12f, want %v", c.what, c.got, c.want)
		}
	}
	if !strings.Contains(s.Label, "IO500-shaped") || !strings.Contains(s.Label, "not an IO500 submission") {
		t.Errorf("label %q", s.Label)
	}
	// Every IO500 phase, in IO500's order, with its figure in its unit.
	want := []struct {
		phase, op, unit string
		v               float64
	}{
		{"ior-easy-write", "write", "GiB/s", 8}, {"mdtest-easy-write", "file-create", "kIOPS", 50},
		{"ior-hard-write", "write", "GiB/s", 1}, {"mdtest-hard-write", "file-create", "kIOPS", 20},
		{"find", "find", "kIOPS", 1000}, {"ior-easy-read", "read", "GiB/s", 16},
		{"mdtest-easy-stat", "file-stat", "kIOPS", 500}, {"ior-hard-read", "read", "GiB/s", 2},
		{"mdtest-hard-stat", "file-stat", "kIOPS", 200}, {"mdtest-easy-delete", "file-remove", "kIOPS", 40},
		{"mdtest-hard-read", "file-read", "kIOPS", 100}, {"mdtest-hard-delete", "file-remove", "kIOPS", 25},
	}
	if len(s.Figures) != len(want) {
		t.Fatalf("%d figures, want %d: %+v", len(s.Figures), len(want), s.Figures)
	}
	for i, w := range want {
		f := s.Figures[i]
		if f.Phase != w.phase || f.Op != w.op || f.Unit != w.unit || f.Value == nil || math.Abs(*f.Value-w.v) > 1e-9 {
			t.Errorf("figure %d: %+v (value %v), want %s %s %v %s", i, f, ptrText(f.Value), w.phase, w.op, w.v, w.unit)
		}
	}
}

// A phase that failed, did not run, or measured nothing leaves the score
// absent, never 0, and says which phase; the mean of the other group stays.
func TestIO500ScoreAbsentWithoutAFigure(t *testing.T) {
	sum, err := ReadSummary("testdata/io500")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		change func([]PhaseSummary) []PhaseSummary
		want   string
		bwKept bool
	}{
		{"failed", func(ps []PhaseSummary) []PhaseSummary {
			ps[indexOf(ps, "mdtest-hard-read")].Status, ps[indexOf(ps, "mdtest-hard-read")].Error = StatusFailed, "no space left on device"
			return ps
		}, "mdtest-hard-read: failed", true},
		{"not run", func(ps []PhaseSummary) []PhaseSummary {
			return ps[:indexOf(ps, "mdtest-hard-delete")]
		}, "mdtest-hard-delete: did not run", true},
		{"zero", func(ps []PhaseSummary) []PhaseSummary {
			ps[indexOf(ps, "find")].Ops[0].OpsPerS = Figure(0)
			return ps
		}, "find: measured no find rate", true},
		{"op absent", func(ps []PhaseSummary) []PhaseSummary {
			i := indexOf(ps, "ior-hard-read")
			ps[i].Ops[0].Op = "write"
			return ps
		}, "ior-hard-read: measured no read bandwidth", false},
		{"figure absent", func(ps []PhaseSummary) []PhaseSummary {
			ps[indexOf(ps, "ior-easy-write")].Ops[0].BwBytesPerS = nil
			return ps
		}, "ior-easy-write: measured no write bandwidth", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := ComputeIO500(c.change(clonePhases(sum.Phases)))
			if s.Score != nil {
				t.Errorf("score %v, want absent", *s.Score)
			}
			if len(s.Missing) != 1 || s.Missing[0] != c.want {
				t.Errorf("missing %q, want [%q]", s.Missing, c.want)
			}
			if (s.BandwidthGiB != nil) != c.bwKept || (s.MetadataKIOPS != nil) == c.bwKept {
				t.Errorf("bandwidth mean %s, metadata mean %s: only the group with the missing figure loses its mean", ptrText(s.BandwidthGiB), ptrText(s.MetadataKIOPS))
			}
		})
	}
}

func indexOf(ps []PhaseSummary, name string) int {
	for i, p := range ps {
		if p.Name == name {
			return i
		}
	}
	panic("no phase " + name)
}

func clonePhases(ps []PhaseSummary) []PhaseSummary {
	out := make([]PhaseSummary, len(ps))
	for i, p := range ps {
		out[i] = p
		out[i].Ops = make([]OpSummary, len(p.Ops))
		for j, o := range p.Ops {
			out[i].Ops[j] = o
			if o.BwBytesPerS != nil {
				out[i].Ops[j].BwBytesPerS = Figure(*o.BwBytesPerS)
			}
			if o.OpsPerS != nil {
				out[i].Ops[j].OpsPerS = Figure(*o.OpsPerS)
			}
		}
	}
	return out
}

func ptrText(v *float64) string {
	if v == nil {
		return "absent"
	}
	return fmt.Sprint(*v)
}

// setDurations sets the duration of every op of the named phases.
func setDurations(ps []PhaseSummary, secs float64, names ...string) []PhaseSummary {
	for _, n := range names {
		i := indexOf(ps, n)
		for j := range ps[i].Ops {
			ps[i].Ops[j].DurationS = secs
		}
	}
	return ps
}

var io500Writes = []string{"ior-easy-write", "mdtest-easy-write", "ior-hard-write", "mdtest-hard-write"}

// IO500 marks a run INVALID (io500's src/main.c) when a write phase ran
// under its 300 s minimum, and still prints its score: so does storbench,
// naming each phase, and only the write phases count (reads may be short).
func TestIO500ShortWritesInvalidScoreKept(t *testing.T) {
	sum, err := ReadSummary("testdata/io500")
	if err != nil {
		t.Fatal(err)
	}
	// The fixture's writes ran 10, 0.2, 10 and 0.5 s.
	s := ComputeIO500(clonePhases(sum.Phases))
	if s.Score == nil || math.Abs(*s.Score-20) > 1e-9 {
		t.Errorf("score %s, want 20 still computed", ptrText(s.Score))
	}
	if s.Valid {
		t.Errorf("valid, but every write phase ran under 300 s")
	}
	want := []string{
		"ior-easy-write: ran 10 s, under IO500's minimum of 300 s for a write phase",
		"mdtest-easy-write: ran 0.2 s, under IO500's minimum of 300 s for a write phase",
		"ior-hard-write: ran 10 s, under IO500's minimum of 300 s for a write phase",
		"mdtest-hard-write: ran 0.5 s, under IO500's minimum of 300 s for a write phase",
	}
	if strings.Join(s.Invalid, "\n") != strings.Join(want, "\n") {
		t.Errorf("invalid:\n%s\nwant:\n%s", strings.Join(s.Invalid, "\n"), strings.Join(want, "\n"))
	}
	for _, f := range s.Figures {
		isWrite := f.Phase == "ior-easy-write" || f.Phase == "mdtest-easy-write" || f.Phase == "ior-hard-write" || f.Phase == "mdtest-hard-write"
		if f.Invalid != isWrite {
			t.Errorf("%s marked invalid %v, want %v", f.Phase, f.Invalid, isWrite)
		}
		if f.DurationS == nil {
			t.Errorf("%s: no duration", f.Phase)
		}
	}

	// Writes of 300 s (IO500's rule, >= 300) make a valid run, though the
	// read phases took a second or less.
	s = ComputeIO500(setDurations(clonePhases(sum.Phases), 300, io500Writes...))
	if !s.Valid || len(s.Invalid) != 0 || s.Score == nil {
		t.Errorf("writes of 300 s: valid %v, invalid %q, score %s; want valid", s.Valid, s.Invalid, ptrText(s.Score))
	}
	for _, f := range s.Figures {
		if f.Invalid {
			t.Errorf("%s marked invalid in a valid run", f.Phase)
		}
	}
}

// A phase with a score of 0 (failed, not run, nothing measured) or with
// errors makes the run INVALID in IO500: storbench says so and why, beside
// the score's absence.
func TestIO500InvalidPhases(t *testing.T) {
	sum, err := ReadSummary("testdata/io500")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		change    func([]PhaseSummary) []PhaseSummary
		want      string
		scoreKept bool
	}{
		{"zero", func(ps []PhaseSummary) []PhaseSummary {
			ps[indexOf(ps, "find")].Ops[0].OpsPerS = Figure(0)
			return ps
		}, "find: measured no find rate, a score of 0", false},
		{"failed", func(ps []PhaseSummary) []PhaseSummary {
			ps[indexOf(ps, "mdtest-hard-read")].Status = StatusFailed
			return ps
		}, "mdtest-hard-read: failed, a score of 0", false},
		{"not run", func(ps []PhaseSummary) []PhaseSummary {
			return ps[:indexOf(ps, "mdtest-hard-delete")]
		}, "mdtest-hard-delete: did not run, a score of 0", false},
		{"errors", func(ps []PhaseSummary) []PhaseSummary {
			ps[indexOf(ps, "ior-hard-read")].Ops[0].Errors = 3
			return ps
		}, "ior-hard-read: 3 read errors", true},
		{"write time not measured", func(ps []PhaseSummary) []PhaseSummary {
			return setDurations(ps, 0, "mdtest-easy-write")
		}, "mdtest-easy-write: its time was not measured (IO500's minimum for a write phase is 300 s)", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := ComputeIO500(c.change(setDurations(clonePhases(sum.Phases), 300, io500Writes...)))
			if s.Valid || len(s.Invalid) != 1 || s.Invalid[0] != c.want {
				t.Errorf("valid %v, invalid %q; want invalid [%q]", s.Valid, s.Invalid, c.want)
			}
			if (s.Score != nil) != c.scoreKept {
				t.Errorf("score %s, kept: want %v", ptrText(s.Score), c.scoreKept)
			}
			for _, f := range s.Figures {
				if f.Invalid != strings.HasPrefix(c.want, f.Phase+":") {
					t.Errorf("%s marked invalid: %v", f.Phase, f.Invalid)
				}
				if f.DurationS != nil && !(*f.DurationS > 0) {
					t.Errorf("%s: time %v s, want it absent when not measured", f.Phase, *f.DurationS)
				}
			}
		})
	}
}

// A summary.json written before storbench judged runs by IO500's rules
// has a score without validity: reading it judges the run from its phases,
// so analyze and report do not print an old run as invalid with no reason.
func TestIO500ReadJudgesOlderSummaries(t *testing.T) {
	b, err := os.ReadFile("testdata/io500/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["io500"] = map[string]any{"label": IO500Label, "score": 20.0, "bandwidth_gib_per_s": 4.0, "metadata_kiops": 100.0}
	dir := t.TempDir()
	b, _ = json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := sum.IO500; s == nil || s.Valid || len(s.Invalid) != 4 || s.Score == nil || math.Abs(*s.Score-20) > 1e-9 {
		t.Errorf("io500 read back: %+v; want judged invalid (4 short writes), score 20", s)
	}
}
