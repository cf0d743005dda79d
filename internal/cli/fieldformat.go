package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/storbench/storbench/internal/report"
	"github.com/storbench/storbench/internal/results"
)

// checkFieldFormat refuses an --output-format storbench has no renderer
// for, before anything runs.
func checkFieldFormat(name string) error {
	if name == "" {
		return nil
	}
	if _, ok := report.FieldFormats[name]; !ok {
		return usageErr("--output-format %q: want %s", name, strings.Join(report.FieldFormatNames(), " or "))
	}
	return nil
}

// printFieldFormat writes the results folder dir as the field's tool
// named by format prints a run (mdtest, ior).
func printFieldFormat(w io.Writer, dir, format string) error {
	s, err := results.ReadSummary(dir)
	if err != nil {
		return fmt.Errorf("--output-format %s: %v", format, err)
	}
	run, err := results.ReadRunInfo(dir)
	if err != nil {
		return fmt.Errorf("--output-format %s: %v", format, err)
	}
	return report.FieldFormats[format](w, run, s)
}
