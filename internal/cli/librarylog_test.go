package cli

import "testing"

// What a library logs (net/http after a server's stray bytes) reaches the
// terminal only with -v, marked as Go's.
func TestLibraryLogOnlyWithVerbose(t *testing.T) {
	t.Parallel()
	st, out := testState()
	w := LibraryLog(st)
	w.Write([]byte("Unsolicited response received on idle HTTP channel\n"))
	if out.String() != "" {
		t.Errorf("without -v: %q", out)
	}
	st.Verbosity = 1
	w.Write([]byte("Unsolicited response received on idle HTTP channel\n"))
	if out.String() != "go: Unsolicited response received on idle HTTP channel\n" {
		t.Errorf("with -v: %q", out)
	}
}
