package report

import (
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
// files/directories", the "SUMMARY rate (in ops/sec): (of N iterations)"
// table of Max, Min, Mean and Std Dev across iterations, and its end line.
// mdtest's FS line (the file system's size and use) is left out: storbench
// does not record it. Rows of operations the phase did not run are left
// out, as mdtest leaves out the file rows with -D.
func MdtestText(w io.Writer, run *model.RunInfo, s *results.Summary) error {
	run, s = safetext.Copy(run), safetext.Copy(s)

	n := 0
	for _, ps := range s.Phases {
		if !ps.Offers(model.FormatMdtest) {
			continue
		}
		n++
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
		fmt.Fprintf(w, "%d tasks, %d files/directories\n", tasks, items)
		fmt.Fprintf(w, "\nSUMMARY rate (in ops/sec): (of %d iterations)\n", iters)
		fmt.Fprintf(w, "   Operation                     Max            Min           Mean        Std Dev\n")
		fmt.Fprintf(w, "   ---------                     ---            ---           ----        -------\n")
		for _, row := range mdtestRows {
			o := findOp(ps.Ops, row.op)
			if o == nil || o.Rate == nil {
				continue
			}
			sd := o.Rate.Stddev
			if o.Rate.Iterations == 1 {
				sd = 0
			}
			fmt.Fprintf(w, "   %-22s %14.3f %14.3f %14.3f %14.3f\n", row.label, o.Rate.Max, o.Rate.Min, o.Rate.Mean, sd)
		}
		fmt.Fprintf(w, "-- finished at %s --\n\n", mdtestTime(s.EndedAt))
	}
	if n == 0 {
		return fmt.Errorf("--output-format mdtest: the run has no md phase")
	}
	return nil
}

// IORText writes every fio phase group as IOR 4.x prints its "Summary of
// all tests" table: per direction Max, Min, Mean and StdDev of bandwidth
// (MiB/s) and of operations per second across iterations, the mean time of
// an iteration, and the test's shape. A write with a stonewall gets IOR's
// stonewall figures: the mean time to the deadline (Stonewall(s)) and the
// mean bytes per job by then over it, in MiB/s (Stonewall(MiB), as IOR
// computes it). Fields storbench does not know of a fio job (stonewall
// figures of a phase without one, tasks per node, file per process,
// reordering, segments, block size per task) are NA, as IOR prints NA for
// stonewall figures it did not take.
func IORText(w io.Writer, run *model.RunInfo, s *results.Summary) error {
	run, s = safetext.Copy(run), safetext.Copy(s)

	groups := iorGroups(s)
	if len(groups) == 0 {
		return fmt.Errorf("--output-format ior: the run has no fio phase")
	}
	// IOR's own layout: the title line ends where the header's first
	// line begins.
	fmt.Fprintf(w, "\nSummary of all tests:")
	fmt.Fprintf(w, "\n%-9s %10s %10s %10s %10s %10s %10s %10s %10s %10s %10s %13s",
		"Operation", "Max(MiB)", "Min(MiB)", "Mean(MiB)", "StdDev", "Max(OPs)", "Min(OPs)", "Mean(OPs)", "StdDev", "Mean(s)", "Stonewall(s)", "Stonewall(MiB)")
	fmt.Fprintf(w, " Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt ")
	fmt.Fprintf(w, "%8s %8s %9s %5s RefNum\n", " blksiz", "xsize", "aggs(MiB)", "API")
	for test, g := range groups {
		for _, dir := range g.dirs {
			iorRow(w, test, dir, g)
		}
	}
	return nil
}

// iorRow writes one direction of one test.
func iorRow(w io.Writer, test int, dir string, g iorGroup) {
	it := g.iters[dir]
	bw := iterFigures(it, func(o results.OpSummary) *float64 { return o.BwBytesPerS })
	for i := range bw {
		bw[i] /= 1 << 20
	}
	// A figure no iteration measured (bandwidth of an operation that moved
	// no bytes, a rate fio did not give) is NA, as IOR writes what it did
	// not take, never 0.00.
	b := spreadCells(bw, "%.2f")
	o := spreadCells(iterFigures(it, func(o results.OpSummary) *float64 { return o.OpsPerS }), "%.2f")
	t := spreadCells(iterFigures(it, func(o results.OpSummary) *float64 { d := o.DurationS; return &d }), "%.5f")
	var bytes, count uint64
	for _, x := range it {
		bytes, count = bytes+x.Bytes, count+x.Ops
	}
	xsize, aggs := "NA", "NA"
	if bytes > 0 && count > 0 && len(it) > 0 {
		xsize = fmt.Sprint(bytes / count)
		aggs = fmt.Sprintf("%.1f", float64(bytes)/float64(len(it))/(1<<20))
	}
	// IOR names the direction; a fio file of several job groups names
	// its operations "<job> read".
	access := dir
	if f := strings.Fields(dir); len(f) > 1 {
		access = f[len(f)-1]
	}
	swS, swMiB := "NA", "NA"
	if walls := g.walls[dir]; len(walls) > 0 {
		var secs, rate float64
		for _, sw := range walls {
			secs += sw.DurationS / float64(len(walls))
			if sw.DurationS > 0 {
				rate += sw.MeanJobBytes / sw.DurationS / (1 << 20) / float64(len(walls))
			}
		}
		swS, swMiB = fmt.Sprintf("%.2f", secs), fmt.Sprintf("%.2f", rate)
	}
	fmt.Fprintf(w, "%-9s %10s %10s %10s %10s %10s %10s %10s %10s %10s %10s %13s ",
		access, b[0], b[1], b[2], b[3], o[0], o[1], o[2], o[3], t[2], swS, swMiB)
	fmt.Fprintf(w, "%5d %6s %3s %4d %3s %5s %8s %9s %4s %6s %8s %8s %9s %3s %6d\n",
		test, "NA", "NA", len(it), "NA", "NA", "NA", "NA", "NA", "NA", "NA", xsize, aggs, "fio", 0)
}

// iorGroup is a fio job's phases: its iterations, per direction.
type iorGroup struct {
	dirs  []string
	iters map[string][]results.OpSummary
	// walls are the stonewall figures of the iterations that had one,
	// per direction (a stonewall phase's write).
	walls map[string][]*results.StonewallSummary
}

// iorGroups gathers the fio phases of a summary by suite group (a phase
// alone is its own group), keeping their order.
func iorGroups(s *results.Summary) []iorGroup {
	var out []iorGroup
	idx := map[string]int{}
	for _, ps := range s.Phases {
		if !ps.Offers(model.FormatIOR) || ps.Status != results.StatusCompleted {
			continue
		}
		key := ps.Group
		if key == "" {
			key = ps.Dir
		}
		i, ok := idx[key]
		if !ok {
			i = len(out)
			idx[key] = i
			out = append(out, iorGroup{iters: map[string][]results.OpSummary{}, walls: map[string][]*results.StonewallSummary{}})
		}
		for _, o := range ps.Ops {
			if _, seen := out[i].iters[o.Op]; !seen {
				out[i].dirs = append(out[i].dirs, o.Op)
			}
			out[i].iters[o.Op] = append(out[i].iters[o.Op], o)
			if ps.Stonewall != nil && o.Op == "write" {
				out[i].walls[o.Op] = append(out[i].walls[o.Op], ps.Stonewall)
			}
		}
	}
	return out
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
