package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/safetext"
)

// io500Num writes an IO500 figure: three decimals, as many significant
// digits for figures below 0.01 (a tiny run's bandwidth).
func io500Num(v float64) string {
	if v < 0.01 {
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.3f", v)
}

// io500Absent is the line of a score that is absent, naming the phases
// without a figure.
func io500Absent(s *results.IO500Score) string {
	return "score absent: no figure from " + strings.Join(s.Missing, "; ")
}

// io500Mark is " [INVALID]" when invalid, as IO500 marks its phases and
// score, else nothing.
func io500Mark(invalid bool) string {
	if invalid {
		return " [INVALID]"
	}
	return ""
}

// io500InvalidHead heads the reasons a run is invalid by IO500's rules.
const io500InvalidHead = "INVALID by IO500's rules (a real IO500 run like this one would not be accepted)"

// IO500Text writes the IO500-shaped score: each phase's figure in IO500's
// order with its time, the two geometric means and the score, or the line
// saying which phases have no figure; then, for a run IO500 would mark
// INVALID, why, as IO500 marks its phases and score [INVALID].
func IO500Text(w io.Writer, s *results.IO500Score) {
	s = safetext.Copy(s)

	if s == nil {
		return
	}
	fmt.Fprintf(w, "\n%s:\n", s.Label)
	for _, f := range s.Figures {
		v, t := "-", ""
		if f.Value != nil {
			v = io500Num(*f.Value)
		}
		if f.DurationS != nil {
			t = "  time " + strconv.FormatFloat(*f.DurationS, 'g', 3, 64) + " s"
		}
		fmt.Fprintf(w, "    %-20s %12s %s%s%s\n", f.Phase, v, f.Unit, t, io500Mark(f.Invalid))
	}
	if s.Score == nil {
		fmt.Fprintf(w, "    %s\n", io500Absent(s))
	} else {
		fmt.Fprintf(w, "    bandwidth %s GiB/s, metadata %s kIOPS: score %s%s\n", io500Num(*s.BandwidthGiB), io500Num(*s.MetadataKIOPS), io500Num(*s.Score), io500Mark(!s.Valid))
	}
	if !s.Valid {
		fmt.Fprintf(w, "    %s:\n", io500InvalidHead)
		for _, r := range s.Invalid {
			fmt.Fprintf(w, "      %s\n", r)
		}
	}
}

// io500Markdown writes the IO500-shaped score as a table.
func io500Markdown(b io.Writer, s *results.IO500Score) {
	if s == nil {
		return
	}
	fmt.Fprintf(b, "\n## %s\n\n| Phase | Figure |\n|---|---:|\n", s.Label)
	for _, f := range s.Figures {
		v := "-"
		if f.Value != nil {
			v = io500Num(*f.Value) + " " + f.Unit
		}
		fmt.Fprintf(b, "| %s | %s%s |\n", f.Phase, v, io500Mark(f.Invalid))
	}
	if s.Score == nil {
		fmt.Fprintf(b, "\n%s.\n", io500Absent(s))
	} else {
		fmt.Fprintf(b, "| bandwidth, geometric mean | %s GiB/s |\n| metadata, geometric mean | %s kIOPS |\n| **score** | **%s%s** |\n",
			io500Num(*s.BandwidthGiB), io500Num(*s.MetadataKIOPS), io500Num(*s.Score), io500Mark(!s.Valid))
	}
	if !s.Valid {
		fmt.Fprintf(b, "\n%s:\n\n", io500InvalidHead)
		for _, r := range s.Invalid {
			fmt.Fprintf(b, "- %s\n", r)
		}
	}
}

// io500Headline is the score's card in report.html, and a note when it is
// absent.
func io500Headline(s *results.IO500Score) (kv, string) {
	var notes []string
	if s.Score == nil {
		notes = append(notes, s.Label+": "+io500Absent(s))
	}
	if !s.Valid {
		notes = append(notes, io500InvalidHead+": "+strings.Join(s.Invalid, "; "))
	}
	if s.Score == nil {
		return kv{s.Label, "absent" + io500Mark(!s.Valid)}, strings.Join(notes, ". ")
	}
	return kv{s.Label, fmt.Sprintf("%s%s (bandwidth %s GiB/s, metadata %s kIOPS)", io500Num(*s.Score), io500Mark(!s.Valid), io500Num(*s.BandwidthGiB), io500Num(*s.MetadataKIOPS))}, strings.Join(notes, ". ")
}
