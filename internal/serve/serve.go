// Package serve serves a catalog read-only over HTTP (storbench serve):
// the runs with filters, two runs or groups of runs compared, a figure's
// trend as a chart, and each run's report.html from its results folder.
// Pages are html/template with inline SVG charts: no script.
package serve

import (
	"crypto/subtle"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/storbench/storbench/internal/catalog"
	"github.com/storbench/storbench/internal/report"
	"github.com/storbench/storbench/internal/specs"
)

// cookieName holds the token in a browser once a link with ?token= was
// opened, so that pages need not carry it in their links.
const cookieName = "storbench_token"

// Server serves one catalog.
type Server struct {
	cat *catalog.Catalog
	// token, when not empty, is required of every request: as
	// "Authorization: Bearer TOKEN", the cookie, or ?token= (which sets
	// the cookie and redirects to the same page without it).
	token string
	log   *log.Logger
	// now is the clock of relative dates in queries (since=30d).
	now func() time.Time
	// spec, when set, adds each run's figures as shares of its claims
	// to the run list.
	spec *specs.Spec
}

// SetSpec shows the runs' figures as shares of sp's claims (serve --spec).
func (s *Server) SetSpec(sp *specs.Spec) { s.spec = sp }

// New returns a server of the catalog c, opened read-only by the caller.
// An empty token serves anyone who can connect (loopback). Requests are
// logged to logw (nil: not logged) by path only: never a query string,
// which could hold the token.
func New(c *catalog.Catalog, token string, logw io.Writer) *Server {
	s := &Server{cat: c, token: token, now: time.Now}
	if logw != nil {
		s.log = log.New(logw, "serve: ", log.LstdFlags|log.LUTC)
	}
	return s
}

// Handler returns the server's routes, behind the token when there is one.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.runsPage)
	mux.HandleFunc("GET /compare", s.comparePage)
	mux.HandleFunc("GET /trend", s.trendPage)
	mux.HandleFunc("GET /run/{id}/report.html", s.reportPage)
	return s.logged(s.guard(mux))
}

func (s *Server) logged(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &statusWriter{ResponseWriter: w, code: 200}
		h.ServeHTTP(rw, r)
		if s.log != nil {
			s.log.Printf("%s %s %d", r.Method, r.URL.Path, rw.code)
		}
	})
}

type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

// guard lets a request through when it carries the token (or there is
// none to carry). A token in the URL is moved to a cookie at once, so it
// does not stay in the browser's address bar or history.
func (s *Server) guard(h http.Handler) http.Handler {
	if s.token == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if t := r.URL.Query().Get("token"); t != "" && s.equal(t) {
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: t, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q := r.URL.Query()
			q.Del("token")
			u := *r.URL
			u.RawQuery = q.Encode()
			http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
			return
		}
		if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && s.equal(bearer) {
			h.ServeHTTP(w, r)
			return
		}
		if c, err := r.Cookie(cookieName); err == nil && s.equal(c.Value) {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="storbench"`)
		http.Error(w, "a token is required: open the page once with ?token=TOKEN, or send Authorization: Bearer TOKEN", http.StatusUnauthorized)
	})
}

func (s *Server) equal(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

// runIDPattern is what a run id in a URL may be: a run id never holds a
// '*' (which the catalog would read as a pattern) or a path separator.
var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// reportPage serves the report.html of a run the catalog knows, from the
// folder the catalog recorded: nothing of the request becomes a path.
func (s *Server) reportPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !runIDPattern.MatchString(id) {
		http.NotFound(w, r)
		return
	}
	runs, err := s.cat.Runs(r.Context(), catalog.Query{ID: id})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if len(runs) != 1 || runs[0].RunID != id {
		http.Error(w, "no run "+id+" in the catalog", http.StatusNotFound)
		return
	}
	// The report links nothing of its own folder: serve the one file.
	f, err := openResult(runs[0].Path, report.HTMLFile)
	if err != nil {
		http.Error(w, "run "+id+" has no report.html", http.StatusNotFound)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	resultHeaders(w.Header())
	http.ServeContent(w, r, report.HTMLFile, fi.ModTime(), f)
}

// resultsCSP is the Content-Security-Policy of a results file: a sandbox
// (no script runs, forms and pop-ups are off, and the page's origin is
// opaque, so nothing in it can read serve's other pages, which a report
// written by someone else could otherwise do with serve's cookie), and
// nothing loaded but its own inline styles and data: images (a report is
// self-contained).
const resultsCSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:"

// resultHeaders are the headers of every file served from a results
// folder: its type said, never sniffed, and sandboxed.
func resultHeaders(h http.Header) {
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", resultsCSP)
}

// openResult opens the file name of the results folder dir when it is a
// regular file of the folder itself: a symbolic link is not followed
// (O_NOFOLLOW on the file; the folder's own path is the catalog's), a
// FIFO or device is not read (O_NONBLOCK, then the type checked on what
// was opened, so the file cannot be changed between the check and the
// read), and a file with another name elsewhere (a hard link, which can
// make any file of the same file system look like a report) is not
// served: storbench writes each results file once, under one name.
func openResult(dir, name string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case !fi.Mode().IsRegular():
		err = fmt.Errorf("%s is not a regular file", name)
	case links(fi) > 1:
		err = fmt.Errorf("%s has %d names (a hard link): not served", name, links(fi))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// links is how many names a file has, 1 where the system does not say.
func links(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
