package report

import (
	"strings"

	"github.com/storbench/storbench/internal/analyze"
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

// plainHTML is a copy of in for the HTML report.
func plainHTML(in HTMLInput) HTMLInput { return safetext.Copy(in) }

// plainSeconds escapes the operations' names of per-second figures: those
// of a per-second latency file are read from its bytes, which Copy leaves
// as they are (an operation named only there is shown apart, escaped).
func plainSeconds(secs []analyze.OpSeconds, err error) ([]analyze.OpSeconds, error) {
	for i := range secs {
		secs[i].Op = safetext.Escape(secs[i].Op)
	}
	return secs, err
}
