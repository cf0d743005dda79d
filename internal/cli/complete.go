package cli

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/storbench/storbench/internal/report"
)

// fioIOEngines are the ioengines that --ioengine completes: fio's engines
// for files that run without --allow-exec (exec, external, network and
// device engines are refused without it).
var fioIOEngines = []string{
	"psync", "sync", "vsync", "pvsync", "pvsync2", "libaio", "io_uring", "posixaio", "mmap", "splice",
	"null", "falloc", "ftruncate", "filecreate", "filestat", "filedelete",
}

// fioWorkloads are the fio engine's built-in workloads (-w); -w also
// takes a job file or a directory of them, which the shell completes.
var fioWorkloads = []string{"default", "mixed"}

// mdOperations are the operations md's --only takes (mdtest's -C, -T,
// -E, -r and storbench's own).
var mdOperations = []string{"create", "stat", "find", "read", "rename", "remove"}

// completeValues completes the values of the flags that take one of a
// fixed set, on every command that has them: cobra completes only flag
// names unless told the values.
func completeValues(root *cobra.Command) {
	fixed := func(values ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
	}
	sets := map[string]cobra.CompletionFunc{
		"rw":            fixed(sortedKeys(fioRW)...),
		"ioengine":      fixed(fioIOEngines...),
		"output-format": fixed(outputFormats()...),
		"only":          fixed(mdOperations...),
		"find-in":       fixed("tree", "data"),
		// A built-in name, or the shell's own completion of a job file
		// or a directory of them.
		"workload": cobra.FixedCompletions(fioWorkloads, cobra.ShellCompDirectiveDefault),
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for name, f := range sets {
			if c.LocalNonPersistentFlags().Lookup(name) != nil {
				_ = c.RegisterFlagCompletionFunc(name, f)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// outputFormats are the names --output-format takes.
func outputFormats() []string {
	out := append(report.FieldFormatNames(), fioOutputFormats...)
	slices.Sort(out)
	return out
}
