package engine

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
}

// FlagOf is the declaration of the setting called key among flags, if the
// engine declares one.
func FlagOf(flags []Flag, key string) (Flag, bool) {
	for _, f := range flags {
		if f.Key == key {
			return f, true
		}
	}
	return Flag{}, false
}
