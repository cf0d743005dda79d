// Package secret holds values that must never be written down: S3 keys and
// the like. A String prints as **redacted** however it is printed (fmt
// verbs, JSON, text, log/slog), so a secret that ends up in a log line, an
// error or a results file by mistake shows only that it was there. Its
// value comes out only through Reveal, called where it is used (signing a
// request, sending it to an agent over an authenticated channel).
package secret

import (
	"fmt"
	"log/slog"
)

// Redacted is what a non-empty String prints as.
const Redacted = "**redacted**"

// String is a secret string. The zero value is empty.
type String struct {
	s string
}

// New makes a String of s.
func New(s string) String { return String{s: s} }

// Reveal returns the secret itself.
func (s String) Reveal() string { return s.s }

// Empty reports that no secret was given.
func (s String) Empty() bool { return s.s == "" }

// String returns Redacted, or "" for an empty secret, so a missing value
// is still visible as missing.
func (s String) String() string {
	if s.s == "" {
		return ""
	}
	return Redacted
}

// GoString is String, for %#v.
func (s String) GoString() string { return `secret.String("` + s.String() + `")` }

// Format prints String for every verb (%x and %q included).
func (s String) Format(f fmt.State, verb rune) {
	switch verb {
	case 'v':
		if f.Flag('#') {
			_, _ = fmt.Fprint(f, s.GoString())
			return
		}
	case 'q':
		_, _ = fmt.Fprintf(f, "%q", s.String())
		return
	}
	_, _ = fmt.Fprint(f, s.String())
}

// MarshalText is String, so JSON, YAML and map keys hold no secret.
func (s String) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// LogValue is String, for log/slog.
func (s String) LogValue() slog.Value { return slog.StringValue(s.String()) }

var (
	_ fmt.Stringer   = String{}
	_ fmt.Formatter  = String{}
	_ slog.LogValuer = String{}
)
