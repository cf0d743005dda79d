package report

import (
	"strings"

	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/safetext"
)

// A results folder may have been written by someone else, and a merged
// or cataloged one by another storbench: its names (the run's, its
// labels', phases', operations', hosts', events') and its words (errors,
// notes) are not trusted to be plain text. Every renderer here works on a
// copy in which each string is escaped (safetext.Copy): text and HTML
// show a control character as a visible escape, and a name never breaks
// a line; Markdown escapes more (mdText).

// mdText is s as Markdown text that shows as it is and does nothing
// else: no HTML tag, comment or entity (a <script> stays text; "<=4KiB"
// is left as it is), no cell of a table ended by |, no link, no code
// span, no escape of its own; its control characters escaped.
func mdText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		next := byte(0)
		if i+1 < len(s) {
			next = s[i+1]
		}
		switch {
		case c == '\\' || c == '|' || c == '[' || c == ']' || c == '`':
			b.WriteByte('\\')
		case c == '<' && (isLetter(next) || next == '/' || next == '!' || next == '?'):
			b.WriteByte('\\')
		case c == '&' && (isLetter(next) || next == '#'):
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return safetext.Escape(b.String())
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// plainMD is a copy of v for a Markdown renderer.
func plainMD[T any](v T) T { return safetext.CopyWith(v, mdText) }

// plainHTML is a copy of in for the HTML report. The per-second latency
// files name their operations inside their bytes, which Copy leaves: their
// names are escaped too, so they still match the operations' own.
func plainHTML(in HTMLInput) HTMLInput {
	out := safetext.Copy(in)
	for i := range out.Phases {
		for j, h := range out.Phases[i].Hosts {
			if lat := plainLatency(h.LatencySeconds); lat != nil {
				c := *h
				c.LatencySeconds = lat
				out.Phases[i].Hosts[j] = &c
			}
		}
	}
	return out
}

// plainLatency re-encodes a per-second latency file whose operation names
// hold a control character, escaped; nil when none does (or it cannot be
// read: its reader says so).
func plainLatency(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	secs, err := record.DecodeLatSeconds(b)
	if err != nil {
		return nil
	}
	changed := false
	for i := range secs {
		if e := safetext.Escape(secs[i].Op); e != secs[i].Op {
			secs[i].Op, changed = e, true
		}
	}
	if !changed {
		return nil
	}
	out, err := record.EncodeLatSeconds(secs)
	if err != nil {
		return nil
	}
	return out
}
