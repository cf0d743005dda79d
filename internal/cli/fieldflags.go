package cli

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/units"
)

// This file holds the flags that carry the field's tools' names and
// letters as their users type them (mdtest's on md, fio's on fio), apart
// from each command's own, with the rule for each: a flag that carries a
// tool's name takes the tool's values as the tool reads them; a letter
// that means something else in storbench is refused in one line naming
// the clash. cmd_md.go and cmd_fio.go call AddFlags and apply.

// MdtestFlags are mdtest's letters that `storbench md` takes besides the
// ones MdOptions shares with mdtest (-n -i -z -b -F -D -u -W -R -Y -y -w -e
// -X -N -d).
type MdtestFlags struct {
	// Create, Stat, Read and Remove are -C, -T, -E and -r: run only those
	// operations (--only create, stat, read, remove).
	Create, Stat, Read, Remove bool
	// PerDir is -I: items per directory of the tree; -n is then that
	// times the tree's directories.
	PerDir int64
	// Leaf is -L: items only in the tree's leaves, which with -z 0 (the
	// one directory) is where storbench puts them.
	Leaf bool
	// RateAndTime is -P: storbench's summary has rates and times always.
	RateAndTime bool
	// Mknod (-k), StatusFile (-x) and API (-a) are refused but for -a
	// POSIX: see apply.
	Mknod      bool
	StatusFile string
	API        string
}

// AddFlags registers mdtest's letters.
func (m *MdtestFlags) AddFlags(f *pflag.FlagSet) {
	f.BoolVarP(&m.Create, "create-only", "C", false, "as mdtest -C: only the create operations (--only create; with -T, -E, -r: those too)")
	f.BoolVarP(&m.Stat, "stat-only", "T", false, "as mdtest -T: only stat (--only stat)")
	f.BoolVarP(&m.Read, "read-only", "E", false, "as mdtest -E: only read (--only read)")
	f.BoolVarP(&m.Remove, "remove-only", "r", false, "as mdtest -r: only the remove operations (--only remove)")
	f.Int64VarP(&m.PerDir, "items-per-dir", "I", 0, "as mdtest -I: items per directory of the tree; -n becomes this times the tree's directories (give -n or -I)")
	f.BoolVarP(&m.Leaf, "leaf-only", "L", false, "as mdtest -L: items only in the tree's leaves; with -z 0 (the one directory) they are there already, and storbench refuses it with -z above 0, where it spreads items over every directory")
	f.BoolVarP(&m.RateAndTime, "rate-and-time", "P", false, "as mdtest -P: accepted; storbench's summary gives every operation's rate and time always")
	f.BoolVarP(&m.Mknod, "mknod", "k", false, "mdtest -k (mknod instead of creating files) is refused: storbench md creates files with open(2)")
	f.StringVarP(&m.StatusFile, "stonewall-status-file", "x", "", "mdtest -x (the stonewall status file) is refused: storbench carries a stonewall's count between the md phases of one run (a suite's tree:), never through a file")
	f.StringVarP(&m.API, "api", "a", "", "as mdtest -a: POSIX (the only one: storbench md makes POSIX calls)")
	nonZero(f, "items-per-dir", "")
}

// apply turns mdtest's letters into o's settings, or refuses them in one
// line; changed tells the flags given.
func (m MdtestFlags) apply(o *MdOptions, changed func(string) bool) error {
	switch {
	case m.Mknod:
		return usageErr("-k (mdtest's mknod): storbench md creates files with open(2), as mdtest without -k: drop -k")
	case m.StatusFile != "":
		return usageErr("-x %s (mdtest's stonewall status file): storbench md carries a stonewall's count from the create to the later md phases of one run (a suite's tree:), never through a file: drop -x", m.StatusFile)
	case m.API != "" && !strings.EqualFold(m.API, "POSIX"):
		return usageErr("-a %s: storbench md makes POSIX calls only (mdtest's -a POSIX): drop -a or give POSIX", m.API)
	case m.Leaf && o.Depth > 0:
		return usageErr("-L with -z %d: storbench md spreads items over every directory of its tree, not only the leaves: drop -L, or -z", o.Depth)
	}
	for _, op := range []struct {
		on   bool
		name string
	}{{m.Create, "create"}, {m.Stat, "stat"}, {m.Read, "read"}, {m.Remove, "remove"}} {
		if op.on && !slices.Contains(o.Only, op.name) {
			o.Only = append(o.Only, op.name)
		}
	}
	if changed("items-per-dir") {
		if changed("items") {
			return usageErr("-n and -I both say how many items: give -n (per worker) or -I (per directory of the tree)")
		}
		dirs, level := int64(1), int64(1)
		for range o.Depth {
			level *= int64(max(o.Branch, 1))
			dirs += level
		}
		o.Items = m.PerDir * dirs
	}
	// -W is both mdtest's letter and storbench's --stonewall, which
	// cannot tell which the user typed: a bare number is refused naming
	// both readings rather than guessed.
	if n, err := strconv.ParseUint(o.Stonewall, 10, 32); err == nil && n > 0 {
		return usageErr("-W/--stonewall %s: mdtest's -W counts whole seconds, storbench's takes a duration with its unit: give %ss", o.Stonewall, o.Stonewall)
	}
	return nil
}

