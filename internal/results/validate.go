package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/storbench/storbench/internal/exit"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// A results folder is read only as storbench wrote it: every reader
// (analyze, compare, report, merge, check, catalog add, serve's index)
// goes through ReadSummary and ReadHostResult, which refuse, with exit
// code 2 and one line naming the file and the figure, what no run writes:
// a negative rate, duration, latency or count, a window that ends before
// it starts, and a phase directory that is not a directory of the folder
// (a symbolic link to /etc, "../x"). A figure is never negative; such a
// file was changed by hand or damaged, and its figures would be compared,
// reported and cataloged as measured.

// lie is the refusal of a figure no run writes.
func lie(file, where, field string, v any) error {
	return exit.Errorf(exit.BadInput, "%s: %s: %s is %v, and no figure storbench writes is negative: the file was changed or is damaged", file, where, field, v)
}

// figures checks named figures, the first negative one refused.
type figures struct {
	file, where string
	err         error
}

func (f *figures) check(field string, v float64) {
	if f.err == nil && (v < 0 || math.IsNaN(v)) {
		f.err = lie(f.file, f.where, field, v)
	}
}

func (f *figures) opt(field string, v *float64) {
	if v != nil {
		f.check(field, *v)
	}
}

func (f *figures) window(field string, start, end int64) {
	if f.err == nil && end < start {
		f.err = exit.Errorf(exit.BadInput, "%s: %s: %s ends (%d) before it starts (%d): the file was changed or is damaged", f.file, f.where, field, end, start)
	}
}

// checkSummary refuses a summary.json (file, as errors name it) holding
// a figure no run writes, or a phase directory outside dir.
func checkSummary(dir, file string, s *Summary) error {
	for i := range s.Phases {
		p := &s.Phases[i]
		if err := checkPhaseDir(dir, p); err != nil {
			return err
		}
		f := &figures{file: file, where: "phase " + p.Name}
		f.opt("start_skew_s", p.StartSkewS)
		if p.Timing != nil {
			f.check("timing.prepare_s", p.Timing.PrepareS)
			f.check("timing.run_s", p.Timing.RunS)
			f.check("timing.cleanup_s", p.Timing.CleanupS)
			f.opt("timing.removal_s", p.Timing.RemovalS)
		}
		if p.Window != nil {
			f.check("window.duration_s", p.Window.DurationS)
			f.window("window", p.Window.StartNs, p.Window.EndNs)
		}
		if sw := p.Stonewall; sw != nil {
			f.check("stonewall.deadline_s", sw.DeadlineS)
			f.check("stonewall.duration_s", sw.DurationS)
			f.check("stonewall.bytes", float64(sw.Bytes))
			f.opt("stonewall.bw_bytes_per_s", sw.BwBytesPerS)
		}
		checkOps(f, p.Ops)
		for _, h := range p.PerHost {
			hf := &figures{file: file, where: "phase " + p.Name + ", host " + h.Host, err: f.err}
			hf.window("the host's window", h.StartNs, h.EndNs)
			checkOps(hf, h.Ops)
			f.err = hf.err
		}
		if f.err != nil {
			return f.err
		}
	}
	if sc := s.Score; sc != nil {
		f := &figures{file: file, where: "score"}
		f.check("bandwidth_gib_per_s", sc.BandwidthGiB)
		f.check("metadata_kiops", sc.MetadataKOps)
		f.check("score", sc.Score)
		return f.err
	}
	return nil
}

// checkOps checks operations' figures, and those of their size classes.
func checkOps(f *figures, ops []OpSummary) {
	where := f.where
	defer func() { f.where = where }()
	for _, o := range ops {
		f.where = where + ", op " + o.Op
		f.check("duration_s", o.DurationS)
		f.opt("bw_bytes_per_s", o.BwBytesPerS)
		f.opt("ops_per_s", o.OpsPerS)
		for _, l := range []struct {
			name string
			lat  *LatencySummary
		}{{"lat", o.Lat}, {"ttfb", o.TTFB}} {
			if l.lat != nil {
				f.check(l.name+".mean_ns", l.lat.MeanNs)
				f.check(l.name+".stddev_ns", l.lat.StddevNs)
				for _, v := range []int64{l.lat.MinNs, l.lat.MaxNs, l.lat.P50Ns, l.lat.P90Ns, l.lat.P99Ns, l.lat.P995Ns, l.lat.P999Ns} {
					f.check(l.name+" percentile", float64(v))
				}
			}
		}
		for _, d := range []struct {
			name string
			fig  *DoneFigure
		}{{"first_done", o.FirstDone}, {"last_done", o.LastDone}, {"common_window", o.CommonWindow}} {
			if d.fig != nil {
				f.check(d.name+".duration_s", d.fig.DurationS)
				f.check(d.name+".bytes", d.fig.Bytes)
				f.check(d.name+".ops", d.fig.Ops)
				f.opt(d.name+".bw_bytes_per_s", d.fig.BwBytesPerS)
				f.opt(d.name+".ops_per_s", d.fig.OpsPerS)
			}
		}
		if r := o.Rate; r != nil {
			for _, v := range append([]float64{r.Max, r.Min, r.Mean, r.Stddev}, r.PerIter...) {
				f.check("rate", v)
			}
		}
		checkOps(f, o.BySize)
	}
}

