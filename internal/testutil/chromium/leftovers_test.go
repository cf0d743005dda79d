package chromium

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A page opened and closed leaves nothing in the temporary directory:
// Chromium, killed when a check ends, left its singleton socket's
// directory (org.chromium.Chromium.*) there for good, 475 of them on the
// test machine, and make cluster-test's brick-loss report one a run.
func TestOpenLeavesNothingInTmp(t *testing.T) {
	bin := Binary(t)
	if bin == "" {
		t.Skip("Chromium is not installed (apt-get install chromium)")
	}
	page := filepath.Join(t.TempDir(), "page.html") // the test's directory, before TMPDIR moves
	tmp, err := os.MkdirTemp("", "chromium-tmp-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	t.Setenv("TMPDIR", tmp)
	if err := os.WriteFile(page, []byte("<!doctype html><title>t</title><p>page</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, stop := open(ctx, t, bin, page)
	if got := p.eval(`document.title`); got != "t" {
		t.Errorf("the page's title is %q, want t", got)
	}
	stop()
	var left []string
	ents, _ := os.ReadDir(tmp)
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if len(left) > 0 {
		t.Errorf("Chromium left %v in the temporary directory", left)
	}
}
