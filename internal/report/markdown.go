package report

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
)

// Markdown renders summary.md: a header, then one table per kind of phase
// (file I/O, metadata, object), each row an operation of a phase, totals
// across hosts.
func Markdown(s *results.Summary) []byte {
	s = plainMD(s)

	var b bytes.Buffer
	fmt.Fprintf(&b, "# storbench run %s\n\n", s.Name)
	fmt.Fprintf(&b, "Run `%s`, status **%s**, started %s.\n", s.RunID, s.Status, s.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC"))
	if s.Status == results.StatusRunning {
		fmt.Fprintf(&b, "\n> Note: %s.\n", results.NeverFinishedNote)
	}
	if len(s.NotRun) > 0 {
		fmt.Fprintf(&b, "\n> Note: %s.\n", NotRunNote(s))
	}

	var fio, md, other []results.PhaseSummary
	for _, p := range s.Phases {
		switch p.TextFormat() {
		case model.FormatWekatester:
			fio = append(fio, p)
		case model.FormatMdtest:
			md = append(md, p)
		default:
			other = append(other, p)
		}
	}
	if len(fio) > 0 {
		b.WriteString("\n## File I/O (fio)\n\n")
		b.WriteString("| Job | Hosts | Op | Bandwidth | IOPS | Lat mean | p50 | p99 | p99.5 | p99.9 | Errors | Status |\n")
		b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
		for _, p := range fio {
			rows(&b, p, func(o results.OpSummary) string {
				return fmt.Sprintf("%s | %s | %s | %s | %s | %s | %s | %s | %d",
					o.Op, bwText(o.BwBytesPerS), rateText(o.OpsPerS, ""), latText(o.Lat, latMean),
					latText(o.Lat, latP50), latText(o.Lat, latP99), latText(o.Lat, latP995), latText(o.Lat, latP999), o.Errors)
			}, 9)
		}
	}
	if len(md) > 0 {
		b.WriteString("\n## Metadata (ops/s across iterations)\n\n")
		b.WriteString("| Phase | Hosts | Operation | Max | Min | Mean | Std Dev | p50 | p99 | p99.9 | Errors | Status |\n")
		b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
		for _, p := range md {
			rows(&b, p, func(o results.OpSummary) string {
				mx, mn, mean, sd := rateCells(o)
				return fmt.Sprintf("%s | %s | %s | %s | %s | %s | %s | %s | %d",
					o.Op, mx, mn, mean, sd, latText(o.Lat, latP50), latText(o.Lat, latP99), latText(o.Lat, latP999), o.Errors)
			}, 9)
		}
	}
	if len(other) > 0 {
		b.WriteString("\n## Objects and other phases\n\n")
		b.WriteString("| Phase | Hosts | Op | Throughput | Ops/s | Lat mean | p50 | p90 | p99 | p99.9 | Errors | Status |\n")
		b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
		for _, p := range other {
			rows(&b, p, func(o results.OpSummary) string {
				return fmt.Sprintf("%s | %s | %s | %s | %s | %s | %s | %s | %d",
					o.Op, bwText(o.BwBytesPerS), rateText(o.OpsPerS, ""), latText(o.Lat, latMean),
					latText(o.Lat, latP50), latText(o.Lat, latP90), latText(o.Lat, latP99), latText(o.Lat, latP999), o.Errors)
			}, 9)
		}
	}
	eventsMarkdown(&b, s.Phases)
	limitsMarkdown(&b, s.Phases)
	sweepMarkdown(&b, s)
	scaleMarkdown(&b, s)
	// No default score (see htmlData): only IO500's, when asked for.
	io500Markdown(&b, s.IO500)
	notes := append(starvedNotes(s.Phases), clientLimitNotes(s.Phases)...)
	if notes := append(notes, notRecordedNotes(s.Phases)...); len(notes) > 0 {
		b.WriteString("\n")
		for _, n := range notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	b.WriteString("\nLatency is per operation (fio: completion latency, clat). Percentiles come from histograms merged across workers and hosts; fio throughput totals add each host's figure; s3 totals count what all hosts did in the window in which every host ran. " + notMeasuredLegend + "\n")
	if slices.ContainsFunc(md, func(p results.PhaseSummary) bool { return len(p.Hosts) > 1 }) {
		b.WriteString("Metadata totals across hosts follow mdtest: each operation starts on every host at once (a barrier), and its rate is all items over the time from that start to the end of the slowest host.\n")
	}
	return b.Bytes()
}

// rows writes one table row per operation of a phase; a phase with no
// operations gets one row that shows its status.
func rows(b *bytes.Buffer, p results.PhaseSummary, cells func(results.OpSummary) string, ncells int) {
	status := strings.ReplaceAll(p.StatusText(), "|", "/")
	hosts := fmt.Sprint(len(p.Hosts))
	if len(p.Ops) == 0 {
		fmt.Fprintf(b, "| %s | %s |%s %s |\n", p.Name, hosts, strings.Repeat(" - |", ncells), status)
		return
	}
	for _, o := range p.Ops {
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", p.Name, hosts, cells(o), status)
		for _, c := range o.BySize {
			c.Op = sizeOpLabel(o.Op, c)
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", p.Name, hosts, cells(c), status)
		}
	}
}

// sizeOpLabel names an operation's figures for one object size class:
// "GET objects <=4KiB".
func sizeOpLabel(op string, c results.OpSummary) string {
	if c.Size == nil {
		return op
	}
	return op + " objects " + c.Size.Label
}

// starvedNotes says, for each phase whose client was starved, on which
// hosts and why.
func starvedNotes(phases []results.PhaseSummary) []string {
	var out []string
	for _, p := range phases {
		if t := p.StarvedText(); t != "" {
			out = append(out, p.Name+": "+strings.ReplaceAll(t, "|", "/"))
		}
	}
	return out
}

// clientLimitNotes says, for each phase in which a host reached a limit
// of its own, which and where.
func clientLimitNotes(phases []results.PhaseSummary) []string {
	var out []string
	for _, p := range phases {
		if t := ClientLimitsNote(&p); len(p.ClientLimits) > 0 && t != "" {
			out = append(out, p.Name+": "+strings.ReplaceAll(t, "|", "/"))
		}
	}
	return out
}

// notRecordedNotes names the operations that ran but recorded no latency
// ("nolat read: latency not recorded by this job").
func notRecordedNotes(phases []results.PhaseSummary) []string {
	var out []string
	for _, p := range phases {
		for _, o := range p.Ops {
			if o.Lat == nil && o.Ops > 0 {
				out = append(out, fmt.Sprintf("%s %s: %s", p.Name, o.Op, notRecorded(p.TextFormats())))
			}
		}
	}
	return out
}

func sorted(s []string) []string {
	sort.Strings(s)
	return s
}

// NotRunNote says which of the plan's phases the run never started.
func NotRunNote(s *results.Summary) string {
	return fmt.Sprintf("not run (the run %s before them): %s", map[bool]string{true: "was interrupted", false: "stopped at a failed phase"}[s.Status == results.StatusInterrupted],
		strings.Join(s.NotRun, ", "))
}
