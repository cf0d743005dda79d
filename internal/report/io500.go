package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/storbench/storbench/internal/results"
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

// IO500Text writes the IO500-shaped score: each phase's figure in IO500's
// order, the two geometric means and the score, or the line saying which
// phases have no figure.
func IO500Text(w io.Writer, s *results.IO500Score) {
	if s == nil {
		return
	}
	fmt.Fprintf(w, "\n%s:\n", s.Label)
	for _, f := range s.Figures {
		v := "-"
		if f.Value != nil {
			v = io500Num(*f.Value)
		}
		fmt.Fprintf(w, "    %-20s %12s %s\n", f.Phase, v, f.Unit)
	}
	if s.Score == nil {
		fmt.Fprintf(w, "    %s\n", io500Absent(s))
		return
	}
	fmt.Fprintf(w, "    bandwidth %s GiB/s, metadata %s kIOPS: score %s\n", io500Num(*s.BandwidthGiB), io500Num(*s.MetadataKIOPS), io500Num(*s.Score))
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
		fmt.Fprintf(b, "| %s | %s |\n", f.Phase, v)
	}
	if s.Score == nil {
		fmt.Fprintf(b, "\n%s.\n", io500Absent(s))
		return
	}
	fmt.Fprintf(b, "| bandwidth, geometric mean | %s GiB/s |\n| metadata, geometric mean | %s kIOPS |\n| **score** | **%s** |\n",
		io500Num(*s.BandwidthGiB), io500Num(*s.MetadataKIOPS), io500Num(*s.Score))
}

// io500Headline is the score's card in report.html, and a note when it is
// absent.
func io500Headline(s *results.IO500Score) (kv, string) {
	if s.Score == nil {
		return kv{s.Label, "absent"}, s.Label + ": " + io500Absent(s)
	}
	return kv{s.Label, fmt.Sprintf("%s (bandwidth %s GiB/s, metadata %s kIOPS)", io500Num(*s.Score), io500Num(*s.BandwidthGiB), io500Num(*s.MetadataKIOPS))}, ""
}
