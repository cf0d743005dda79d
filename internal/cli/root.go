// Package cli is storbench's command line: one file per command
// (cmd_<name>.go), each turning flags into options and handing them to
// run (a Plan for a Runner), analyze or report; the text sink that prints a
// run as it goes; --git-commit; and exit codes, decided in ExitCode.
// Nothing here measures or orchestrates anything.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/exit"
	"github.com/storbench/storbench/internal/report"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/safetext"
	"golang.org/x/term"
)

// Version is storbench's version, set at build time with
// -ldflags "-X github.com/storbench/storbench/internal/cli.Version=v1.2.3".
var Version = ""

// version returns Version, or the module version, or "dev".
func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// Exit codes, decided in one place: package exit, whose errors carry them.
const (
	ExitOK          = exit.OK
	ExitFailed      = exit.Failed       // the run ran and a phase failed
	ExitUsage       = exit.BadInput     // bad input: nothing was run
	ExitRegression  = exit.Regression   // check: a figure worse than its baseline
	ExitLimit       = exit.LimitCrossed // a figure crossed a limit (--limit)
	ExitInterrupted = exit.Interrupted  // stopped by a signal
)

// ExitError carries the exit code an error should end the program with
// (exit.Error, which the run's errors are too).
type ExitError = exit.Error

// usageErr marks bad input: exit code 2, nothing run.
func usageErr(format string, args ...any) error { return exit.Errorf(exit.BadInput, format, args...) }

// asUsage marks an existing error as bad input, unless it carries an exit
// code already.
func asUsage(err error) error { return exit.With(exit.BadInput, err) }

// interrupted is the error of a command stopped by a signal before it
// ran anything.
func interrupted() error { return exit.InterruptedBeforeRun() }

// ExitCode maps an error returned by Execute to the process exit code.
func ExitCode(err error) int { return exit.CodeOf(err) }

// State is what commands get from the outside world, injected so tests run
// commands end to end in-process.
type State struct {
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Now    func() time.Time
	// TTY says stdout is a terminal: progress redraws one line in place.
	TTY bool
	// Args is the full command line; run.json records it through
	// recordedArgs, which redacts secrets.
	Args []string
	// Verbosity is the -v count.
	Verbosity int
	// Engines are the engines phases run with (internal/engine/all in
	// the storbench binary).
	Engines engine.Registry
	// Renderers make a results folder's rendered files, for run, merge
	// and report alike (report.Renderers when nil).
	Renderers []results.Renderer

	envOnce sync.Once
	env     environment
	envErr  error
}

// NewState returns the State of the real process, running phases with
// engines.
func NewState(engines engine.Registry) *State {
	return &State{
		Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Now: time.Now,
		TTY: term.IsTerminal(int(os.Stdout.Fd())), Args: os.Args, Engines: engines,
	}
}

// renderers is the list of a results folder's rendered files.
func (st *State) renderers() []results.Renderer {
	if st.Renderers == nil {
		return report.Renderers()
	}
	return st.Renderers
}

// getenv reads the environment through Getenv (nothing when unset).
func (st *State) getenv(key string) string {
	if st.Getenv == nil {
		return ""
	}
	return st.Getenv(key)
}

// logf prints a diagnostic line at verbosity level and above.
func (st *State) logf(level int, format string, args ...any) {
	if st.Verbosity >= level {
		fmt.Fprintf(st.Stderr, format+"\n", args...)
	}
}

// LibraryLog is where the standard library's log package is to write
// (main sets it): what a library logs (net/http's "Unsolicited response
// received on idle HTTP channel" after a server's stray bytes, an HTTP
// server's TLS handshake errors) is not storbench's to print. -v shows
// it, each line marked "go:".
func LibraryLog(st *State) io.Writer { return libraryLog{st} }

type libraryLog struct{ st *State }

func (l libraryLog) Write(p []byte) (int, error) {
	if l.st.Verbosity >= 1 {
		fmt.Fprintf(l.st.Stderr, "go: %s", p)
	}
	return len(p), nil
}

