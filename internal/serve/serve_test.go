package serve

import (
	"bytes"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/specs"
)

func get(t *testing.T, h http.Handler, target string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest("GET", target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// rowsOf lists the data-run attributes of the rows of class cls.
func rowsOf(body, cls string) []string {
	re := regexp.MustCompile(`<tr class="` + cls + `" data-run="([^"]+)"`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestRunList: the list shows every run newest first, a filter keeps the
// runs it matches (the query terms of storbench runs), and a bad term is
// said on the page.
func TestRunList(t *testing.T) {
	fx := newFixture(t)
	h := New(fx.cat, "", nil).Handler()
	w := get(t, h, "/")
	if w.Code != 200 {
		t.Fatalf("GET /: %d %s", w.Code, w.Body)
	}
	got := rowsOf(w.Body.String(), "run")
	if len(got) != 6 || got[0] != fx.runs[5].id() || got[5] != fx.runs[0].id() {
		t.Errorf("run list %v: want the six runs, newest first", got)
	}
	// Only a run whose folder has report.html links to it (a link to a
	// 404 is a broken page), and the page says the query it was given.
	if n := strings.Count(w.Body.String(), "/report.html\">report</a>"); n != 1 || !strings.Contains(w.Body.String(), "/run/"+fx.runs[0].id()+"/report.html") {
		t.Errorf("%d report links, want one, to %s", n, fx.runs[0].id())
	}
	if strings.Contains(w.Body.String(), "last=200") {
		t.Error("the page says a query the user did not give (last=200)")
	}
	w = get(t, h, "/?q="+url.QueryEscape("label=tuning=tuned"))
	got = rowsOf(w.Body.String(), "run")
	want := []string{fx.runs[5].id(), fx.runs[3].id(), fx.runs[1].id()}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("filtered by tuning=tuned: %v, want %v", got, want)
	}
	w = get(t, h, "/?q="+url.QueryEscape("colour=red"))
	if w.Code != 400 || !strings.Contains(w.Body.String(), `id="error"`) || !strings.Contains(w.Body.String(), "colour") {
		t.Errorf("a bad term: %d, page does not name it:\n%s", w.Code, w.Body)
	}
}

// verdicts maps "phase op figure" to the verdict of each compared figure.
func verdicts(t *testing.T, body string) map[string]string {
	re := regexp.MustCompile(`<tr class="fig" data-verdict="([^"]+)"><td>([^<]+)</td><td>([^<]+)</td><td>([^<]+?)(?: \([^)]*\))?</td>`)
	out := map[string]string{}
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		out[m[2]+" "+m[3]+" "+m[4]] = m[1]
	}
	if len(out) == 0 {
		t.Fatalf("no compared figure on the page:\n%s", body)
	}
	return out
}

// TestCompareGroupsAndRuns: the tuned group is 30% faster than the
// default one, and so is one tuned run against one default run; a query
// matching nothing is said.
func TestCompareGroupsAndRuns(t *testing.T) {
	fx := newFixture(t)
	h := New(fx.cat, "", nil).Handler()
	w := get(t, h, "/compare?a="+url.QueryEscape("label=tuning=default")+"&b="+url.QueryEscape("label=tuning=tuned"))
	if w.Code != 200 {
		t.Fatalf("compare: %d %s", w.Code, w.Body)
	}
	v := verdicts(t, w.Body.String())
	for _, k := range []string{"seq-read read throughput", "seq-read read ops/s", "md create ops/s", "seq-read read lat p99"} {
		if v[k] != "faster" {
			t.Errorf("groups: %s is %q, want faster (all: %v)", k, v[k], v)
		}
	}
	if !strings.Contains(w.Body.String(), "(95% confidence)") {
		t.Error("the page does not say the comparison's confidence as a percentage (95%)")
	}
	if !strings.Contains(w.Body.String(), "(3 runs)") {
		t.Error("the page does not say how many runs each group has")
	}
	// Two runs without per-second series: compared, each figure's change
	// shown, and not called faster without a test.
	w = get(t, h, "/compare?a=id%3D"+fx.runs[0].id()+"&b=id%3D"+fx.runs[1].id())
	if v := verdicts(t, w.Body.String()); v["seq-read read throughput"] != "untested" {
		t.Errorf("two runs: seq-read read throughput is %q (all: %v)", v["seq-read read throughput"], v)
	}
	if !regexp.MustCompile(`>\+(2[89]|3[0-2])\.\d%<`).MatchString(html.UnescapeString(w.Body.String())) {
		t.Errorf("two runs: no change of about +30%% on the page")
	}
	// A figure's name carries no unit of its own: its values do, each in
	// the unit it reads best in (issue 36 item 5: "throughput (B/s)" sat
	// over GiB/s values, "lat mean (ns)" over µs).
	rows := regexp.MustCompile(`<tr class="fig"[^>]*><td>[^<]*</td><td>[^<]*</td><td>([^<]*)</td>\s*<td class="n">([^<]*)</td>`).FindAllStringSubmatch(html.UnescapeString(w.Body.String()), -1)
	if len(rows) == 0 {
		t.Error("no compared figure's row found")
	}
	for _, m := range rows {
		if strings.Contains(m[1], "(") {
			t.Errorf("the figure %q names a unit beside the value %q", m[1], m[2])
		}
	}
	w = get(t, h, "/compare?a=label%3Dtuning%3Dnone&b=label%3Dtuning%3Dtuned")
	if w.Code != 400 || !strings.Contains(w.Body.String(), "matches no completed run") {
		t.Errorf("a group of nothing: %d\n%s", w.Code, w.Body)
	}
}

// TestTrendPage: the chart has one point per run, a line per group, and
// labelled axes with units; the table lists the points.
func TestTrendPage(t *testing.T) {
	fx := newFixture(t)
	h := New(fx.cat, "", nil).Handler()
	w := get(t, h, "/trend?figure="+url.QueryEscape("seq-read/read/bw")+"&by=tuning")
	body := w.Body.String()
	if w.Code != 200 {
		t.Fatalf("trend: %d %s", w.Code, body)
	}
	if n := strings.Count(body, `<circle class="pt"`); n != 6 {
		t.Errorf("%d points in the chart, want 6", n)
	}
	if got := rowsOf(body, "pt"); len(got) != 6 || got[0] != fx.runs[0].id() {
		t.Errorf("points table %v: want six runs, oldest first", got)
	}
	for _, s := range []string{">bw (GiB/s)</text>", ">run start (date, UTC, from 2026-10-01)</text>", ">tuning=default</text>", ">tuning=tuned</text>", ">Oct 1</text>"} {
		if !strings.Contains(body, s) {
			t.Errorf("the chart lacks %s", s)
		}
	}
	// The y axis reaches a labelled tick at or above the highest point
	// (2.49 GiB/s here), so the top of each line can be read.
	var top float64
	for _, m := range regexp.MustCompile(`<text class="tk" x="[0-9.]+" y="[0-9.]+" text-anchor="end">([0-9.]+)</text>`).FindAllStringSubmatch(body, -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		top = max(top, v)
	}
	const hi = 2.4 // the tuned runs: 2 GB/s x 1.3 is 2.42 GiB/s
	if top < hi {
		t.Errorf("the y axis's highest tick is %g GiB/s, below the points (over %g GiB/s)", top, hi)
	}
	w = get(t, h, "/trend?figure=seq-read/read/speed")
	if w.Code != 400 || !strings.Contains(w.Body.String(), "unknown figure") {
		t.Errorf("unknown figure: %d", w.Code)
	}
}

// TestReportServedFromFolderOnly: a known run's report.html is served
// from its folder; an unknown run, a run without a report, a pattern and
// every path trick are 404, never a file.
func TestReportServedFromFolderOnly(t *testing.T) {
	fx := newFixture(t)
	h := New(fx.cat, "", nil).Handler()
	w := get(t, h, "/run/"+fx.runs[0].id()+"/report.html")
	want, _ := os.ReadFile(filepath.Join(fx.folders[0], "report.html"))
	if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), want) {
		t.Errorf("report of a known run: %d, %d bytes, want its report.html (%d bytes)", w.Code, w.Body.Len(), len(want))
	}
	// A secret beside the folders, and run.json in one, must never come.
	secret := filepath.Join(fx.root, "secret.txt")
	os.WriteFile(secret, []byte("SECRET"), 0o600)
	for _, p := range []string{
		"/run/20990101T000000Z-0000/report.html",
		"/run/" + fx.runs[1].id() + "/report.html",
		"/run/*/report.html",
		"/run/" + fx.runs[0].id()[:8] + "*/report.html",
		"/run/..%2f..%2fsecret.txt/report.html",
		"/run/%2e%2e/report.html",
		"/run/" + fx.runs[0].id() + "/run.json",
		"/run/" + fx.runs[0].id() + "/../secret.txt",
		"/run/" + url.PathEscape(fx.root) + "/report.html",
	} {
		w := get(t, h, p)
		if w.Code == 200 || strings.Contains(w.Body.String(), "SECRET") || strings.Contains(w.Body.String(), `"run_id"`) {
			t.Errorf("GET %s: %d, served:\n%.200s", p, w.Code, w.Body)
		}
	}
}

