package report

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/safetext"
)

// IO500 writes these two files into the results folder of a run whose
// suite asked for IO500's score, in the formats IO500's driver writes
// them (io500's src/main.c), so the scripts that read IO500's results
// read storbench's: result_summary.txt, the lines the driver prints, and
// result.txt, its INI file with a section per phase and the score with
// IO500's hash of it.
const (
	IO500SummaryFile = "result_summary.txt"
	IO500ResultFile  = "result.txt"
)

// IO500Version is what storbench's IO500 files give as the driver's
// version: not IO500's, so no one takes them for the driver's own.
const IO500Version = "storbench"

// IO500ResultSummary renders result_summary.txt: a "[RESULT]" line per
// phase (name, figure, unit, the phase's time, "[INVALID]" as IO500 marks
// it) and the "[SCORE ]" line. nil when the run has no IO500 score.
func IO500ResultSummary(s *results.Summary) []byte {
	s = safetext.Copy(s)

	sc := s.IO500
	if sc == nil {
		return nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "IO500 version %s (standard)\n", IO500Version)
	for _, f := range sc.Figures {
		fmt.Fprintf(&b, "[RESULT] %20s %15s %s : time %.3f seconds%s\n", f.Phase, fmt.Sprintf("%f", value(f.Value)), unitOf(f.Unit), value(f.DurationS), invalidMark(f.Invalid))
	}
	fmt.Fprintf(&b, "[SCORE ] Bandwidth %f GiB/s : IOPS %f kiops : TOTAL %f%s\n", value(sc.BandwidthGiB), value(sc.MetadataKIOPS), value(sc.Score), invalidMark(!sc.Valid))
	return b.Bytes()
}

// IO500Result renders result.txt: the [run] section, a section per phase
// with its start, score, time and end, "; ERROR INVALID" comments where
// IO500 writes them, and [SCORE] with MD, BW, SCORE and IO500's hash of
// them. nil when the run has no IO500 score.
func IO500Result(s *results.Summary) []byte { return io500Result(safetext.Copy(s), IO500Version) }

// io500Result is IO500Result with the version the file names, which
// IO500's hash covers.
func io500Result(s *results.Summary, version string) []byte {
	sc := s.IO500
	if sc == nil {
		return nil
	}
	var b bytes.Buffer
	pair := func(k, format string, args ...any) {
		fmt.Fprintf(&b, "%-15s = "+format+"\n", append([]any{k}, args...)...)
	}
	fmt.Fprintf(&b, "[run]\n")
	pair("procs", "%d", io500Procs(s))
	pair("version", "%s", version)
	pair("mode", "%s", "standard")
	fmt.Fprintf(&b, "; START %s\n", io500Time(s.StartedAt))
	hash := io500Hash("version", version)
	reasons := invalidReasons(sc)
	for _, f := range sc.Figures {
		fmt.Fprintf(&b, "\n[%s]\n", f.Phase)
		start, end := phaseSpan(s, f.Phase)
		if !start.IsZero() {
			pair("t_start", "%s", io500Time(start))
		}
		for _, r := range reasons[f.Phase] {
			fmt.Fprintf(&b, "; ERROR INVALID %s\n", r)
		}
		score := fmt.Sprintf("%f", value(f.Value))
		pair("score", "%s", score)
		hash ^= io500Hash(f.Phase, score)
		if f.DurationS != nil {
			pair("t_delta", "%.4f", *f.DurationS)
		}
		if !end.IsZero() {
			pair("t_end", "%s", io500Time(end))
		}
	}
	fmt.Fprintf(&b, "\n[SCORE]\n")
	for _, g := range []struct {
		key string
		v   *float64
	}{{"MD", sc.MetadataKIOPS}, {"BW", sc.BandwidthGiB}} {
		v := fmt.Sprintf("%f", value(g.v))
		pair(g.key, "%s", v)
		hash ^= io500Hash(g.key, v)
	}
	score := fmt.Sprintf("%f", value(sc.Score))
	pair("SCORE", "%s%s", score, invalidMark(!sc.Valid))
	hash ^= io500Hash("SCORE", score)
	if !sc.Valid {
		hash ^= io500Hash("valid", "NO")
	}
	pair("hash", "%X", hash)
	if !s.EndedAt.IsZero() {
		fmt.Fprintf(&b, "; END %s\n", io500Time(s.EndedAt))
	}
	return b.Bytes()
}

// io500Hash is IO500's hash of one key and value: each character of both
// added to the running value rotated left by 2 bits; the file's hash is
// the XOR of its pairs' (io500's src/util.c): the version, each phase's
// score, MD, BW and SCORE as written, and ("valid", "NO") for an invalid
// run, which IO500's verifier recomputes from the file.
func io500Hash(key, val string) uint32 {
	var h uint32
	for _, s := range []string{key, val} {
		for i := 0; i < len(s); i++ {
			h = (h<<2 | h>>30) + uint32(int32(int8(s[i])))
		}
	}
	return h
}

// invalidReasons groups the score's reasons by the phase each names
// ("ior-easy-write: ran 12 s, ..." under ior-easy-write).
func invalidReasons(sc *results.IO500Score) map[string][]string {
	out := map[string][]string{}
	for _, r := range sc.Invalid {
		phase, why, ok := strings.Cut(r, ": ")
		if ok {
			out[phase] = append(out[phase], why)
		}
	}
	return out
}

// phaseSpan is when the phase's hosts began their first operation and
// ended their last, zero when the summary does not say.
func phaseSpan(s *results.Summary, name string) (time.Time, time.Time) {
	for _, ps := range s.Phases {
		if ps.Name != name {
			continue
		}
		var first, last int64
		for _, h := range ps.PerHost {
			if h.StartNs != 0 && (first == 0 || h.StartNs < first) {
				first = h.StartNs
			}
			last = max(last, h.EndNs)
		}
		if first == 0 || last == 0 {
			return time.Time{}, time.Time{}
		}
		return time.Unix(0, first), time.Unix(0, last)
	}
	return time.Time{}, time.Time{}
}

// io500Procs is how many hosts ran the first IO500 phase: IO500's procs
// are MPI ranks, an IO500-shaped suite's ranks are its hosts.
func io500Procs(s *results.Summary) int {
	for _, f := range s.IO500.Figures {
		for _, ps := range s.Phases {
			if ps.Name == f.Phase {
				return len(ps.Hosts)
			}
		}
	}
	return 0
}

func io500Time(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") }

func value(v *float64) float64 {
	if v == nil {
		return 0
	}
	return *v
}

func invalidMark(invalid bool) string {
	if invalid {
		return " [INVALID]"
	}
	return ""
}

// unitOf is IO500's name of a figure's unit.
func unitOf(unit string) string {
	if unit == model.UnitGiBPerS {
		return "GiB/s"
	}
	return "kIOPS"
}
