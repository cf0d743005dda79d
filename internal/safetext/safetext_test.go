package safetext_test

import (
	"bytes"
	"encoding/json"
	"html/template"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/storbench/storbench/internal/safetext"
	"github.com/storbench/storbench/internal/testutil"
)

func TestEveryHostileCharacterIsBadAndEscaped(t *testing.T) {
	for _, h := range testutil.Hostile() {
		s := "a" + h + "b"
		if at, _ := safetext.Find(s); at != 1 {
			t.Errorf("%q: found at %d, want 1", s, at)
		}
		if err := safetext.Check("phase name", s); err == nil || !strings.Contains(err.Error(), "phase name") {
			t.Errorf("%q: Check said %v", s, err)
		}
		e := safetext.Escape(s)
		if at, _ := safetext.Find(e); at >= 0 || !strings.HasPrefix(e, "a\\") || !strings.HasSuffix(e, "b") {
			t.Errorf("%q escaped as %q", s, e)
		}
		if utf8.ValidString(s) {
			// The escape is one JSON reads back as the character.
			var back string
			if err := json.Unmarshal([]byte(`"`+e+`"`), &back); err != nil || back != s {
				t.Errorf("%q escaped as %q, which JSON reads as %q (%v)", s, e, back, err)
			}
		}
	}
	for _, ok := range []string{"seq-read", "tuning=default", "größe 4k", "日本", "a\\x1b", "\ufffd", "emoji 👍"} {
		if at, _ := safetext.Find(ok); at >= 0 || safetext.Escape(ok) != ok || safetext.Check("name", ok) != nil {
			t.Errorf("%q is plain text, but was found bad at %d", ok, at)
		}
	}
}

func TestCopyEscapesEveryString(t *testing.T) {
	type inner struct {
		Name   string
		Kind   template.HTML
		Labels map[string]string
	}
	type named string
	type outer struct {
		Title  named
		Inners []*inner
		Any    map[string]any
		Counts []uint64
		hidden string
	}
	in := outer{Title: "t\x1b", Inners: []*inner{{Name: "n\r", Kind: "<b>\n</b>", Labels: map[string]string{"k\t": "v\u202e"}}},
		Any: map[string]any{"x": "y\a", "n": 3}, Counts: []uint64{1, 2}, hidden: "h\x1b"}
	out := safetext.Copy(in)
	if out.Title != `t\u001b` || out.Inners[0].Name != `n\r` || out.Inners[0].Labels[`k\t`] != `v\u202e` || out.Any["x"] != `y\u0007` || out.Any["n"] != 3 {
		t.Errorf("copy %+v %+v", out, *out.Inners[0])
	}
	if out.Inners[0].Kind != "<b>\n</b>" {
		t.Errorf("template.HTML changed: %q", out.Inners[0].Kind)
	}
	if in.Title != "t\x1b" || in.Inners[0].Name != "n\r" || in.Any["x"] != "y\a" {
		t.Error("the original changed")
	}
	if &out.Counts[0] != &in.Counts[0] || out.hidden != in.hidden {
		t.Error("a slice without text was copied, or an unexported field lost")
	}
}

func TestWriterKeepsLinesEscapesTheRest(t *testing.T) {
	var b bytes.Buffer
	w := safetext.NewWriter(&b)
	if safetext.NewWriter(w) != w {
		t.Error("a writer wrapped twice")
	}
	w.Write([]byte("line\tone\n"))
	w.Write([]byte("evil\x1b]0;x\x07 \r\u202e \xe2"))
	w.Write([]byte("\x80\xae and \xe2\x80")) // U+202E, then U+2028 cut in two
	w.Write([]byte("\xa8.\n"))
	w.WriteControl("\r\x1b[K")
	w.Write([]byte("end\xe2"))
	w.Flush()
	want := "line\tone\nevil\\u001b]0;x\\u0007 \\r\\u202e \\u202e and \\u2028.\n\r\x1b[Kend\\xe2"
	if b.String() != want {
		t.Errorf("wrote %q\nwant  %q", b.String(), want)
	}
}