// TestToken: with a token every page needs it, as a bearer header, a
// cookie, or once in the URL (moved to the cookie, redirected without
// it); the token is never in the log or a page.
func TestToken(t *testing.T) {
	fx := newFixture(t)
	const tok = "s3cr3t-t0ken-value-0123456789"
	var logb bytes.Buffer
	h := New(fx.cat, tok, &logb).Handler()
	for _, p := range []string{"/", "/trend?figure=seq-read/read/bw", "/run/" + fx.runs[0].id() + "/report.html", "/?token=wrong"} {
		if w := get(t, h, p); w.Code != 401 {
			t.Errorf("GET %s without the token: %d, want 401", p, w.Code)
		}
	}
	if w := get(t, h, "/", "Authorization", "Bearer wrong"); w.Code != 401 {
		t.Errorf("a wrong bearer token: %d", w.Code)
	}
	if w := get(t, h, "/", "Authorization", "Bearer "+tok); w.Code != 200 {
		t.Errorf("the bearer token: %d", w.Code)
	}
	w := get(t, h, "/trend?figure=seq-read%2Fread%2Fbw&token="+tok)
	loc := w.Header().Get("Location")
	if w.Code != 303 || strings.Contains(loc, tok) || !strings.Contains(loc, "figure=") {
		t.Errorf("?token=: %d to %q, want a redirect to the page without the token", w.Code, loc)
	}
	cookie := w.Result().Cookies()
	if len(cookie) != 1 || !cookie[0].HttpOnly {
		t.Fatalf("?token= set cookies %v, want one HttpOnly", cookie)
	}
	w = get(t, h, loc, "Cookie", cookie[0].String())
	if w.Code != 200 || strings.Contains(w.Body.String(), tok) {
		t.Errorf("with the cookie: %d (token on the page: %v)", w.Code, strings.Contains(w.Body.String(), tok))
	}
	if strings.Contains(logb.String(), tok) || logb.Len() == 0 {
		t.Errorf("the log holds the token or nothing:\n%s", logb.String())
	}
}

