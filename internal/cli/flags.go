package cli

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/units"
)

// annZero is the flag annotation that says what 0 does for a numeric flag:
// zeroRefused, or the meaning of 0 where it is a real setting.
const annZero = "storbench-zero"

// zeroRefused marks a flag for which 0 makes no sense.
const zeroRefused = "refused"

// annLeftOut says what a zero-refused flag means when left out, for the
// error line.
const annLeftOut = "storbench-left-out"

// annNeeded says, for a string flag that has no default, what to give
// instead of an empty value.
const annNeeded = "storbench-needed"

// annWith names, for the flag of a setting that qualifies another
// (engine.Flag.With), that one's flag, which must be given too.
const annWith = "storbench-with"

// needed marks a string flag that has no default: given empty, the error
// says what to give (what) instead of pointing at a default.
func needed(f *pflag.FlagSet, name, what string) {
	mustAnnotate(f, name, annNeeded, what)
}

// nonZero marks a numeric flag for which 0 makes no sense: given as 0 it is
// refused, instead of being read as "not given". leftOut says what the flag
// means when left out ("" for its default value).
func nonZero(f *pflag.FlagSet, name, leftOut string) {
	mustAnnotate(f, name, annZero, zeroRefused)
	if leftOut != "" {
		mustAnnotate(f, name, annLeftOut, leftOut)
	}
}

// zeroMeans marks a numeric flag for which 0 is a real setting, and says
// what it means (depth 0: one directory).
func zeroMeans(f *pflag.FlagSet, name, meaning string) {
	mustAnnotate(f, name, annZero, meaning)
}

func mustAnnotate(f *pflag.FlagSet, name, key, value string) {
	if err := f.SetAnnotation(name, key, []string{value}); err != nil {
		panic(err) // a flag name misspelt in the code
	}
}

// checkFlagValues refuses what a user gave but storbench would read as
// "not given": 0 for a flag marked nonZero, an empty value for any
// string flag, and a flag that qualifies another (annWith) given without
// it. Only flags on the command line are checked.
func checkFlagValues(fs *pflag.FlagSet) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		if w := f.Annotations[annWith]; len(w) == 1 {
			if partner := fs.Lookup(w[0]); partner != nil && !partner.Changed {
				err = usageErr("%s goes with %s, which it qualifies: give %s too, or drop %s", flagName(f), flagName(partner), flagName(partner), flagName(f))
				return
			}
		}
		v := f.Value.String()
		switch f.Value.Type() {
		case "string", "stringSlice":
			if v == "" || v == "[]" {
				if n := f.Annotations[annNeeded]; len(n) == 1 {
					err = usageErr("%s: empty value; give %s", flagName(f), n[0])
					return
				}
				err = usageErr("%s: empty value; give one, or leave the flag out for the default", flagName(f))
				return
			}
		case "float64":
			if x, perr := strconv.ParseFloat(v, 64); perr == nil && (math.IsNaN(x) || math.IsInf(x, 0)) {
				err = usageErr("%s %s: want a number", flagName(f), v)
				return
			}
		case "count":
			if strings.HasPrefix(v, "-") {
				err = usageErr("%s %s: want a level of 0 or more", flagName(f), v)
				return
			}
		}
		if m := f.Annotations[annZero]; len(m) == 1 && m[0] == zeroRefused && isZero(v) {
			leftOut := "the default"
			if f.DefValue != "" && !isZero(f.DefValue) && f.Value.Type() != "bool" {
				leftOut += " (" + f.DefValue + ")"
			}
			if l := f.Annotations[annLeftOut]; len(l) == 1 {
				leftOut = l[0]
			}
			err = usageErr("%s %s: zero makes no sense here; leave the flag out for %s", flagName(f), v, leftOut)
		}
	})
	return err
}

// flagName is a flag as errors name it: "-n/--items", or "--results".
func flagName(f *pflag.Flag) string {
	if f.Shorthand != "" {
		return "-" + f.Shorthand + "/--" + f.Name
	}
	return "--" + f.Name
}

// isZero reports a flag value that is a number, size or duration of 0.
func isZero(v string) bool {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f == 0
	}
	if d, err := units.ParseDuration(v); err == nil {
		return d == 0
	}
	if n, err := units.ParseSize(v); err == nil {
		return n == 0
	}
	return false
}

// errGivenTwice is the error of a single-value flag given a second time.
var errGivenTwice = errors.New("given twice")

// onceValue refuses a second value for a flag that holds one: with pflag
// the last one would win without a word, and the user would measure
// something other than what one of the two said.
type onceValue struct {
	pflag.Value
	set bool
}

// Set takes the flag's value the first time only.
func (v *onceValue) Set(s string) error {
	if v.set {
		return errGivenTwice
	}
	v.set = true
	return v.Value.Set(s)
}

// onceFlags makes every single-value flag of c and of the commands under
// it refuse repeats. Flags that collect values (--agents, --only, -v) are
// left as they are.
func onceFlags(c *cobra.Command) {
	wrap := func(f *pflag.Flag) {
		if _, done := f.Value.(*onceValue); done {
			return
		}
		if _, list := f.Value.(pflag.SliceValue); list || f.Value.Type() == "count" {
			return
		}
		f.Value = &onceValue{Value: f.Value}
	}
	c.Flags().VisitAll(wrap)
	c.PersistentFlags().VisitAll(wrap)
	for _, sub := range c.Commands() {
		onceFlags(sub)
	}
}

// pflagInvalid is pflag's error for a value a flag's type cannot hold.
var pflagInvalid = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?--([^"]+)" flag: (.*)$`)

// flagError says a flag error in the user's words: the flag as the help
// names it, the value, and what is expected, instead of Go's parser text
// (strconv.ParseInt: parsing "1e30": invalid syntax).
func flagError(c *cobra.Command, err error) error {
	m := pflagInvalid.FindStringSubmatch(err.Error())
	f := (*pflag.Flag)(nil)
	if m != nil {
		f = c.Flags().Lookup(m[2])
	}
	if f == nil {
		if hint := fieldFlagHint(c, err); hint != "" {
			return usageErr("%s", hint)
		}
		return usageErr("%v (see '%s --help')", err, c.CommandPath())
	}
	val, why := m[1], m[3]
	var want string
	switch t := f.Value.Type(); {
	case strings.HasSuffix(why, errGivenTwice.Error()):
		return usageErr("%s given twice (%s): give it once (see '%s --help')", flagName(f), val, c.CommandPath())
	case strings.Contains(why, "out of range"):
		want = "out of range"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		want = "want a whole number"
	case strings.HasPrefix(t, "float"):
		want = "want a number"
	case t == "bool":
		want = "want true or false"
	case t == "duration":
		want = "want a duration with a unit, e.g. 30s, 5m or 1h"
	case t == "count":
		want = fmt.Sprintf("want a level, a whole number (%s=2), or the flag repeated (-%s%s)", "--"+f.Name, f.Shorthand, f.Shorthand)
	default:
		want = why
	}
	return usageErr("%s %q: %s (see '%s --help')", flagName(f), val, want, c.CommandPath())
}

// helpWidth is the width of a command's help text, as written by hand.
const helpWidth = 78

// wrapHelp fills a paragraph of help text to helpWidth: help that takes
// words from an engine (Info.SecretsFrom) wraps as the rest does.
func wrapHelp(s string) string {
	var b strings.Builder
	line := 0
	for i, w := range strings.Fields(s) {
		switch {
		case i == 0:
		case line+1+len(w) > helpWidth:
			b.WriteByte('\n')
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}
