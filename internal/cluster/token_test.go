package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A token file that group or others can read is refused in one line
// saying how to fix it, as ssh refuses such a key (issue 21: it was used
// without a word); 0600 and 0400 are read.
func TestTokenFileOpenToOthersRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		mode os.FileMode
		ok   bool
	}{{0o600, true}, {0o400, true}, {0o644, false}, {0o640, false}, {0o604, false}, {0o660, false}, {0o666, false}} {
		p := filepath.Join(dir, "token-"+c.mode.String())
		if err := os.WriteFile(p, []byte("tok-0123456789\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, c.mode); err != nil {
			t.Fatal(err)
		}
		tok, err := ReadToken(p)
		switch {
		case c.ok && (err != nil || tok != "tok-0123456789"):
			t.Errorf("mode %04o: %q, %v; want the token", c.mode, tok, err)
		case !c.ok && err == nil:
			t.Errorf("mode %04o: the token was read from a file open to others", c.mode)
		case !c.ok && (!strings.Contains(err.Error(), "--token-file "+p) || !strings.Contains(err.Error(), "chmod 600") || strings.Contains(err.Error(), "tok-0123456789")):
			t.Errorf("mode %04o: %q does not name the file and chmod 600 (or shows the token)", c.mode, err)
		}
	}
}
