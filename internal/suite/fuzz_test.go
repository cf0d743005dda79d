package suite

import "testing"

// FuzzParse: suite parsing fails with an error or returns phases that each
// name an engine; it never panics.
func FuzzParse(f *testing.F) {
	f.Add("name: x\ndir: /tmp\nphases:\n  - fio: {workload: default}\n    matrix: {bs: [4k, 1m]}\n    iterations: 2\n")
	f.Add("phases:\n  - md: {items: 10}\n  - s3: {op: get}\n    optional: true\n")
	f.Add("phases: [1, 2]\n")
	f.Add("- a\n- b\n")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse("f.yaml", []byte(text))
		if err != nil {
			return
		}
		for _, p := range s.Phases {
			if p.Engine == "" {
				t.Fatalf("phase without engine from %q", text)
			}
			for _, d := range p.Matrix {
				if len(d.Values) == 0 {
					t.Fatalf("empty matrix dimension from %q", text)
				}
			}
		}
	})
}
