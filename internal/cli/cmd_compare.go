package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/report"
	"github.com/storbench/storbench/internal/stats"
)

// maxFailCode is the highest --fail-code: the last exit status the shell
// gives no meaning of its own.
const maxFailCode = 125

// CompareOptions are the flags of `storbench compare`.
type CompareOptions struct {
	Threshold  float64
	Confidence float64
	FailCode   int
	JSON, MD   bool
	// A and B, when given, compare groups of the catalog's runs (query
	// terms) instead of two results.
	A, B    []string
	Catalog CatalogOptions
}

// AddFlags registers compare's flags.
func (o *CompareOptions) AddFlags(f *pflag.FlagSet) {
	f.Float64Var(&o.Threshold, "threshold", 5, "smallest change (percent) called faster or slower")
	f.Float64Var(&o.Confidence, "confidence", 100*stats.DefaultConfidence, "confidence of the tests, in percent")
	f.IntVar(&o.FailCode, "fail-code", 0, "exit with this code (1-125; 3 and up are told apart from storbench's own 1 and 2) when a figure got slower (0: never)")
	f.BoolVar(&o.JSON, "json", false, "print the comparison as JSON")
	f.BoolVar(&o.MD, "md", false, "print Markdown tables")
	f.StringArrayVar(&o.A, "a", nil, "compare groups of runs in the catalog: the before group, as query terms (label=tuning=default; see storbench runs)")
	f.StringArrayVar(&o.B, "b", nil, "the after group of runs in the catalog, as query terms (label=tuning=tuned)")
	o.Catalog.AddFlags(f)
}

func newCompareCommand(st *State) *cobra.Command {
	var o CompareOptions
	cmd := &cobra.Command{
		Use:   "compare BEFORE AFTER | compare --a QUERY --b QUERY",
		Short: "Differences between two results, with a verdict on whether each is beyond noise",
		Long: `For every phase and operation present in both results folders: throughput,
ops/s, and latency mean, p50, p99 and p99.9 before -> after, with the absolute
and relative change and a verdict: faster, slower, within noise, or untested
(too few samples). Throughput is tested with Welch's t-test on batch means of
the per-second series (or across iterations where a phase has several).
Latency mean and percentiles are tested by a circular block bootstrap over
seconds of the per-second histograms, so that a run whose latency wanders is
not called slower by chance: each side's figure gets an interval from
resampled blocks of seconds, and the change is significant when the
intervals do not overlap. Results without per-second histograms fall back to
tests that take requests as independent (Welch's t-test, distribution-free
intervals), and say so. Each verdict names its test. A change is called
faster or slower only if the test says so and it exceeds --threshold.
Settings that differ between the runs are listed. Either side can be an s3
benchdata file or a file recorded by warp (.csv.zst), so a warp history
compares with storbench runs: the file is compared with every s3 phase of
the other side that has an operation in common, its figures those analyze
gives it.

With --a and --b, compares two groups of the catalog's runs instead, through
the one test check gives its verdict by, so both judge the same groups alike:
each run is one value of every figure, tested with Student's t on the runs'
pooled spread, one-sided, Bonferroni over the figures tested (against one run,
check's prediction bound). One run on each side is compared as two results
folders are.`,
		Example: `  storbench compare results/before results/after
  storbench compare --threshold 3 --fail-code 3 results/nightly-1 results/nightly-2
  storbench compare warp-get-2026-01-10.csv.zst results/20261121T051502Z-3fa9_s3-get
  storbench compare --a label=tuning=default --b label=tuning=tuned`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(o.A) > 0 || len(o.B) > 0 {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.ExactArgs(2)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(o.A) > 0 || len(o.B) > 0 {
				return runCompareGroups(cmd.Context(), st, o)
			}
			return runCompare(cmd.Context(), st, o, args[0], args[1])
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// checkConfidence checks a --confidence percentage, the same for compare's
// tests and run's sweep intervals.
func checkConfidence(pct float64) error {
	if !stats.ValidConfidence(pct / 100) {
		return usageErr("--confidence %.4g: want a percentage between 50 and 100", pct)
	}
	return nil
}

func (o CompareOptions) check() error {
	if err := checkConfidence(o.Confidence); err != nil {
		return err
	}
	if o.Threshold < 0 {
		return usageErr("--threshold must not be negative")
	}
	if o.JSON && o.MD {
		return usageErr("choose one of --json, --md")
	}
	// An exit status is 8 bits (256 would read as success) and the shell
	// reserves 126 and above (126 not executable, 127 not found, 128+N
	// killed by signal N), so a CI pipeline could not tell them apart.
	if o.FailCode < 0 || o.FailCode > maxFailCode {
		return usageErr("--fail-code %d: want 1 to %d (126 and above are the shell's own codes), or 0 for never", o.FailCode, maxFailCode)
	}
	return nil
}

func runCompare(_ context.Context, st *State, o CompareOptions, before, after string) error {
	if err := o.check(); err != nil {
		return err
	}
	folderNotes(st, before, after)
	c, err := analyze.ComparePaths(before, after, analyze.CompareOptions{ThresholdPct: o.Threshold, Alpha: 1 - o.Confidence/100})
	if err != nil {
		return asUsage(err)
	}
	return o.show(st, c, before, after)
}

// show prints a comparison as the options ask, and gives its exit code.
func (o CompareOptions) show(st *State, c *analyze.Comparison, before, after string) error {
	// Refused before a line is printed: unrelated runs printed every
	// setting that differed (57 lines) and then the refusal.
	if len(c.Phases) == 0 {
		return usageErr("%s and %s have no phase in common: nothing to compare (phases are matched by name)", before, after)
	}
	switch {
	case o.JSON:
		b, err := json.MarshalIndent(c, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(st.Stdout, "%s\n", b)
	case o.MD:
		report.CompareMarkdown(st.Stdout, c)
	default:
		report.CompareText(st.Stdout, c)
	}
	if o.FailCode != 0 && c.Slower() {
		return &ExitError{Code: o.FailCode, Err: fmt.Errorf("slower beyond %.1f%%: see the figures marked slower", o.Threshold)}
	}
	return nil
}
