package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// Every argument check of every command, cobra's own ones included
// (completion), refuses with an *ExitError of code 2 made where the check
// runs: no later step has to recognise cobra's English to know that a
// user typed something wrong.
func TestArgCheckersAreUsageErrors(t *testing.T) {
	t.Parallel()
	st, _ := testState()
	root := NewRoot(st)
	many := strings.Fields(strings.Repeat("x ", 20))
	var walk func(c *cobra.Command)
	checked := 0
	walk = func(c *cobra.Command) {
		for _, args := range [][]string{nil, many} {
			if c.Args == nil {
				continue
			}
			err := c.Args(c, args)
			if err == nil {
				continue
			}
			checked++
			if ee, ok := err.(*ExitError); !ok || ee.Code != ExitUsage {
				t.Errorf("%s with %d arguments: %T %v, want an *ExitError with code %d", c.CommandPath(), len(args), err, err, ExitUsage)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if checked < 10 {
		t.Errorf("only %d argument checks refused anything; the walk missed commands", checked)
	}
}

// What a user mistypes on the command line, argument or flag, is bad
// input: one line naming it and pointing at --help, exit 2.
func TestCommandLineMistakes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"reprot"}, `did you mean`},
		{[]string{"analyze"}, "storbench analyze --help"},
		{[]string{"compare", "a"}, "storbench compare --help"},
		{[]string{"merge", "a"}, "storbench merge --help"},
		{[]string{"report"}, "storbench report --help"},
		{[]string{"run", "a.yaml", "b.yaml"}, "storbench run --help"},
		{[]string{"agent", "extra"}, "storbench agent --help"},
		{[]string{"version", "extra"}, "storbench version --help"},
		{[]string{"s3", "get", "extra"}, "storbench s3 get --help"},
		{[]string{"completion", "bash", "extra"}, "--help"},
		{[]string{"fio", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"md", "-n", "many"}, `-n/--items "many": want a whole number`},
		{[]string{"s3", "get", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"md", "-Q"}, "unknown shorthand flag: 'Q'"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			st, out := testState()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := Execute(ctx, st, c.args)
			if ExitCode(err) != ExitUsage {
				t.Fatalf("exit %d (%v), want %d\n%s", ExitCode(err), err, ExitUsage, out)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, c.want) {
				t.Errorf("%q: want one line saying %q", msg, c.want)
			}
		})
	}
}
