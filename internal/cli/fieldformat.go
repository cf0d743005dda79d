package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/storbench/storbench/internal/infile"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/report"
	"github.com/storbench/storbench/internal/results"
)

// fioOutputFormats are fio's own --output-format names that storbench
// prints: the rule for the flag's two meanings is that --output-format
// names the tool whose text a run's stdout gets at the end (storbench's
// own text then goes to stderr), IOR's (ior) and mdtest's (mdtest) as
// storbench renders them, and fio's (json, json+) as fio printed them.
// Every host's fio runs with json+, whose JSON is json's with latency
// bins added, so both print that, one document per phase and host.
var fioOutputFormats = []string{"json", "json+"}

// checkFieldFormat refuses an --output-format storbench has no renderer
// for, before anything runs.
func checkFieldFormat(name string) error {
	switch {
	case name == "":
		return nil
	case name == "normal":
		return usageErr("--output-format normal: storbench prints its own text without --output-format (fio's normal output is what storbench summarises): drop it")
	case name == "terse":
		return usageErr("--output-format terse: storbench keeps fio's json+ output, not its terse lines: give json or json+")
	}
	if _, ok := report.FieldFormats[name]; !ok && !slices.Contains(fioOutputFormats, name) {
		return usageErr("--output-format %q: want %s", name, strings.Join(outputFormats(), ", "))
	}
	return nil
}

// printFieldFormat writes the results folder dir as the field's tool
// named by format prints a run (mdtest, ior, fio's json).
func printFieldFormat(w io.Writer, dir, format string) error {
	s, err := results.ReadSummary(dir)
	if err != nil {
		return fmt.Errorf("--output-format %s: %v", format, err)
	}
	if slices.Contains(fioOutputFormats, format) {
		return printFioJSON(w, dir, format, s)
	}
	run, err := results.ReadRunInfo(dir)
	if err != nil {
		return fmt.Errorf("--output-format %s: %v", format, err)
	}
	return report.FieldFormats[format](w, run, s)
}

// printFioJSON writes what fio printed on every host of every fio phase,
// in the phases' order: its json+ output, kept in the results folder.
func printFioJSON(w io.Writer, dir, format string, s *results.Summary) error {
	n := 0
	for _, ps := range s.Phases {
		if ps.Engine != model.EngineFio {
			continue
		}
		for _, h := range ps.Hosts {
			path := filepath.Join(dir, ps.Dir, "hosts", results.SafeName(h), "fio.json")
			b, err := infile.Read("--output-format "+format, path, infile.ResultLimit)
			if err != nil {
				return err
			}
			if len(b) > 0 && b[len(b)-1] != '\n' {
				b = append(b, '\n')
			}
			if _, err := w.Write(b); err != nil {
				return err
			}
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("--output-format %s: the run has no fio phase", format)
	}
	return nil
}
