package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/safetext"
)

// FieldFormat writes a run's figures as one of the field's tools prints
// them, for the scripts their users already have.
type FieldFormat func(w io.Writer, run *model.RunInfo, s *results.Summary) error

// FieldFormats are the formats --output-format names besides storbench's
// own text: one renderer a name.
var FieldFormats = map[string]FieldFormat{
	"mdtest": MdtestText,
	"ior":    IORText,
}

// FieldFormatNames lists FieldFormats' names, sorted, for messages.
func FieldFormatNames() []string {
	out := make([]string, 0, len(FieldFormats))
	for n := range FieldFormats {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// mdtestRows are mdtest's summary rows in its order, each with the md
// operation it shows. mdtest prints the tree rows from rank 0's figures
// and the others from all ranks'; storbench's figures are all hosts'.
var mdtestRows = []struct{ label, op string }{
	{"Directory creation", "dir-create"},
	{"Directory stat", "dir-stat"},
	{"Directory rename", "dir-rename"},
	{"Directory removal", "dir-remove"},
	{"File creation", "file-create"},
	{"File stat", "file-stat"},
	{"File read", "file-read"},
	{"File removal", "file-remove"},
	{"Tree creation", "tree-create"},
	{"Tree removal", "tree-remove"},
}

// MdtestText writes every md phase as mdtest 4.x prints a run: its start
// line, "mdtest-V was launched with T total task(s) on N node(s)" (a node
// is a host, a task a worker), the command line, the path, "T tasks, I
// files" (-F; "directories" with -D, "files/directories" with neither),
// the "SUMMARY rate (in ops/sec): (of N iterations)" table of Max, Min,
// Mean and Std Dev across iterations, and its end line. mdtest's FS line
// (the file system's size and use) is left out: storbench does not
// record it. The table has mdtest's rows: the file rows with -F, the
// directory rows with -D, then the tree rows; a row of an operation that
// did not run (--only) is 0.000 in every column, as mdtest prints it, so
// a script finds every row where it looks (summary.json has no such
// figure: there it is absent).
func MdtestText(w io.Writer, run *model.RunInfo, s *results.Summary) error {
	shapes := planMd(run)
	run, s = safetext.Copy(run), safetext.Copy(s)

	n := 0
	for _, ps := range s.Phases {
		if !ps.Offers(model.FormatMdtest) {
			continue
		}
		n++
		mdtestPhase(w, run, s, ps, shapes[ps.Name])
	}
	if n == 0 {
		return fmt.Errorf("--output-format mdtest: the run has no md phase")
	}
	return nil
}

// mdShape is what mdtest's text says of an md phase's settings: -F, -D
// and -n.
type mdShape struct {
	FilesOnly bool  `json:"files_only"`
	DirsOnly  bool  `json:"dirs_only"`
	Items     int64 `json:"items"`
}

// planMd reads the settings of every md phase of the plan, by phase name.
func planMd(run *model.RunInfo) map[string]mdShape {
	out := map[string]mdShape{}
	for _, p := range run.Plan {
		var sh mdShape
		if p.Engine == model.EngineMD && json.Unmarshal(p.Params, &sh) == nil {
			out[safetext.Escape(p.Name)] = sh
		}
	}
	return out
}

// mdtestPhase writes one md phase.
func mdtestPhase(w io.Writer, run *model.RunInfo, s *results.Summary, ps results.PhaseSummary, sh mdShape) {
	tasks := ranksOf(run, ps.Dir)
	fmt.Fprintf(w, "-- started at %s --\n\n", mdtestTime(s.StartedAt))
	fmt.Fprintf(w, "storbench-%s was launched with %d total task(s) on %d node(s)\n", run.Versions.Storbench, tasks, len(ps.Hosts))
	fmt.Fprintf(w, "Command line used: %s\n", quoteArgs(run.CommandLine))
	if len(run.Targets) > 0 {
		fmt.Fprintf(w, "%-20s: %s\n", "Path", run.Targets[0].Dir)
	}
	iters := 1
	var items uint64
	for _, o := range ps.Ops {
		if o.Rate != nil && o.Rate.Iterations > 0 {
			iters = o.Rate.Iterations
		}
	}
	for _, o := range ps.Ops {
		if o.Op == "file-create" || o.Op == "dir-create" {
			items = max(items, o.Ops/uint64(iters))
		}
	}
	if items == 0 && sh.Items > 0 {
		// Nothing was created (--only stat): the geometry is the settings'.
		items = uint64(sh.Items) * uint64(tasks)
	}
	what := "files/directories"
	switch {
	case sh.FilesOnly && !sh.DirsOnly:
		what = "files"
	case sh.DirsOnly && !sh.FilesOnly:
		what = "directories"
	}
	fmt.Fprintf(w, "%d tasks, %d %s\n", tasks, items, what)
	fmt.Fprintf(w, "\nSUMMARY rate (in ops/sec): (of %d iterations)\n", iters)
	fmt.Fprintf(w, "   Operation                     Max            Min           Mean        Std Dev\n")
	fmt.Fprintf(w, "   ---------                     ---            ---           ----        -------\n")
	for _, row := range mdtestRows {
		if sh.FilesOnly && !sh.DirsOnly && strings.HasPrefix(row.op, "dir-") || sh.DirsOnly && !sh.FilesOnly && strings.HasPrefix(row.op, "file-") {
			continue
		}
		var r results.RateStats
		if o := findOp(ps.Ops, row.op); o != nil && o.Rate != nil {
			r = *o.Rate
		}
		if r.Iterations == 1 {
			r.Stddev = 0
		}
		fmt.Fprintf(w, "   %-22s %14.3f %14.3f %14.3f %14.3f\n", row.label, r.Max, r.Min, r.Mean, r.Stddev)
	}
	fmt.Fprintf(w, "-- finished at %s --\n\n", mdtestTime(s.EndedAt))
}

// iterFigures takes one figure of every iteration; an iteration without
// it is left out.
func iterFigures(it []results.OpSummary, f func(results.OpSummary) *float64) []float64 {
	var out []float64
	for _, o := range it {
		if v := f(o); v != nil {
			out = append(out, *v)
		}
	}
	return out
}

type spread struct{ max, min, mean, sd float64 }

// spreadCells is IOR's Max, Min, Mean and StdDev of xs in format, or NA
// for each when xs is empty.
func spreadCells(xs []float64, format string) [4]string {
	if len(xs) == 0 {
		return [4]string{"NA", "NA", "NA", "NA"}
	}
	s := describe(xs)
	return [4]string{fmt.Sprintf(format, s.max), fmt.Sprintf(format, s.min), fmt.Sprintf(format, s.mean), fmt.Sprintf(format, s.sd)}
}

// describe is IOR's Max, Min, Mean and population StdDev of xs, which
// is not empty (stats.Describe's StdDev is the sample's).
func describe(xs []float64) spread {
	s := spread{max: xs[0], min: xs[0]}
	var sum float64
	for _, x := range xs {
		s.max, s.min, sum = max(s.max, x), min(s.min, x), sum+x
	}
	s.mean = sum / float64(len(xs))
	var v float64
	for _, x := range xs {
		v += (x - s.mean) * (x - s.mean)
	}
	s.sd = math.Sqrt(v / float64(len(xs)))
	return s
}

func findOp(ops []results.OpSummary, name string) *results.OpSummary {
	for i := range ops {
		if ops[i].Op == name {
			return &ops[i]
		}
	}
	return nil
}

// ranksOf is how many workers (ranks) the phase in folder dir had.
func ranksOf(run *model.RunInfo, dir string) int {
	for _, r := range run.Ranks {
		if r.Phase == dir {
			return r.Total
		}
	}
	return 0
}

func mdtestTime(t time.Time) string { return t.Local().Format("01/02/2006 15:04:05") }

// quoteArgs quotes every argument as mdtest prints its command line.
func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + a + "'"
	}
	if len(q) > 0 {
		q[0] = args[0]
	}
	return strings.Join(q, " ")
}
