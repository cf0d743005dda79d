package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/safetext"
)

// IORText writes the fio phases of a run as IOR 4.x prints a run: its
// header (the "IOR-<version>:" line, Began, Command line, Machine), then
// per test (a fio job: its phases are its iterations) TestID, StartTime,
// Path, the "Options:" block and the "Results:" table of one row per
// direction per iteration, then the "Summary of all tests" table and the
// Finished line. A task is a fio job on one host, so tasks are hosts x
// numjobs and IOR's API is the job's ioengine; a task's block is what it
// moved in an iteration, in one segment. IOR's FS line is left out
// (storbench does not record the file system's size), and what fio does
// not measure apart (open and close times) is "-", as IOR prints a time
// it did not take; fields a job file does not tell (numjobs given as a
// variable) are NA.
//
// The summary's stonewall columns: a write with a stonewall gets the mean
// time to the deadline (Stonewall(s)) and the mean bytes per job by then
// over it, in MiB/s (Stonewall(MiB), as IOR computes it); NA otherwise.
func IORText(w io.Writer, run *model.RunInfo, s *results.Summary) error {
	groups := iorGroups(s)
	if len(groups) == 0 {
		return fmt.Errorf("--output-format ior: the run has no fio phase")
	}
	jobs := planJobs(run)
	run, s = safetext.Copy(run), safetext.Copy(s)
	fmt.Fprintf(w, "IOR-storbench-%s: MPI Coordinated Test of Parallel I/O\n", run.Versions.Storbench)
	iorKV(w, "Began", iorTime(s.StartedAt))
	iorKV(w, "Command line", strings.Join(run.CommandLine, " "))
	iorKV(w, "Machine", strings.TrimSpace("Linux "+firstHost(groups)))
	for test := range groups {
		g := &groups[test]
		g.shape = jobs[g.phase]
		iorTestHead(w, test, g, run, s)
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
	end := s.EndedAt
	for _, g := range groups {
		if g.endNs > 0 && time.Unix(0, g.endNs).After(end) {
			end = time.Unix(0, g.endNs)
		}
	}
	iorKV(w, "Finished", iorTime(end))
	return nil
}

// iorTestHead writes a test's lines before the summary: TestID to the
// Results table.
func iorTestHead(w io.Writer, test int, g *iorGroup, run *model.RunInfo, s *results.Summary) {
	iorKV(w, "TestID", fmt.Sprint(test))
	start := s.StartedAt
	if g.startNs > 0 {
		start = time.Unix(0, g.startNs)
	}
	iorKV(w, "StartTime", iorTime(start))
	path := g.shape.dir
	if len(run.Targets) > 0 {
		path = run.Targets[0].Dir
	}
	iorKV(w, "Path", safetext.Escape(path))
	fmt.Fprintf(w, "\nOptions: \n")
	sh := g.shapeOf(g.dirs[0])
	iorKV(w, "api", sh.api)
	iorKV(w, "apiVersion", run.Versions.Fio)
	iorKV(w, "test filename", sh.testFile())
	iorKV(w, "access", map[bool]string{true: "file-per-process", false: "single-shared-file"}[sh.filename == ""])
	iorKV(w, "type", "independent")
	iorKV(w, "segments", "1")
	iorKV(w, "ordering in a file", map[bool]string{true: "random", false: "sequential"}[sh.random])
	iorKV(w, "ordering inter file", "no tasks offsets")
	iorKV(w, "nodes", fmt.Sprint(g.hosts))
	iorKV(w, "tasks", g.tasksCell(sh))
	iorKV(w, "clients per node", cellOr(sh.jobs))
	iorKV(w, "memoryBuffer", "CPU")
	iorKV(w, "dataAccess", "CPU")
	iorKV(w, "GPUDirect", "0")
	iorKV(w, "repetitions", fmt.Sprint(len(g.iters[g.dirs[0]])))
	xfer, block := g.sizes(g.dirs[0])
	iorKV(w, "xfersize", iorHuman(xfer))
	iorKV(w, "blocksize", iorHuman(block))
	agg := int64(-1)
	if t := g.tasks(sh); t > 0 && block >= 0 {
		agg = block * int64(t)
	}
	iorKV(w, "aggregate filesize", iorHuman(agg))
	if walls := g.walls["write"]; len(walls) > 0 {
		iorKV(w, "stonewallingTime", fmt.Sprintf("%.0f", walls[0].DeadlineS))
		iorKV(w, "stoneWallingWearOut", "1")
	}
	fmt.Fprintf(w, "\nResults: \n\n")
	fmt.Fprintf(w, "access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    wr/rd(s)   close(s)   total(s)   iter\n")
	fmt.Fprintf(w, "------    ---------  ----       ----------  ---------- ---------  --------   --------   --------   --------   ----\n")
	reps := 0
	for _, d := range g.dirs {
		reps = max(reps, len(g.iters[d]))
	}
	for rep := range reps {
		for _, d := range g.dirs {
			if rep < len(g.iters[d]) {
				g.iterRow(w, d, rep)
			}
		}
	}
}

// iterRow writes one direction of one iteration of the Results table.
func (g *iorGroup) iterRow(w io.Writer, dir string, rep int) {
	o := g.iters[dir][rep]
	xfer, block := g.sizes(dir)
	cell := func(v float64, ok bool) string {
		if !ok {
			return "   -      "
		}
		prec := 0
		switch {
		case v < 1:
			prec = 6
		case v < 3600:
			prec = 2
		}
		return fmt.Sprintf("%-10.*f", prec, v)
	}
	var bw, iops, lat float64
	if o.BwBytesPerS != nil {
		bw = *o.BwBytesPerS / (1 << 20)
	}
	if o.OpsPerS != nil {
		iops = *o.OpsPerS
	}
	if o.Lat != nil {
		lat = o.Lat.MeanNs / 1e9
	}
	fmt.Fprintf(w, "%-10s%s %s %s  %s %s %s %s %s %s %-4d\n", direction(dir),
		cell(bw, o.BwBytesPerS != nil), cell(iops, o.OpsPerS != nil), cell(lat, o.Lat != nil),
		cell(float64(block)/1024, block >= 0), cell(float64(xfer)/1024, xfer >= 0),
		cell(0, false), cell(o.DurationS, true), cell(0, false), cell(o.DurationS, true), rep)
}

// iorRow writes one direction of one test of the summary.
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
	xfer, block := g.sizes(dir)
	xsize, blksiz, aggs := "NA", "NA", "NA"
	if xfer >= 0 {
		xsize = fmt.Sprint(xfer)
		var bytes uint64
		for _, x := range it {
			bytes += x.Bytes
		}
		aggs = fmt.Sprintf("%.1f", float64(bytes)/float64(len(it))/(1<<20))
	}
	if block >= 0 {
		blksiz = fmt.Sprint(block)
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
	sh := g.shapeOf(dir)
	fpp := map[bool]string{true: "1", false: "0"}[sh.filename == ""]
	fmt.Fprintf(w, "%-9s %10s %10s %10s %10s %10s %10s %10s %10s %10s %10s %13s ",
		direction(dir), b[0], b[1], b[2], b[3], o[0], o[1], o[2], o[3], t[2], swS, swMiB)
	fmt.Fprintf(w, "%5d %6s %3s %4d %3s %5d %8d %9d %4d %6d %8s %8s %9s %3s %6d\n",
		test, g.tasksCell(sh), cellOr(sh.jobs), len(it), fpp, 0, 1, 0, 0, 1, blksiz, xsize, aggs, sh.api, 0)
}

// direction is IOR's name of an operation: fio's direction; a fio file
// of several job groups names its operations "<job> read".
func direction(op string) string {
	if f := strings.Fields(op); len(f) > 1 {
		return f[len(f)-1]
	}
	return op
}

// iorGroup is a fio job's phases: its iterations, per direction.
type iorGroup struct {
	dirs  []string
	iters map[string][]results.OpSummary
	// walls are the stonewall figures of the iterations that had one,
	// per direction (a stonewall phase's write).
	walls map[string][]*results.StonewallSummary
	// phase is the name of its first phase, hosts how many hosts ran it,
	// startNs and endNs the first host's start and the last one's end
	// (Unix ns; 0 when not known).
	phase          string
	hosts          int
	host           string
	startNs, endNs int64
	shape          fioJob
}

// shapeOf is the job section that did dir's operations.
func (g *iorGroup) shapeOf(dir string) fioSection { return g.shape.section(dir) }

// tasks is IOR's task count of a section's operations: hosts x numjobs,
// 0 when numjobs is not known.
func (g *iorGroup) tasks(sh fioSection) int {
	if sh.jobs <= 0 {
		return 0
	}
	return g.hosts * sh.jobs
}

func (g *iorGroup) tasksCell(sh fioSection) string { return cellOr(g.tasks(sh)) }

// sizes are dir's transfer size (bytes per operation) and block (bytes a
// task moved in an iteration), each -1 when not known.
func (g *iorGroup) sizes(dir string) (xfer, block int64) {
	xfer, block = -1, -1
	var bytes, count uint64
	it := g.iters[dir]
	for _, x := range it {
		bytes, count = bytes+x.Bytes, count+x.Ops
	}
	if bytes == 0 || count == 0 {
		return xfer, block
	}
	xfer = int64(bytes / count)
	if t := g.tasks(g.shapeOf(dir)); t > 0 {
		block = int64(bytes / uint64(len(it)) / uint64(t))
	}
	return xfer, block
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
			out = append(out, iorGroup{iters: map[string][]results.OpSummary{}, walls: map[string][]*results.StonewallSummary{},
				phase: ps.Name, hosts: len(ps.Hosts)})
			if len(ps.Hosts) > 0 {
				out[i].host = ps.Hosts[0]
			}
		}
		g := &out[i]
		for _, h := range ps.PerHost {
			if h.StartNs > 0 && (g.startNs == 0 || h.StartNs < g.startNs) {
				g.startNs = h.StartNs
			}
			g.endNs = max(g.endNs, h.EndNs)
		}
		for _, o := range ps.Ops {
			if _, seen := g.iters[o.Op]; !seen {
				g.dirs = append(g.dirs, o.Op)
			}
			g.iters[o.Op] = append(g.iters[o.Op], o)
			if ps.Stonewall != nil && direction(o.Op) == "write" {
				g.walls[o.Op] = append(g.walls[o.Op], ps.Stonewall)
			}
		}
	}
	return out
}

func firstHost(groups []iorGroup) string {
	for _, g := range groups {
		if g.host != "" {
			return safetext.Escape(g.host)
		}
	}
	return ""
}

// iorKV writes one of IOR's "key : value" lines.
func iorKV(w io.Writer, key, value string) { fmt.Fprintf(w, "%-20s: %s\n", key, value) }

// iorTime is IOR's time of day (C's ctime, without its newline).
func iorTime(t time.Time) string { return t.Local().Format("Mon Jan _2 15:04:05 2006") }

// iorHuman writes a size as IOR does: whole or to two places in the
// largest of TiB, GiB and MiB it reaches, else in bytes; "-" for unknown.
func iorHuman(v int64) string {
	if v < 0 {
		return "-"
	}
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}} {
		if v < u.size {
			continue
		}
		if v%u.size == 0 {
			return fmt.Sprintf("%d %s", v/u.size, u.name)
		}
		return fmt.Sprintf("%.2f %s", float64(v)/float64(u.size), u.name)
	}
	return fmt.Sprintf("%d bytes", v)
}

// cellOr is n, or NA when it is not known (0).
func cellOr(n int) string {
	if n <= 0 {
		return "NA"
	}
	return fmt.Sprint(n)
}
