package cli

import (
	"strconv"

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
// "not given": 0 for a flag marked nonZero, and an empty value for any
// string flag. Only flags on the command line are checked.
func checkFlagValues(fs *pflag.FlagSet) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		v := f.Value.String()
		switch f.Value.Type() {
		case "string", "stringSlice":
			if v == "" || v == "[]" {
				err = usageErr("%s: empty value; give one, or leave the flag out for the default", flagName(f))
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
