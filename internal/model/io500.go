package model

// ScoreIO500 is the suite setting (score: io500) that asks for the
// IO500-shaped score of IO500Phases.
const ScoreIO500 = "io500"

// Units of the IO500 figures, as IO500 prints them.
const (
	UnitGiBPerS = "GiB/s"
	UnitKIOPS   = "kIOPS"
)

// IO500Phase is one of IO500's scored phases: the suite phase of that name
// supplies one figure, an operation's bandwidth (GiB/s) or rate (kIOPS).
type IO500Phase struct {
	Name   string
	Engine EngineName
	// Op is the operation of the phase whose figure counts (an md phase
	// also records its tree's operations, which do not).
	Op   string
	Unit string
	// Write marks the phases IO500 holds to its minimum runtime
	// (verify_stonewall in io500's phase definitions).
	Write bool
}

// IO500MinWriteS is IO500's minimum runtime of a write phase in seconds
// (its stonewall-time rule; io500's src/main.c, minwrite): a shorter one
// makes the run invalid for a submission, its score still printed.
const IO500MinWriteS = 300

// IO500Phases are the phases IO500's score is made of (its standard
// mode: io500's src/phase-definitions.h, phases scored and not optional),
// in the order IO500 runs them. The ior phases are fio phases and give
// their bandwidth; mdtest's and find are md phases and give their rate,
// mdtest's (all items over the time of the slowest worker) and find's
// entries checked per second.
var IO500Phases = []IO500Phase{
	{"ior-easy-write", EngineFio, "write", UnitGiBPerS, true},
	{"mdtest-easy-write", EngineMD, "file-create", UnitKIOPS, true},
	{"ior-hard-write", EngineFio, "write", UnitGiBPerS, true},
	{"mdtest-hard-write", EngineMD, "file-create", UnitKIOPS, true},
	{"find", EngineMD, "find", UnitKIOPS, false},
	{"ior-easy-read", EngineFio, "read", UnitGiBPerS, false},
	{"mdtest-easy-stat", EngineMD, "file-stat", UnitKIOPS, false},
	{"ior-hard-read", EngineFio, "read", UnitGiBPerS, false},
	{"mdtest-hard-stat", EngineMD, "file-stat", UnitKIOPS, false},
	{"mdtest-easy-delete", EngineMD, "file-remove", UnitKIOPS, false},
	{"mdtest-hard-read", EngineMD, "file-read", UnitKIOPS, false},
	{"mdtest-hard-delete", EngineMD, "file-remove", UnitKIOPS, false},
}