// TestOpenReadOnly: serve's catalog is never created and never written:
// a missing file is an error and stays missing; the file is byte for
// byte the same after serving every page.
func TestOpenReadOnly(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.db")
	if _, err := catalogOpenRO(t, missing); err == nil {
		t.Error("a missing catalog opened")
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("opening a missing catalog read-only created it")
	}
	fx := newFixture(t)
	before, _ := os.ReadFile(fx.path)
	h := New(fx.cat, "", nil).Handler()
	for _, p := range []string{"/", "/compare?a=label%3Dtuning%3Ddefault&b=label%3Dtuning%3Dtuned", "/trend?figure=md/create/rate"} {
		get(t, h, p)
	}
	after, _ := os.ReadFile(fx.path)
	if !bytes.Equal(before, after) {
		t.Error("serving changed the catalog file")
	}
}

// With a spec, each run's figures are shown as shares of its claims: the
// tuned runs' sequential reads at about 130% of a 2GB/s claim.
func TestRunListSpec(t *testing.T) {
	fx := newFixture(t)
	sp, err := specs.Parse([]byte("name: Test NVMe\nclaims:\n  seq_read_bw: 2GB/s\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := New(fx.cat, "", nil)
	s.SetSpec(sp)
	body := get(t, s.Handler(), "/").Body.String()
	if !strings.Contains(body, "share of Test NVMe's claims") {
		t.Error("the run list has no column of the spec's shares")
	}
	re := regexp.MustCompile(`data-run="` + fx.runs[1].id() + `">.*?<td class="spec">seq_read_bw@seq-read (\d+)%`)
	m := re.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("run %s shows no share of seq_read_bw:\n%s", fx.runs[1].id(), body)
	}
	if pct, _ := strconv.Atoi(m[1]); pct < 125 || pct > 135 {
		t.Errorf("run %s at %d%% of its claim, want about 130%%", fx.runs[1].id(), pct)
	}
}
