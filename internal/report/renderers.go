package report

import (
	"github.com/storbench/storbench/internal/results"
)

// File names of the rendered files of a results folder.
const (
	MarkdownFile = "summary.md"
	SweepFile    = "sweep.tsv"
	HTMLFile     = "report.html"
)

// Renderers is the one list of a results folder's rendered files: run,
// merge and report all render a folder with it, so each writes the same
// files, and a new file (a catalog entry, a web view) is one entry here.
// Each call returns a new slice, which a caller may extend.
func Renderers() []results.Renderer {
	return []results.Renderer{
		{File: MarkdownFile, Render: results.FromSummary(Markdown)},
		{File: SweepFile, Render: results.FromSummary(SweepTSV)},
		{File: IO500SummaryFile, Render: results.FromSummary(IO500ResultSummary)},
		{File: IO500ResultFile, Render: results.FromSummary(IO500Result)},
		// report.html reads every host's seconds: once, at the end.
		{File: HTMLFile, Final: true, Render: func(in *results.RenderInput) ([]byte, error) {
			return HTMLFolderShares(in.Dir, in.Before, in.Share)
		}},
	}
}
