package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/figures"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/units"
)

//go:embed report.html.tmpl
var htmlTemplate string

var htmlTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"mulf": func(x float64) float64 { return 100 * x },
}).Parse(htmlTemplate))

// HTMLInput is what the HTML report shows: a run, its phases with their
// hosts' results, and optionally a comparison with another run.
type HTMLInput struct {
	Run     *results.RunInfo
	Summary *results.Summary
	Phases  []analyze.PhaseData
	Compare *analyze.Comparison
	// Share, when set, says a total figure (bw or rate) as a share of
	// its claim ("50% of seq_read_bw"), "" when no claim applies.
	Share ShareFunc
}

// HTMLFolder reads a results folder (and, when other is not empty, compares
// it with other, other being before) and renders its report.
func HTMLFolder(dir, other string) ([]byte, error) { return HTMLFolderShares(dir, other, nil) }

// HTMLFolderShares is HTMLFolder with each figure a claim applies to
// shown as a share of it (storbench report --spec).
func HTMLFolderShares(dir, other string, share ShareFunc) ([]byte, error) {
	sum, phases, err := analyze.ReadPhases(dir)
	if err != nil {
		return nil, err
	}
	in := HTMLInput{Summary: sum, Phases: phases, Share: share}
	if r, err := results.ReadRunInfo(dir); err == nil {
		in.Run = r
	}
	if other != "" {
		c, err := analyze.CompareFolders(other, dir, analyze.CompareOptions{ThresholdPct: 5})
		if err != nil {
			return nil, err
		}
		in.Compare = c
	}
	var b bytes.Buffer
	if err := HTML(&b, in); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type kv struct{ K, V string }

type htmlRow struct {
	Phase, Op, Hosts, Throughput, OpsPerS, Mean, P50, P99, P999, Errors, Status string
	Engine                                                                      model.EngineName
	Headline                                                                    model.Headline
	Bad                                                                         bool
}

type htmlPhase struct {
	Name, Status, Error, Window string
	Engine                      model.EngineName
	Charts                      []template.HTML
	// Notes name the slowest hosts and what was not recorded.
	Notes []string
	// Hosts is every host's figures, when several ran the phase.
	Hosts []htmlHostRow
	// HostsOpen shows the table unfolded (when it is short).
	HostsOpen bool
	// Events are the phase's events, as they ran.
	Events []htmlEvent
}

type htmlCmpRow struct {
	Phase, Op, Figure, Before, After, Change, Verdict, Test string
}

type htmlData struct {
	Title, RunID, Status, Started, Ended string
	Notes                                []string
	Env                                  []kv
	Plan                                 string
	Headlines                            []kv
	Rows                                 []htmlRow
	NotRecorded                          []string
	Phases                               []htmlPhase
	Sweeps                               []template.HTML
	Scales                               []template.HTML
	Compare                              *analyze.Comparison
	CmpRows                              []htmlCmpRow
	Generated                            string
}

// runNotes are the notes over a report: a run that never finished, the
// phases it never started, and a comparison's.
func runNotes(in HTMLInput) []string {
	var notes []string
	if in.Summary.Status == results.StatusRunning {
		notes = append(notes, results.NeverFinishedNote)
	}
	if len(in.Summary.NotRun) > 0 {
		notes = append(notes, NotRunNote(in.Summary))
	}
	if in.Compare != nil {
		notes = append(notes, in.Compare.Notes...)
		if l := clientLimitLines(in.Compare); len(l) > 0 {
			notes = append(notes, strings.Join(l, " "))
		}
	}
	return notes
}

// HTML writes a self-contained report: inline CSS, charts as inline SVG,
// no script, font, image or any other request.
func HTML(w io.Writer, in HTMLInput) error {
	in = plainHTML(in)

	s := in.Summary
	d := htmlData{Title: "storbench run " + s.Name, RunID: s.RunID, Status: s.Status, Started: fmtTime(s.StartedAt), Ended: fmtTime(s.EndedAt)}
	d.Notes = runNotes(in)
	d.addEnv(in.Run)
	for _, p := range s.Phases {
		status := p.StatusText()
		for _, o := range p.Ops {
			r := htmlRow{Phase: p.Name, Engine: p.Engine, Op: o.Op, Hosts: fmt.Sprint(len(p.Hosts)), Headline: p.Report,
				Throughput: bwText(o.BwBytesPerS), OpsPerS: rateText(o.OpsPerS, ""), Mean: latText(o.Lat, latMean),
				P50: latText(o.Lat, latP50), P99: latText(o.Lat, latP99), P999: latText(o.Lat, latP999),
				Errors: fmt.Sprint(o.Errors), Status: status, Bad: o.Errors > 0 || p.Status != results.StatusCompleted}
			in.Share.add(&r, p.Name, o)
			d.Rows = append(d.Rows, r)
			for _, c := range o.BySize {
				d.Rows = append(d.Rows, htmlRow{Phase: p.Name, Engine: p.Engine, Op: sizeOpLabel(o.Op, c), Hosts: r.Hosts,
					Throughput: bwText(c.BwBytesPerS), OpsPerS: rateText(c.OpsPerS, ""), Mean: latText(c.Lat, latMean),
					P50: latText(c.Lat, latP50), P99: latText(c.Lat, latP99), P999: latText(c.Lat, latP999),
					Errors: fmt.Sprint(c.Errors), Status: status, Bad: c.Errors > 0 || p.Status != results.StatusCompleted})
			}
			// Headlines follow the phase's text: wekatester's by the job's
			// choice, mdtest's operation rates, warp's rates and bandwidth.
			wekatester := p.TextFormat() == model.FormatWekatester
			switch {
			case wekatester && p.Report == model.HeadlineIOPS:
				d.Headlines = append(d.Headlines, kv{p.Name + " " + o.Op + " IOPS", rateText(o.OpsPerS, "IOPS")})
			case wekatester && p.Report == model.HeadlineLatency:
				v := strings.TrimPrefix(notRecorded(p.TextFormats()), "latency ")
				if o.Lat != nil {
					v = units.Latency(o.Lat.MeanNs)
				}
				d.Headlines = append(d.Headlines, kv{p.Name + " " + o.Op + " latency", v})
			case wekatester:
				d.Headlines = append(d.Headlines, kv{p.Name + " " + o.Op + " bandwidth", bwText(o.BwBytesPerS)})
			case p.TextFormat() == model.FormatMdtest:
				d.Headlines = append(d.Headlines, kv{p.Name + " " + o.Op, rateText(o.OpsPerS, p.RateName())})
			default:
				d.Headlines = append(d.Headlines, kv{p.Name + " " + o.Op, figRates(o.BwBytesPerS, o.OpsPerS, p.RateName())})
			}
		}
		if len(p.Ops) == 0 {
			d.Rows = append(d.Rows, htmlRow{Phase: p.Name, Engine: p.Engine, Op: "-", Hosts: fmt.Sprint(len(p.Hosts)), Status: status, Bad: true})
		}
	}
	d.NotRecorded = notRecordedNotes(s.Phases)
	if len(s.Sweeps) > 0 {
		// A sweep's headline is each point's mean over its iterations, not
		// every iteration on its own.
		d.Headlines = sweepHeadlines(s.Sweeps)
	}
	// Summary.Score, the default score of older results, is not shown: it
	// put 4k random reads and 1 MiB writes in one mean and counted tree
	// create and remove as metadata. IO500's, asked for, is below.
	if s.IO500 != nil {
		card, note := io500Headline(s.IO500)
		d.Headlines = append(d.Headlines, card)
		if note != "" {
			d.Notes = append(d.Notes, note)
		}
	}
	for _, pd := range in.Phases {
		d.Phases = append(d.Phases, phaseCharts(pd))
	}
	d.Sweeps, d.Scales = sweepCharts(s.Sweeps), scaleCharts(s.Scales)
	if c := in.Compare; c != nil {
		d.Compare = c
		d.CmpRows = compareRows(c)
	}
	return htmlTmpl.Execute(w, d)
}

// addEnv adds the run's settings and environment (r: run.json, nil when
// unread), leaving out what is not known.
func (d *htmlData) addEnv(r *results.RunInfo) {
	if r != nil {
		d.Env = append(d.Env, kv{"Command line", strings.Join(r.CommandLine, " ")},
			kv{"storbench", r.Versions.Storbench}, kv{"Go", r.Versions.Go}, kv{"fio", r.Versions.Fio}, kv{"Kernel", r.Versions.Kernel})
		for _, t := range r.Targets {
			name := "Target " + t.Dir
			if t.Host != "" {
				name += " on " + t.Host
			}
			d.Env = append(d.Env, kv{name, fmt.Sprintf("%s on %s (%s)", t.FSType, t.Mount, t.Source)})
		}
		if len(r.Agents) > 0 {
			var names []string
			for _, a := range r.Agents {
				names = append(names, a.Host)
			}
			d.Env = append(d.Env, kv{"Hosts", fmt.Sprintf("%d: %s", len(r.Agents), strings.Join(names, ", "))})
		}
		keys := make([]string, 0, len(r.Settings))
		for k := range r.Settings {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			d.Env = append(d.Env, kv{"Setting " + k, fmt.Sprint(r.Settings[k])})
		}
		var plan strings.Builder
		for _, p := range r.Plan {
			var v any
			_ = json.Unmarshal(p.Params, &v)
			b, _ := json.MarshalIndent(v, "  ", "  ")
			fmt.Fprintf(&plan, "%s (%s):\n  %s\n", p.Name, p.Engine, b)
		}
		d.Plan = plan.String()
	}
	var kept []kv
	for _, e := range d.Env {
		if e.V != "" {
			kept = append(kept, e)
		}
	}
	d.Env = kept
}

// sweepHeadlines are the headline cards of a run with sweeps: each
// point's mean over its iterations, with its CoV.
func sweepHeadlines(sweeps []results.Sweep) []kv {
	var out []kv
	for _, sw := range sweeps {
		st, ok := sw.Metrics[sw.Headline]
		v := metricText(sw.Headline, st.Mean)
		switch {
		case !ok:
			v = "not measured"
		case st.N > 1:
			v += fmt.Sprintf(" ±%.1f%%", 100*st.CoV)
		}
		out = append(out, kv{sw.Group + " " + pointText(sw.Point) + " " + sw.Op + " " + metricName(sw.TextFormats(), sw.Headline), v})
	}
	return out
}

// compareRows are the comparison's table: a row per figure, and one per
// note of what was not compared.
func compareRows(c *analyze.Comparison) []htmlCmpRow {
	var out []htmlCmpRow
	for _, p := range c.Phases {
		for _, o := range p.Ops {
			for _, f := range o.Figures {
				out = append(out, htmlCmpRow{p.Name, o.Op, f.Name, figureValue(f.Unit, f.Before), figureValue(f.Unit, f.After),
					figureDelta(f), f.Verdict, figureTest(f)})
			}
			for _, n := range o.Notes {
				out = append(out, htmlCmpRow{p.Name, o.Op, "-", notMeasured, notMeasured, notMeasured, "not compared", n})
			}
		}
	}
	return append(out, eventCmpRows(c.Events)...)
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// phaseCharts draws a phase's throughput and latency over time (see
// timeCharts), its latency percentile curves and its errors over time.
func phaseCharts(pd analyze.PhaseData) htmlPhase {
	p := pd.Summary
	hp := htmlPhase{Name: p.Name, Engine: p.Engine, Status: p.Status, Error: p.Error}
	if p.Window != nil {
		hp.Window = fmt.Sprintf("common window of all hosts: %.1f s", p.Window.DurationS)
	}
	hp.Charts, hp.Notes, hp.Hosts = timeCharts(pd)
	if t := p.StarvedText(); t != "" {
		hp.Notes = append([]string{t}, hp.Notes...)
	}
	if t := ClientLimitsNote(&p); t != "" {
		hp.Notes = append([]string{t}, hp.Notes...)
	}
	hp.HostsOpen = len(hp.Hosts) <= 16
	// Errors on the same seconds as the charts over time.
	ax := phaseAxis(pd.Hosts)
	// The hosts' own CPU, network and disks, beside the rates.
	hp.Charts = append(hp.Charts, clientCharts(pd, ax)...)
	totalErrs := map[float64]float64{}
	all, _ := analyze.SecondsOf(pd.Hosts, ax.t0, ax.seg, nil) // unreadable: timeCharts noted it
	for _, o := range all {
		for _, s := range o.Seconds {
			totalErrs[ax.x(s)] += float64(s.Errors)
		}
	}
	// Latency percentiles from merged histograms, x on a log scale of 1/(1-p).
	var curves []chartLine
	for _, o := range p.Ops {
		var bins record.Bins
		for _, h := range pd.Hosts {
			for _, x := range h.Ops {
				if x.Op == o.Op {
					bins = record.Merge(bins, x.Lat.Bins)
				}
			}
		}
		if l := percentileCurve(o.Op, bins); len(l.X) > 0 {
			l.Color = OpColor(o.Op)
			curves = append(curves, l)
		}
	}
	hp.Charts = append(hp.Charts, svgChart(chartSpec{Title: "Latency by percentile (merged histograms)", XLabel: "percentile", YLabel: "latency",
		Lines: curves, LogY: true, XTicks: []float64{0, 1, 2, 3, 4, 5}, XTick: pctTick, YTick: func(v float64) string { return units.Latency(v) },
		Limits: limitsOn(p, figures.IsLatency, 1)}))
	// Errors per second across hosts and operations (zero is a data point).
	keys := make([]float64, 0, len(totalErrs))
	for k := range totalErrs {
		keys = append(keys, k)
	}
	sort.Float64s(keys)
	el := chartLine{Name: "errors"}
	var errs float64
	for _, k := range keys {
		el.X, el.Y = append(el.X, k), append(el.Y, totalErrs[k])
		errs += totalErrs[k]
	}
	// A chart of zeros (or of nothing) says less than a line does.
	switch {
	case errs > 0:
		hp.Charts = append(hp.Charts, svgChart(chartSpec{Title: "Errors per second (all hosts)", XLabel: xLabel, YLabel: "errors",
			Lines: []chartLine{el}, Bars: true, XTick: secondsTick, YTick: compact, Marks: eventMarks(p.Events, ax.t0), XSpan: ax.span()}))
	case len(keys) > 0:
		hp.Notes = append(hp.Notes, "Errors per second: none, in any second of the phase")
	}
	hp.Events = eventRows(p.Events)
	return hp
}

// percentileCurve is latency against -log10(1 - p), at most ~200 points.
func percentileCurve(name string, b record.Bins) chartLine {
	l := chartLine{Name: name}
	total := float64(b.Total())
	if total == 0 {
		return l
	}
	var cum float64
	lastX := -1.0
	for i, x := range b {
		cum += float64(x.N)
		q := cum / total
		pos := 5.0
		if q < 1 {
			pos = math.Min(-math.Log10(1-q), 5)
		}
		if pos-lastX < 0.02 && i != len(b)-1 {
			continue
		}
		lastX = pos
		l.X, l.Y = append(l.X, pos), append(l.Y, float64(x.V))
	}
	return l
}

func pctTick(v float64) string {
	switch int(math.Round(v)) {
	case 0:
		return "p0"
	case 1:
		return "p90"
	case 2:
		return "p99"
	case 3:
		return "p99.9"
	case 4:
		return "p99.99"
	}
	return "max"
}

func compact(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return fmt.Sprintf("%.3gG", v/1e9)
	case a >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case a >= 1e4:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprintf("%.4g", v)
}