// NewRoot builds the storbench command tree.
func NewRoot(st *State) *cobra.Command {
	root := &cobra.Command{
		Use:   "storbench",
		Short: "Measure storage: file bandwidth, IOPS and latency (fio), metadata rates, and S3 object rates",
		Long: `storbench measures storage the way the field does: the "four corners" of file
I/O through fio, mdtest-style metadata rates, and warp-style S3 object rates,
from one client or many. Every run writes a results folder with the raw data,
summary.json and summary.md.`,
		Example: `  storbench run                         # the built-in quick suite on ./storbench-data
  storbench run suite.yaml              # a suite of fio, md and s3 phases
  storbench fio -d /mnt/bench           # the four corners through fio
  storbench fio -d /mnt/bench -w mixed --runtime 60s --size 10G`,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			st.Verbosity, _ = cmd.Flags().GetCount("verbosity")
			return checkFlagValues(cmd.Flags())
		},
	}
	root.SetOut(st.Stdout)
	root.SetErr(st.Stderr)
	root.SetVersionTemplate("storbench {{.Version}}\n")
	root.PersistentFlags().CountP("verbosity", "v", "more output: -v, -vv, -vvv")
	// Every usage error is an *ExitError where cobra finds it: flag errors
	// through the flag error function (which subcommands inherit), argument
	// errors through the commands' own Args checks, wrapped below.
	root.SetFlagErrorFunc(flagError)
	// With Args set, cobra hands an unknown command name to the root
	// instead of failing in Find with a plain error; the root then prints
	// its help when run bare, as cobra does for a command that cannot run.
	root.Args = unknownCommand
	root.SuggestionsMinimumDistance = 2
	root.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
	root.AddCommand(
		newRunCommand(st), newFioCommand(st), newMdCommand(st), newS3Command(st),
		newAgentCommand(st), newAnalyzeCommand(st), newCompareCommand(st), newMergeCommand(st),
		newReportCommand(st), newVersionCommand(st), newDocsCommand(),
		newCatalogCommand(st), newRunsCommand(st), newTrendCommand(st), newCheckCommand(st), newServeCommand(st), newTokenCommand(st),
	)
	// cobra adds these when it executes; made now, their checks are
	// wrapped with the rest.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	strictHelpAndCompletion(root)
	usageArgs(root)
	onceFlags(root)
	completeValues(root)
	return root
}

// unknownCommand refuses any argument to the root: it can only be a
// command name that does not exist.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += fmt.Sprintf(" (did you mean %q?)", s[0])
	}
	return errors.New(msg)
}

// strictHelpAndCompletion makes `help NAME` and `completion SHELL` refuse
// a name they do not know (exit 2): cobra prints its help for them and
// exits 0, so a script cannot tell that nothing was done.
func strictHelpAndCompletion(root *cobra.Command) {
	for _, c := range root.Commands() {
		switch c.Name() {
		case "completion":
			c.Args = unknownCommand
			c.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
		case "help":
			run := c.Run
			c.Run = nil
			c.RunE = func(cmd *cobra.Command, args []string) error {
				if target, rest, err := root.Find(args); err != nil || target == nil || len(rest) > 0 {
					return usageErr("help: unknown command %q (see 'storbench --help')", strings.Join(args, " "))
				}
				run(cmd, args)
				return nil
			}
		}
	}
}

// usageArgs wraps the argument check of c and of every command under it,
// so that what a check refuses is bad input (exit 2), one line pointing at
// the command's help.
func usageArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return usageErr("%v (see '%s --help')", err, cmd.CommandPath())
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

// Execute runs the command line args (without the program name). What it
// prints goes through safetext.Writer: names, labels and words that came
// from outside (suites, agents, results folders, catalogs) reach the
// terminal with their control characters escaped.
func Execute(ctx context.Context, st *State, args []string) error {
	out, errw := safetext.NewWriter(st.Stdout), safetext.NewWriter(st.Stderr)
	st.Stdout, st.Stderr = out, errw
	defer func() {
		_ = out.Flush()
		_ = errw.Flush()
	}()
	root := NewRoot(st)
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

// ErrorLine is the line storbench prints for the error a command ended
// with: one line, with any control character of what it quotes escaped.
func ErrorLine(err error) string { return "storbench: " + safetext.Escape(err.Error()) }
