package serve

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/catalog"
)

// secretText is in a file beside the results folders, mode 600, which a
// results folder's link must never serve.
const secretText = "SECRET-0f5b1c2a: the content of a file serve must not show"

// scriptReport is a report.html someone wrote to read serve's run list
// with serve's cookie and send it out: it sets the title, and asks for
// /leak, when it can.
const scriptReport = `<!doctype html><html><head><title>report</title><style>p{color:#222}</style></head><body><p id="p">a report</p>
<script>fetch('/', {credentials: 'include'}).then(r => r.text()).then(t => { document.title = 'read ' + t.length; return fetch('/leak?n=' + t.length) })</script></body></html>`

// hostileRuns is a catalog of three runs whose folders someone else
// wrote: one whose report.html holds a script, one whose report.html is
// a link to a secret file, one whose report.html is a FIFO (which a read
// would wait on for ever), one whose report.html is a hard link to the
// secret file (a regular file, but another's).
type hostileRuns struct {
	cat                              *catalog.Catalog
	script, linked, fifo, hardlinked string
}

func newHostileRuns(t *testing.T) *hostileRuns {
	root := t.TempDir()
	secret := filepath.Join(root, "secret.txt")
	if err := os.WriteFile(secret, []byte(secretText), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "catalog.db")
	w, err := catalog.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	var ids []string
	for i, place := range []func(string) error{
		func(p string) error { return os.WriteFile(p, []byte(scriptReport), 0o644) },
		func(p string) error { return os.Symlink(secret, p) },
		func(p string) error { return syscall.Mkfifo(p, 0o644) },
		func(p string) error { return os.Link(secret, p) },
	} {
		g := genRun{i: i, start: t0.Add(time.Duration(i) * time.Hour), scale: 1, labels: map[string]string{"kind": "hostile"}}
		dir := writeRun(t, root, g)
		if err := place(filepath.Join(dir, "report.html")); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Add(t.Context(), dir); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, g.id())
	}
	w.Close()
	c, err := catalog.OpenReadOnly(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &hostileRuns{cat: c, script: ids[0], linked: ids[1], fifo: ids[2], hardlinked: ids[3]}
}

// TestResultsFilesSandboxedAndNotLinked (issue 33): a results file is
// served with a sandbox that runs no script and gives the page no access
// to serve's origin, and a type that is never sniffed; a report.html that
// is a link (to a mode-600 file beside the folders), a hard link to that
// file, or a FIFO is not served and not linked from the run list. Before, report.html went out
// with no Content-Security-Policy, and a link's target was served.
func TestResultsFilesSandboxedAndNotLinked(t *testing.T) {
	hr := newHostileRuns(t)
	h := New(hr.cat, "", nil).Handler()
	w := get(t, h, "/run/"+hr.script+"/report.html")
	csp := w.Header().Get("Content-Security-Policy")
	if w.Code != 200 || !strings.Contains(w.Body.String(), "a report") {
		t.Fatalf("the report: %d\n%s", w.Code, w.Body)
	}
	if !strings.HasPrefix(csp, "sandbox;") || strings.Contains(csp, "allow-") || strings.Contains(csp, "script-src") {
		t.Errorf("a results file's Content-Security-Policy is %q: want a sandbox with nothing allowed", csp)
	}
	if w.Header().Get("X-Content-Type-Options") != "nosniff" || w.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("headers %v: want text/html, nosniff", w.Header())
	}
	for _, id := range []string{hr.linked, hr.fifo, hr.hardlinked} {
		done := make(chan *httptest.ResponseRecorder, 1)
		go func() { done <- get(t, h, "/run/"+id+"/report.html") }()
		select {
		case w := <-done:
			if w.Code != 404 || strings.Contains(w.Body.String(), "SECRET") {
				t.Errorf("run %s: %d, served:\n%.200s", id, w.Code, w.Body)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("run %s: serve waited on its report.html for 20s", id)
		}
	}
	list := get(t, h, "/").Body.String()
	if n := strings.Count(list, `/report.html">report</a>`); n != 1 || !strings.Contains(list, "/run/"+hr.script+"/report.html") {
		t.Errorf("the run list links %d reports, want the one regular file's", n)
	}
}

// pathLog notes the path of every request a handler gets.
type pathLog struct {
	mu    sync.Mutex
	paths []string
}

func (l *pathLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.paths = append(l.paths, r.URL.Path)
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *pathLog) since(i int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.paths[i:]...)
}

// TestReportCannotReadServeInChromium (issue 33): in headless Chromium, a
// cataloged report.html holding a script runs none of it (it asks serve
// for nothing more, and its title stays), and even a script run in the
// page by hand cannot read serve's run list: the page's origin is opaque.
// A report.html that is a link to a secret file shows none of it. Before,
// the script read the run list (4,379 bytes) with serve's token cookie.
func TestReportCannotReadServeInChromium(t *testing.T) {
	b := startBrowser(t)
	hr := newHostileRuns(t)
	const tok = "chromium-hostile-token-0123456789"
	var seen pathLog
	srv := httptest.NewServer(seen.wrap(New(hr.cat, tok, nil).Handler()))
	defer srv.Close()
	b.open(t, srv.URL+"/?token="+tok) // the cookie a report's script would use

	at := len(seen.since(0))
	b.open(t, srv.URL+"/run/"+hr.script+"/report.html")
	var text, title, origin string
	b.eval(t, "document.getElementById('p').textContent", &text)
	if text != "a report" {
		t.Fatalf("the report did not load: %q", text)
	}
	// Had the script run, its requests would come within this wait.
	time.Sleep(2 * time.Second)
	b.eval(t, "document.title", &title)
	b.eval(t, "self.origin", &origin)
	// The browser asks for /favicon.ico by itself.
	if paths := seen.since(at); slices.Contains(paths, "/") || slices.Contains(paths, "/leak") || title != "report" {
		t.Errorf("the report's script ran: title %q, requests %v", title, paths)
	}
	if origin != "null" {
		t.Errorf("the report's origin is %s, want an opaque one (null)", origin)
	}
	var got string
	b.evalAwait(t, `fetch('/', {credentials: 'include'}).then(r => r.text()).then(t => 'read ' + t.length, e => 'refused: ' + e)`, &got)
	if !strings.HasPrefix(got, "refused") {
		t.Errorf("a script in the report read serve's run list: %s", got)
	}

	b.open(t, srv.URL+"/run/"+hr.linked+"/report.html")
	var body string
	b.eval(t, "document.documentElement.outerHTML", &body)
	if strings.Contains(body, "SECRET") || !strings.Contains(body, "no report.html") {
		t.Errorf("the linked report.html showed:\n%s", body)
	}
	if bytes.Contains([]byte(body), []byte(secretText)) {
		t.Error("the secret file's content was served")
	}
}