// mdtestT is the refusal of mdtest's -t.
const mdtestT = "storbench's -t is workers per host, a number; mdtest's -t (time the unique working directories, no value) has no storbench meaning: drop it (docs/md.md)"

// workersValue is md's -t: workers per host, a number. mdtest's -t (time
// the unique working directories' creation) takes no value, so a -t
// before another flag, as in IO500's mdtest-hard line, would take that
// flag as its number: that is refused naming the clash.
type workersValue struct{ n *int }

func (v workersValue) String() string { return strconv.Itoa(*v.n) }

func (v workersValue) Type() string { return "workers" }

func (v workersValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		if strings.HasPrefix(s, "-") {
			return errors.New(mdtestT)
		}
		return fmt.Errorf("want a whole number of workers per host")
	}
	*v.n = n
	return nil
}

// mdtestWorkers makes md's -t, registered as the engine declares it
// (settingFlags), read its number as workersValue does, n being where it
// goes: mdtest's -t is refused naming the clash.
func mdtestWorkers(f *pflag.FlagSet, n *int) {
	t := f.ShorthandLookup("t")
	if t == nil {
		panic("md declares no -t") // the engine's flags renamed
	}
	t.Value = workersValue{n}
}

// FioFlags are fio's options that `storbench fio` takes by fio's names
// besides FioJobOptions' (--rw --bs --iodepth --direct --ioengine
// --rwmixread --time_based) and the command's own --runtime, --size and
// --numjobs, which in --rw mode mean what they mean to fio.
type FioFlags struct {
	// Name is fio's --name: the job's name.
	Name string
	// Filename is fio's --filename: one file all jobs share, under DIR.
	Filename string
	// GroupReporting is fio's --group_reporting: storbench reports a
	// job's processes together always.
	GroupReporting bool
	// Rate and RateIOPS are fio's --rate and --rate_iops, as fio reads
	// them (bytes per second, or "read,write").
	Rate, RateIOPS string
}

// AddFlags registers fio's names.
func (ff *FioFlags) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&ff.Name, "name", "", "fio's --name, with --rw: the job's name (default: from --rw, --bs and --iodepth)")
	f.StringVar(&ff.Filename, "filename", "", "fio's --filename, with --rw: one file all jobs share, under DIR (default: a file per job)")
	f.BoolVar(&ff.GroupReporting, "group_reporting", false, "fio's --group_reporting: accepted; storbench reports a job's processes together always (and every host's, with per-host figures kept)")
	f.StringVar(&ff.Rate, "rate", "", "fio's --rate, with --rw: cap each job's bandwidth, as fio reads it (e.g. 100m, or 100m,50m for reads and writes)")
	f.StringVar(&ff.RateIOPS, "rate_iops", "", "fio's --rate_iops, with --rw: cap each job's IOPS, as fio reads it (e.g. 500, or 500,200 for reads and writes)")
}

// fioFlagNames are the flags of FioFlags that build the job, for the
// check that they come with --rw.
var fioFlagNames = []string{"name", "filename", "rate", "rate_iops"}

// apply adds the options to job, fio's options of the one job --rw
// builds, checking each value as fio would read it; name is the job's
// name, which --name replaces.
func (ff FioFlags) apply(job map[string]string, name *string) error {
	if ff.Name != "" {
		if !jobName.MatchString(ff.Name) {
			return usageErr("--name %q: want letters, digits and . _ - (a job's name names its files)", ff.Name)
		}
		*name = ff.Name
	}
	if ff.Filename != "" {
		if strings.ContainsAny(ff.Filename, "\n\r:") || strings.Contains(ff.Filename, "..") || strings.HasPrefix(ff.Filename, "/") {
			return usageErr("--filename %q: want a file name under DIR (no /, .., : or line break at its start)", ff.Filename)
		}
		job["filename"] = ff.Filename
	}
	for _, r := range []struct{ flag, key, val string }{{"--rate", "rate", ff.Rate}, {"--rate_iops", "rate_iops", ff.RateIOPS}} {
		if r.val == "" {
			continue
		}
		for _, part := range strings.Split(r.val, ",") {
			if part == "" {
				continue
			}
			if n, err := units.ParseSize(part); err != nil || n <= 0 {
				return usageErr("%s %s: want a positive %s as fio reads it (e.g. %s), or two for reads and writes (r,w)", r.flag, r.val,
					map[string]string{"rate": "bytes per second", "rate_iops": "count per second"}[r.key], map[string]string{"rate": "100m", "rate_iops": "500"}[r.key])
			}
		}
		job[r.key] = r.val
	}
	return nil
}

// jobName is what --name takes: a job's name names its files.
var jobName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// fioSeconds reads a time as fio does: a bare number is seconds; a
// duration with its unit is left as it is.
func fioSeconds(s string) string {
	if n, err := strconv.ParseFloat(s, 64); err == nil && n > 0 {
		return s + "s"
	}
	return s
}

// fieldFlagHint says what a flag error means to a user of the field's
// tools, or "": md's -t last on the line, with no number after it, is
// mdtest's -t.
func fieldFlagHint(c *cobra.Command, err error) string {
	if c.Name() == "md" && strings.Contains(err.Error(), "flag needs an argument: 't' in -t") {
		return mdtestT
	}
	return ""
}
