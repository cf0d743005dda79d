package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/report"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/units"
)

// AnalyzeOptions are the flags of `storbench analyze`.
type AnalyzeOptions struct {
	Op, Host      string
	Skip, Segment string
	JSON, CSV, MD bool
	PerSecond     bool
	Out           string
	// Format prints a results folder as mdtest or IOR print a run.
	Format string
}

// AddFlags registers analyze's flags.
func (o *AnalyzeOptions) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&o.Op, "op", "", "only this operation (read, write, GET, file-create, ...)")
	f.StringVar(&o.Host, "host", "", "only this host (a client in a results folder, an endpoint in a benchdata file)")
	f.StringVar(&o.Skip, "skip", "0s", "drop this much time at the start of each operation")
	f.StringVar(&o.Segment, "segment", "1s", "length of the time segments")
	f.BoolVar(&o.JSON, "json", false, "print the analysis as JSON")
	f.BoolVar(&o.CSV, "csv", false, "print the time series CSV (one line per segment and operation)")
	f.BoolVar(&o.MD, "md", false, "print Markdown tables")
	f.BoolVar(&o.PerSecond, "per-second", false, "print a table per operation with a row per second (per --segment): ops, throughput, errors, latency mean, p50, p99, p99.9 (results folders)")
	f.StringVarP(&o.Out, "output", "o", "", "write to this file instead of stdout")
	f.StringVar(&o.Format, "output-format", "", "print a results folder as the tool named prints a run, for scripts that parse its text: ior (IOR's report of the fio phases), mdtest (md phases), json or json+ (fio's own JSON, one document per fio phase and host)")
}

func newAnalyzeCommand(st *State) *cobra.Command {
	var o AnalyzeOptions
	cmd := &cobra.Command{
		Use:   "analyze RESULT",
		Short: "Re-analyse a results folder, an s3 benchdata file or a warp file",
		Long: `Reads a results folder (fio, md or s3), an s3 benchdata file (.tsv.zst) or a
file recorded by warp (--benchdata, .csv.zst) and prints, per phase,
operation and host: throughput over the window in which every worker (host)
was running, the fastest, median and slowest time segment, latency
percentiles from merged histograms, and errors. A warp file's window is cut
as warp analyze cuts it, so its figures are the ones warp printed. --csv
prints the time series with warp's columns. --per-second prints, per
operation, one row per second (or --segment): operations, throughput and
errors of all hosts, and latency mean, p50, p99 and p99.9 from that second's
histograms merged across hosts. Files are told apart by their first line and
streamed: memory stays bounded whatever their size.`,
		Example: `  storbench analyze results/20261121T051502Z-3fa9_quick
  storbench analyze --op GET --skip 10s --segment 5s get.tsv.zst
  storbench analyze warp-get-2026-01-10.csv.zst
  storbench analyze --csv results/20261121T051502Z-3fa9_quick > series.csv
  storbench analyze --per-second --op GET results/20261121T051502Z-3fa9_quick`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAnalyze(cmd.Context(), st, o, args[0])
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func runAnalyze(_ context.Context, st *State, o AnalyzeOptions, path string) error {
	if err := checkOutput("-o/--output", o.Out); err != nil {
		return err
	}
	if o.Format != "" {
		if err := checkFieldFormat(o.Format); err != nil {
			return err
		}
		if o.JSON || o.CSV || o.MD || o.PerSecond {
			return usageErr("--output-format prints the run as IOR, mdtest or fio do: drop --json, --csv, --md and --per-second")
		}
		if err := printFieldFormat(st.Stdout, path, o.Format); err != nil {
			return asUsage(err)
		}
		return nil
	}
	skip, err := parseDur("--skip", o.Skip)
	if err != nil {
		return err
	}
	seg, err := parseDur("--segment", o.Segment)
	if err != nil {
		return err
	}
	if seg <= 0 {
		return usageErr("--segment must be positive")
	}
	n := 0
	for _, b := range []bool{o.JSON, o.CSV, o.MD} {
		if b {
			n++
		}
	}
	if n > 1 {
		return usageErr("choose one of --json, --csv, --md")
	}
	fi, err := os.Stat(path)
	if err != nil {
		return usageErr("%v", err)
	}
	folderNotes(st, path)
	opts := analyze.Options{Op: o.Op, Host: o.Host, Skip: skip, Segment: seg}
	if o.PerSecond {
		if !fi.IsDir() {
			return usageErr("--per-second reads a results folder; %s is a file", path)
		}
		return perSecond(st, o, path, opts)
	}
	a, err := analyze.Analyze(path, opts)
	switch {
	case err == nil:
	case errors.Is(err, analyze.ErrNoData):
		return usageErr("%v", err)
	case fi.IsDir():
		return asUsage(err) // results name the folder and what is missing
	default:
		return asUsage(err) // names the file and what is wrong with it
	}
	var buf bytes.Buffer
	switch {
	case o.JSON:
		err = report.AnalysisJSON(&buf, a)
	case o.CSV:
		err = report.AnalysisCSV(&buf, a)
	case o.MD:
		report.AnalysisMarkdown(&buf, a)
	default:
		report.AnalysisText(&buf, a)
	}
	if err != nil {
		return err
	}
	return writeOut(st, o.Out, buf.Bytes())
}

// perSecond is `analyze --per-second`.
func perSecond(st *State, o AnalyzeOptions, path string, opts analyze.Options) error {
	a, err := analyze.PerSecondFolder(path, opts)
	if err != nil {
		return asUsage(err) // results name the folder and what is missing
	}
	var buf bytes.Buffer
	switch {
	case o.JSON:
		err = report.PerSecondJSON(&buf, a)
	case o.CSV:
		err = report.PerSecondCSV(&buf, a)
	case o.MD:
		report.PerSecondMarkdown(&buf, a)
	default:
		report.PerSecondText(&buf, a)
	}
	if err != nil {
		return err
	}
	return writeOut(st, o.Out, buf.Bytes())
}

// writeOut writes an analysis to --output, or to stdout.
func writeOut(st *State, out string, b []byte) error {
	if out != "" {
		if err := results.WriteFile(out, b); err != nil {
			return writeErr(fmt.Errorf("%s not saved: %w", out, err))
		}
		return nil
	}
	_, err := st.Stdout.Write(b)
	return err
}

// parseDur reads a duration flag ("10s", "1m30s"): a duration needs its
// unit, as everywhere in storbench.
func parseDur(flag, s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := units.ParseDuration(s)
	if err != nil {
		return 0, usageErr("%s: %v", flag, err)
	}
	return d, nil
}
