package serve

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/catalog"
	"github.com/storbench/storbench/internal/report"
	"github.com/storbench/storbench/internal/safetext"
	"github.com/storbench/storbench/internal/specs"
	"github.com/storbench/storbench/internal/stats"
)

// terms splits a filter box's text into query terms: spaces and commas
// separate them as on the command line.
func terms(s string) []string { return strings.Fields(s) }

// runRow is one run of the run list.
type runRow struct {
	catalog.Run
	LabelText string
	// Report is whether the run's folder has its report.html.
	Report bool
	// Shares are the run's figures as shares of the spec's claims.
	Shares []string
}

// hasResult says whether the results folder dir has a file name that
// serve would serve (openResult): a link leads to no page.
func hasResult(dir, name string) bool {
	f, err := openResult(dir, name)
	if err == nil {
		f.Close()
	}
	return err == nil
}

func (s *Server) runsPage(w http.ResponseWriter, r *http.Request) {
	text := r.URL.Query().Get("q")
	data := map[string]any{"Title": "Runs", "Q": text, "Where": s.cat.Where()}
	q, err := catalog.ParseQuery(terms(text), s.now())
	if err != nil {
		data["Error"] = err.Error()
		s.render(w, http.StatusBadRequest, "runs", data)
		return
	}
	asked := q.String()
	if q.Last == 0 {
		q.Last = 200
	}
	runs, err := s.cat.Runs(r.Context(), q)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	rows := make([]runRow, len(runs))
	for i, run := range runs {
		var ls []string
		for k, v := range run.Labels {
			ls = append(ls, k+"="+v)
		}
		slices.Sort(ls)
		row := runRow{Run: run, LabelText: strings.Join(ls, " "), Report: hasResult(run.Path, report.HTMLFile)}
		if s.spec != nil {
			figs, err := s.cat.Figures(r.Context(), run.RunID)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			for _, sh := range s.spec.Shares(figs) {
				row.Shares = append(row.Shares, sh.Claim+"@"+sh.Phase+" "+specs.PctText(sh.Pct))
			}
		}
		rows[len(runs)-1-i] = row
	}
	data["Spec"] = s.spec
	data["Runs"], data["Query"] = rows, asked
	s.render(w, http.StatusOK, "runs", data)
}

func (s *Server) comparePage(w http.ResponseWriter, r *http.Request) {
	av, bv := r.URL.Query().Get("a"), r.URL.Query().Get("b")
	data := map[string]any{"Title": "Compare", "A": av, "B": bv}
	if av == "" || bv == "" {
		s.render(w, http.StatusOK, "compare", data)
		return
	}
	c, err := s.compareGroups(r, av, bv)
	if err != nil {
		data["Error"] = err.Error()
		s.render(w, http.StatusBadRequest, "compare", data)
		return
	}
	data["Cmp"] = c
	s.render(w, http.StatusOK, "compare", data)
}

// compareGroups compares the runs two queries match as storbench compare
// --a/--b does, through the test check judges by (catalog.CompareGroups).
func (s *Server) compareGroups(r *http.Request, av, bv string) (*analyze.Comparison, error) {
	var qs [2]catalog.Query
	for i, text := range []string{av, bv} {
		q, err := catalog.ParseQuery(terms(text), s.now())
		if err != nil {
			return nil, fmt.Errorf("%s: %v", []string{"a", "b"}[i], err)
		}
		qs[i] = q
	}
	c, err := s.cat.CompareGroups(r.Context(), qs[0], qs[1], catalog.CheckOptions{ThresholdPct: 5, Alpha: 1 - stats.DefaultConfidence})
	var ng *catalog.NoGroupError
	if errors.As(err, &ng) {
		return nil, fmt.Errorf("%s: %s matches no completed run", []string{"a", "b"}[ng.Side], []string{av, bv}[ng.Side])
	}
	return c, err
}

func (s *Server) trendPage(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	fig, text, by := v.Get("figure"), v.Get("q"), v.Get("by")
	data := map[string]any{"Title": "Trend", "Figure": fig, "Q": text, "By": by}
	if fig == "" {
		s.render(w, http.StatusOK, "trend", data)
		return
	}
	f, err := catalog.ParseFigure(fig)
	var q catalog.Query
	if err == nil {
		q, err = catalog.ParseQuery(terms(text), s.now())
	}
	if err != nil {
		data["Error"] = err.Error()
		s.render(w, http.StatusBadRequest, "trend", data)
		return
	}
	if q.Last == 0 {
		q.Last = 1000
	}
	pts, err := s.cat.Trend(r.Context(), q, f, by)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	// The chart is markup made here, which render leaves as it is.
	pts = safetext.Copy(pts)
	data["Points"], data["Name"] = pts, f.Name
	if len(pts) > 0 {
		data["Chart"] = trendChart(f, by, pts)
	}
	s.render(w, http.StatusOK, "trend", data)
}

func (s *Server) render(w http.ResponseWriter, code int, page string, data map[string]any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'")
	w.WriteHeader(code)
	// Runs' names and labels come from results folders anyone may have
	// written, and what the request asked is echoed: a page shows their
	// control characters as escapes (html/template leaves them raw).
	data = safetext.Copy(data)
	if err := pages.ExecuteTemplate(w, page, data); err != nil && s.log != nil {
		s.log.Printf("page %s: %v", page, err)
	}
}

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"css":    func() template.CSS { return template.CSS(report.ChartCSS) },
	"byUnit": byUnit,
	"pct":    func(f float64) float64 { return 100 * f },
	"when":   whenText,
	"unitOf": catalog.Unit,
}).Parse(pageTemplates))
