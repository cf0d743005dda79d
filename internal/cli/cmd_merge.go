package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/units"
)

func newMergeCommand(st *State) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge A B ... -o OUT",
		Short: "Combine results recorded separately on several clients into one",
		Long: `Combines results folders of runs started by hand on several clients at the
same time into one results folder, as if one run had used every client.
Phases are matched by name; each keeps only the time in which every client was
running (throughput totals are what was done inside it), histograms are added
so percentiles stay exact, and every host's own result is kept. The same run
given twice, one host in a phase of two results, or a result with no phase in
common with the others is refused: each would count a client twice or merge
nothing.`,
		Example: `  storbench merge client1/results/RUN client2/results/RUN -o merged`,
		Args:    cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMerge(cmd.Context(), st, out, args)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the merged results folder to create (must not exist)")
	needed(cmd.Flags(), "output", "the merged results folder to create")
	return cmd
}

func runMerge(_ context.Context, st *State, out string, inputs []string) error {
	if out == "" {
		return usageErr("merge: -o OUT is required")
	}
	if _, err := os.Stat(out); err == nil {
		return usageErr("merge: %s already exists", out)
	}
	folderNotes(st, inputs...)
	parent := filepath.Dir(filepath.Clean(out))
	var u *results.UnsavedError
	f, err := analyze.Merge(inputs, analyze.MergeOptions{Root: parent, Now: st.Now(), CommandLine: st.recordedArgs(),
		Setup: func(f *results.Folder) { f.Renderers = st.renderers() }})
	if err != nil {
		if f != nil {
			f.Remove()
		}
		if errors.As(err, &u) {
			return fmt.Errorf("merge: %v", u.Err) // a full disk: nothing was left behind
		}
		return asUsage(err)
	}
	// As a run does: a file that cannot be rendered is said and the
	// merge stands; one that cannot be written leaves nothing behind.
	for _, err := range f.RenderFinal() {
		st.logf(0, "%v", err)
	}
	if errors.As(f.Unsaved(), &u) {
		f.Remove()
		return fmt.Errorf("merge: %s not saved: %v", strings.Join(u.Files, ", "), u.Err)
	}
	if err := os.Rename(f.Path, out); err != nil {
		return err
	}
	sum := f.Summary()
	for i := range sum.Phases {
		ps := &sum.Phases[i]
		fmt.Fprintf(st.Stdout, "%s (%d hosts", ps.Name, len(ps.Hosts))
		if ps.Window != nil {
			fmt.Fprintf(st.Stdout, ", %.1f s in common", ps.Window.DurationS)
		}
		fmt.Fprintln(st.Stdout, "):")
		for _, o := range ps.Ops {
			// Only what was measured: no byte throughput for operations
			// that move no bytes, no latency a job did not record.
			var parts []string
			if o.BwBytesPerS != nil {
				parts = append(parts, units.Bandwidth(*o.BwBytesPerS))
			}
			if o.OpsPerS != nil {
				parts = append(parts, units.Rate(*o.OpsPerS, "ops/s"))
			}
			if o.Lat != nil {
				parts = append(parts, "p99 "+units.Latency(float64(o.Lat.P99Ns)))
			} else {
				parts = append(parts, "latency not recorded")
			}
			fmt.Fprintf(st.Stdout, "    %s: %s\n", o.Op, strings.Join(parts, ", "))
		}
	}
	fmt.Fprintf(st.Stdout, "merged %d results into %s\n", len(inputs), out)
	return nil
}
