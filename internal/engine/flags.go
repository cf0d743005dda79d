package engine

import "slices"

// Flag is how a command's flag shows one of a phase's settings
// (Info.Flags), so that a setting is spelled once, by its engine: the
// command that runs the engine's phases on their own (storbench md)
// registers a flag for each setting its options name, with this name,
// shorthand, help and default.
type Flag struct {
	// Key is the setting's key in a suite ("items").
	Key string
	// Name is the flag's name ("items") and Short its one-letter
	// shorthand ("n", mdtest's letter; "" for none).
	Name, Short string
	// Help says what the setting does, in the flag's words.
	Help string
	// Default is the flag's default as text, when it is not the engine's
	// default setting (Info.Defaults) nor its type's zero value ("0" for
	// a size written as text).
	Default string
	// NonZero says 0 is refused; LeftOut then says what leaving the flag
	// out means ("one worker per CPU"). ZeroMeans says what 0 means, for
	// a setting where 0 is a real choice ("one directory per tree").
	NonZero            bool
	LeftOut, ZeroMeans string
	// With is the key of the setting this one qualifies (md's wear_out
	// says what follows a stonewall): a command gives it only with that
	// one, and refuses its flag given without it.
	With string
	// Benchmarks, when set, are the only benchmarks (the op setting: s3's
	// get, list, ...) whose command has the flag; nil: every one.
	Benchmarks []string
	// DefaultFor is the default of the benchmarks whose default differs
	// from Default (s3's multipart-put uploads 100 parts, as warp's).
	DefaultFor map[string]string
}

// For is the flag as the command of benchmark shows it (its default that
// benchmark's), and whether that command has it at all.
func (f Flag) For(benchmark string) (Flag, bool) {
	if len(f.Benchmarks) > 0 && !slices.Contains(f.Benchmarks, benchmark) {
		return Flag{}, false
	}
	if d, ok := f.DefaultFor[benchmark]; ok {
		f.Default = d
	}
	return f, true
}

// FlagOf is the declaration of the setting called key among flags as the
// command of benchmark shows it ("" for an engine without benchmarks),
// and whether that command has it; declared says whether the engine
// declares a flag for key at all. A setting whose help differs between
// benchmarks is declared once per set of benchmarks.
func FlagOf(flags []Flag, key, benchmark string) (f Flag, ok, declared bool) {
	for _, d := range flags {
		if d.Key != key {
			continue
		}
		declared = true
		if f, ok := d.For(benchmark); ok {
			return f, true, true
		}
	}
	return Flag{}, false, declared
}
