package hosts

import "testing"

// FuzzExpand: any input either fails or yields at most the limit of
// non-empty names, without panicking.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{"client{1...8}:7761", "a,b,,c", "n{01...10}", "x{9...1}", "{1...3}{1...3}", "h{1..2}", "{}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := Expand([]string{s}, 64)
		if err != nil {
			return
		}
		if len(out) > 64 {
			t.Fatalf("%q expanded to %d names, over the limit", s, len(out))
		}
		for _, n := range out {
			if n == "" {
				t.Fatalf("%q expanded to an empty name", s)
			}
		}
	})
}
