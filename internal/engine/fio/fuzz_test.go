package fio

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzJobFile: a parsed job file renders to text that parses to the same
// sections, and applying overrides never panics.
func FuzzJobFile(f *testing.F) {
	f.Add(seedJob)
	f.Add("[a]\nrw=read\n[b]\nstonewall\n")
	f.Add("; c\n[global]\nx = y = z\n")
	f.Fuzz(func(t *testing.T, text string) {
		jf, err := ParseJobFile("f", text)
		if err != nil {
			return
		}
		again, err := ParseJobFile("f", jf.Render())
		if err != nil {
			t.Fatalf("rendered job does not parse: %v\n%s", err, jf.Render())
		}
		if len(again.Sections) != len(jf.Sections) {
			t.Fatalf("sections %d -> %d", len(jf.Sections), len(again.Sections))
		}
		jf.Apply(Overrides{RuntimeS: 1, SizeBytes: 4096, Numjobs: 2, Options: map[string]string{"bs": "4k"}})
		_ = jf.CheckSafe("f", false)
	})
}

// FuzzSplitObjects: the splitter never panics and hands out only text that
// starts and ends with fio's top-level braces.
func FuzzSplitObjects(f *testing.F) {
	f.Add("{\n\"a\": 1\n}\nnoise\n{\n}\n")
	f.Add("fio: warning\n{\n\"jobs\" : [ ]\n")
	f.Fuzz(func(t *testing.T, s string) {
		_ = SplitObjects(strings.NewReader(s), func(b []byte) {
			if !bytes.HasPrefix(b, []byte("{\n")) || !bytes.HasSuffix(b, []byte("}\n")) {
				t.Fatalf("object %q", b)
			}
			_, _ = ParseOutput(b)
		}, nil)
	})
}
