package results

import "github.com/storbench/storbench/internal/model"

// PhaseData is one phase of a results folder: its summary and what each
// of its hosts measured.
type PhaseData struct {
	Summary PhaseSummary
	Hosts   []*model.HostResult
}