// checkPhaseDir refuses a phase whose directory is not one of the
// folder's own: a name that leaves it, or a symbolic link or other file
// where its directory is (the phase's files would be read from wherever
// it leads). A phase that never ran may have none.
func checkPhaseDir(dir string, p *PhaseSummary) error {
	if p.Dir == "" && len(p.PerHost) == 0 {
		return nil
	}
	if p.Dir == "" || p.Dir == "." || p.Dir == ".." || strings.ContainsAny(p.Dir, "/\\\x00") {
		return exit.Errorf(exit.BadInput, "%s: phase %s: its directory %q is not a directory of the results folder: the file was changed or is damaged",
			filepath.Join(dir, "summary.json"), p.Name, p.Dir)
	}
	path := filepath.Join(dir, p.Dir)
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // its hosts' files are missing: ReadHostResult says so
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		to, _ := os.Readlink(path)
		return exit.Errorf(exit.BadInput, "%s is a symbolic link (to %s), not a directory of the results folder: storbench reads a phase's files only from inside its folder (was the folder changed?)", path, to)
	case !fi.IsDir():
		return exit.Errorf(exit.BadInput, "%s is not a directory: phase %s's files cannot be read", path, p.Name)
	}
	return nil
}

// checkHostResult refuses a host's result.json (file) holding a figure
// no run writes.
func checkHostResult(file string, h *model.HostResult) error {
	f := &figures{file: file}
	for _, o := range h.Ops {
		f.where = "op " + o.Op
		f.window("the operation's window", o.StartNs, o.EndNs)
		f.check("reported_bw_bytes_per_s", o.ReportedBwBytesPerS)
		f.check("reported_ops_per_s", o.ReportedOpsPerS)
		checkHist(f, "lat", o.Lat)
		if o.TTFB != nil {
			checkHist(f, "ttfb", *o.TTFB)
		}
		for _, it := range o.Iterations {
			f.window("an iteration's window", it.StartNs, it.EndNs)
		}
	}
	for _, s := range h.Series {
		f.where = "series of " + s.Op
		f.window("an interval", s.StartNs, s.EndNs)
	}
	return f.err
}

// checkHist checks a histogram's statistics and bins.
func checkHist(f *figures, name string, h record.Hist) {
	f.check(name+" mean", h.Stats.Mean)
	f.check(name+" min", float64(h.Stats.Min))
	f.check(name+" max", float64(h.Stats.Max))
	for _, b := range h.Bins {
		f.check(name+" bin", float64(b.V))
	}
}

// damaged says in the user's words why a JSON file of the folder could
// not be read, instead of Go's parser text: where it stops being JSON,
// or which field holds what kind of value.
func damaged(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn) && strings.Contains(syn.Error(), "unexpected end"):
		return "cut short: it ends in the middle of its JSON"
	case errors.As(err, &syn):
		return fmt.Sprintf("not JSON at byte %d", syn.Offset)
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Sprintf("%s holds a JSON %s where storbench writes %s", typ.Field, typ.Value, kindOf(typ.Type.Kind().String()))
	case errors.As(err, &typ):
		return fmt.Sprintf("a JSON %s where storbench writes %s", typ.Value, kindOf(typ.Type.Kind().String()))
	}
	return err.Error()
}

// kindOf names a Go kind in JSON's words.
func kindOf(k string) string {
	switch {
	case strings.HasPrefix(k, "int") || strings.HasPrefix(k, "uint"):
		return "a whole number"
	case strings.HasPrefix(k, "float"):
		return "a number"
	case k == "string":
		return "a string"
	case k == "bool":
		return "true or false"
	case k == "slice" || k == "array":
		return "a list"
	case k == "map" || k == "struct" || k == "ptr":
		return "an object"
	}
	return "another kind of value"
}
