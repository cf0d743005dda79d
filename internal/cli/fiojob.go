package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/units"
)

// FioJobOptions are fio's own options on `storbench fio`, for a one-off
// job without a job file: --rw selects this mode, and the others mean
// what they mean to fio. Left out, an option is fio's default.
type FioJobOptions struct {
	RW        string
	BS        string
	IODepth   int
	Direct    bool
	IOEngine  string
	RWMixRead int
	TimeBased bool
	// Field are fio's other options by fio's names (fieldflags.go).
	Field FioFlags
}

// fioRW are the values of fio's rw option, each with the headline its
// figures are shown by: bandwidth for sequential I/O, IOPS for random.
var fioRW = map[string]string{
	"read": "bandwidth", "write": "bandwidth", "rw": "bandwidth", "readwrite": "bandwidth", "trim": "bandwidth",
	"randread": "iops", "randwrite": "iops", "randrw": "iops", "randtrim": "iops", "trimwrite": "bandwidth", "randtrimwrite": "iops",
}

// fioJobFlags are the flags of this mode that a job file sets itself.
var fioJobFlags = []string{"bs", "iodepth", "direct", "ioengine", "rwmixread", "time-based"}

// AddFlags registers fio's option names.
func (o *FioJobOptions) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&o.RW, "rw", "", "fio's rw: run one job built from fio's options (read, write, randread, randwrite, rw, randrw, ...) instead of job files; --size and --numjobs are then fio's size and numjobs")
	f.StringVar(&o.BS, "bs", "", "fio's bs, with --rw: block size (e.g. 4k, 1M; fio's default 4k)")
	f.IntVar(&o.IODepth, "iodepth", 0, "fio's iodepth, with --rw: I/Os in flight per job (fio's default 1)")
	f.BoolVar(&o.Direct, "direct", false, "fio's direct=1, with --rw: O_DIRECT, bypassing the page cache")
	f.StringVar(&o.IOEngine, "ioengine", "", "fio's ioengine, with --rw (e.g. libaio, io_uring, psync; fio's default psync)")
	f.IntVar(&o.RWMixRead, "rwmixread", 0, "fio's rwmixread, with --rw rw or randrw: percentage of reads (fio's default 50)")
	f.BoolVar(&o.TimeBased, "time-based", false, "fio's time_based, with --rw: run for all of --runtime, going over the file again")
	nonZero(f, "iodepth", "fio's default, 1")
	zeroMeans(f, "rwmixread", "0: writes only")
	o.Field.AddFlags(f)
}

// settings builds the job from the options: the job, its name and its
// headline. runtime, size and numjobs are the fio command's own flags,
// which in this mode mean what fio means by them.
func (o FioJobOptions) settings(changed func(string) bool, runtime, size string, numjobs int) (engine.Entry, error) {
	report, ok := fioRW[o.RW]
	if !ok {
		return engine.Entry{}, usageErr("--rw %q: want one of fio's rw values (%s)", o.RW, strings.Join(sortedKeys(fioRW), ", "))
	}
	job := map[string]string{"rw": o.RW, "group_reporting": "true"}
	name := o.RW
	if o.BS != "" {
		n, err := units.ParseSize(o.BS)
		if err != nil || n < 512 || n > 1<<30 {
			return engine.Entry{}, usageErr("--bs %s: want a block size from 512 to 1G (e.g. 4k, 1M)", o.BS)
		}
		job["bs"] = strconv.FormatInt(n, 10)
		name += "-" + strings.ToLower(o.BS)
	}
	if changed("iodepth") {
		if o.IODepth < 1 || o.IODepth > 65536 {
			return engine.Entry{}, usageErr("--iodepth %d: want 1 to 65536", o.IODepth)
		}
		job["iodepth"] = strconv.Itoa(o.IODepth)
		name += fmt.Sprintf("-qd%d", o.IODepth)
	}
	if changed("direct") {
		job["direct"] = map[bool]string{true: "1", false: "0"}[o.Direct]
	}
	if o.IOEngine != "" {
		job["ioengine"] = o.IOEngine
	}
	if changed("rwmixread") {
		if o.RW != "rw" && o.RW != "readwrite" && o.RW != "randrw" {
			return engine.Entry{}, usageErr("--rwmixread is for --rw rw or randrw, not %s", o.RW)
		}
		if o.RWMixRead < 0 || o.RWMixRead > 100 {
			return engine.Entry{}, usageErr("--rwmixread %d: want a percentage, 0 to 100", o.RWMixRead)
		}
		job["rwmixread"] = strconv.Itoa(o.RWMixRead)
	}
	if size == "" {
		return engine.Entry{}, usageErr("--rw needs --size: how much each job reads or writes (fio's size, e.g. 256M)")
	}
	n, err := units.ParseSize(size)
	if err != nil || n < 4096 {
		return engine.Entry{}, usageErr("--size %s: want at least one 4 KiB block (e.g. 256M, 2G)", size)
	}
	job["size"] = strconv.FormatInt(n, 10)
	switch {
	case numjobs < 0:
		return engine.Entry{}, usageErr("--numjobs %d: want 1 or more; leave it out for fio's own, one job", numjobs)
	case numjobs > 0: // 0 is the flag left out (--numjobs 0 is refused as given)
		job["numjobs"] = strconv.Itoa(numjobs)
	}
	if runtime != "" {
		d, err := units.ParseDuration(fioSeconds(runtime))
		if err != nil || d < time.Second {
			return engine.Entry{}, usageErr("--runtime %s: want at least 1 second, as fio reads it (60: seconds; or 30s, 5m)", runtime)
		}
		job["runtime"] = strconv.FormatInt(int64(d/time.Second), 10)
	}
	if o.TimeBased {
		if runtime == "" {
			return engine.Entry{}, usageErr("--time-based needs --runtime: how long to run")
		}
		job["time_based"] = "true"
	}
	if err := o.Field.apply(job, &name); err != nil {
		return engine.Entry{}, err
	}
	opts := make(map[string]any, len(job))
	for k, v := range job {
		opts[k] = v
	}
	return engine.Entry{Name: name, Report: report, Params: map[string]any{"job": opts}}, nil
}

// refuseJobFlags refuses fio's options of this mode without --rw, where
// job files set them themselves.
func refuseJobFlags(changed func(string) bool) error {
	for _, name := range append(fioJobFlags, fioFlagNames...) {
		if changed(name) {
			return usageErr("--%s needs --rw: it builds one job from fio's options (job files and -w set %s themselves)", name, name)
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
