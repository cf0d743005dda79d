// Package safetext keeps text that storbench shows from acting on whoever
// reads it. Names and labels come from suites, flags, agents, results
// folders someone else wrote and catalogs others fill; printed raw, a
// name holding an escape sequence sets a terminal's title, clears its
// screen or draws fake lines, and one holding a text-direction control
// shows its words in another order. The characters that can (Bad): the
// C0 controls (ESC, BEL, CR, LF, TAB, NUL, ...), DEL, the C1 controls
// (U+0080 to U+009F: a terminal may read U+009B as ESC [), the line and
// paragraph separators U+2028 and U+2029, Unicode's bidirectional
// controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069),
// and bytes that are not UTF-8 (a raw 0x9B is CSI to an 8-bit terminal).
//
// Names and labels holding one are refused where they are given (Check);
// text is escaped where it is shown (Escape, Copy, Writer), in a form
// that is both readable and a valid escape in JSON strings: \n, \r, \t,
// \u001b, and \x9b for a byte that is not UTF-8.
package safetext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bad reports whether r is a character that can act on a reader's
// terminal or reorder what it shows (see the package comment).
func Bad(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r == 0x2028, r == 0x2029:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// Find returns the byte offset of the first bad character of s, and what
// it is (utf8.RuneError for a byte that is not UTF-8), or -1.
func Find(s string) (at int, r rune) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || Bad(r) {
			return i, r
		}
		i += n
	}
	return -1, 0
}

// Check refuses a name or label holding a bad character, naming what it
// is (what: "phase name", "label tuning") and the character, escaped.
func Check(what, s string) error {
	at, _ := Find(s)
	if at < 0 {
		return nil
	}
	return fmt.Errorf("%s %s holds the control character %s: names and labels are plain text (no escape sequences, line breaks, tabs or text-direction controls)",
		what, strconv.Quote(s), escapeAt(s, at))
}

// escapeAt is the escape of the character at byte offset at of s.
func escapeAt(s string, at int) string {
	r, n := utf8.DecodeRuneInString(s[at:])
	var b strings.Builder
	writeEscape(&b, r, n, s[at])
	return b.String()
}

// Escape returns s with every bad character written as a visible escape.
func Escape(s string) string {
	if at, _ := Find(s); at < 0 {
		return s
	}
	return escape(s, false)
}

// escape writes s escaped; keepLines keeps LF and TAB as they are (a
// writer's own layout).
func escape(s string, keepLines bool) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		bad := r == utf8.RuneError && n == 1 || Bad(r)
		if !bad || keepLines && (r == '\n' || r == '\t') {
			b.WriteString(s[i : i+n])
		} else {
			writeEscape(&b, r, n, s[i])
		}
		i += n
	}
	return b.String()
}

func writeEscape(b *strings.Builder, r rune, n int, first byte) {
	switch {
	case r == utf8.RuneError && n == 1:
		fmt.Fprintf(b, `\x%02x`, first)
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\r':
		b.WriteString(`\r`)
	case r == '\t':
		b.WriteString(`\t`)
	default:
		fmt.Fprintf(b, `\u%04x`, r)
	}
}
