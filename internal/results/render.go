package results

import (
	"fmt"
)

// A Renderer makes one file of a results folder from what the folder holds
// (summary.md, sweep.tsv, report.html). run, merge and report are given the
// same list, so a folder holds the same rendered files whichever of them
// wrote it, and a new file is one entry in that list.
type Renderer struct {
	// File is the file's name in the results folder.
	File string
	// Final renderers read the folder's raw data (report.html reads every
	// host's seconds): they render once, when the folder is finished. The
	// others render from the summary after every phase, so a run stopped
	// half-way keeps them up to date.
	Final bool
	// Render returns the file, or nil when the folder has nothing for it
	// (a run without sweeps has no sweep.tsv).
	Render func(in *RenderInput) ([]byte, error)
}

// RenderInput is what a Renderer reads.
type RenderInput struct {
	// Dir is the results folder.
	Dir string
	// Summary is the folder's summary.json as it stands.
	Summary *Summary
	// Before is another results folder to compare with, "" for none
	// (report's BEFORE).
	Before string
	// Share, when set, says a figure (phase, op, figure name, value) as
	// a share of a vendor's claim ("50% of seq_read_bw"), "" where no
	// claim applies (report --spec).
	Share func(phase, op, figure string, value float64) string
}

// FromSummary makes a Renderer's Render of a function of the summary alone.
func FromSummary(render func(*Summary) []byte) func(*RenderInput) ([]byte, error) {
	return func(in *RenderInput) ([]byte, error) { return render(in.Summary), nil }
}

// renderLive writes the files of the renderers that are not Final from
// sum; it says whether a write failed (Unsaved names it). A renderer that
// fails keeps its last file: the final rendering tells why.
func (f *Folder) renderLive(sum *Summary) (failed bool) {
	for _, r := range f.Renderers {
		if r.Final {
			continue
		}
		b, err := r.Render(&RenderInput{Dir: f.Path, Summary: sum})
		if err != nil || len(b) == 0 {
			continue
		}
		failed = f.Save(r.File, b) != nil || failed
	}
	return failed
}

// RenderFinal writes the files of the Final renderers from the folder as
// it now stands (call it after Finish). A file that cannot be rendered is
// returned as an error naming it, one per file, and never stops the
// others; a file that cannot be written is listed by Unsaved.
func (f *Folder) RenderFinal() []error {
	sum := f.Summary()
	var errs []error
	for _, r := range f.Renderers {
		if !r.Final {
			continue
		}
		b, err := r.Render(&RenderInput{Dir: f.Path, Summary: &sum})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", r.File, err))
			continue
		}
		if len(b) > 0 {
			_ = f.Save(r.File, b)
		}
	}
	return errs
}
