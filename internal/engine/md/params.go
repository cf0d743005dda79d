package md

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/units"
)

// Limits on parameters. Numbers beyond them are typing mistakes, not
// benchmarks; MaxTreeDirs alone can be lifted with Force.
const (
	// MaxItems is the most items (-n) one worker may create per iteration.
	MaxItems = 1_000_000_000
	// MaxWorkers is the most workers (-t) on one host. Each keeps its own
	// latency histograms (about 37 KB per operation).
	MaxWorkers = 1024
	// MaxIterations is the most iterations (-i).
	MaxIterations = 10_000
	// MaxDepth is the deepest tree (-z).
	MaxDepth = 64
	// MaxTreeDirs is the most tree directories (all workers' trees together)
	// one iteration may create without Force: a depth/branching typo
	// otherwise means millions of directories.
	MaxTreeDirs = 100_000
	// MaxIOBytes bounds write_bytes and read_bytes per file.
	MaxIOBytes = 1 << 30
)

// Params are the md engine's settings, modelled on mdtest's flags. Suites and
// the CLI pass the same keys.
type Params struct {
	// Dir is the target directory (-d); everything goes below
	// Dir/storbench/<run id>/<host>/<phase>.
	Dir string `json:"dir"`
	// Items is the number of files and of directories each worker creates per
	// iteration (-n), spread evenly over the nodes of its tree.
	Items int64 `json:"items"`
	// Iterations is how often the whole sequence repeats (-i).
	Iterations int `json:"iterations"`
	// Depth and Branch shape the tree (-z, -b): Depth 0 is one directory.
	Depth  int `json:"depth"`
	Branch int `json:"branch"`
	// FilesOnly (-F) skips the directory operations; DirsOnly (-D) the file
	// operations.
	FilesOnly bool `json:"files_only"`
	DirsOnly  bool `json:"dirs_only"`
	// UniqueDir (-u) gives each worker its own tree; otherwise all workers
	// share one tree and their items sit side by side in its directories.
	UniqueDir bool `json:"unique_dir"`
	// Workers is the number of workers on each host (-t); 0 means one per
	// CPU.
	Workers int `json:"workers,omitempty"`
	// Stonewall (-W) ends the create operations after this time; later
	// operations work on what was created. 0 means no limit.
	Stonewall Duration `json:"stonewall,omitempty"`
	// Random makes stat and read visit items in a random order.
	Random bool `json:"random"`
	// Sync flushes the target file system (syncfs(2)) at the end of every
	// operation, inside its time, as mdtest's --sync does.
	Sync bool `json:"sync"`
	// WriteBytes is written to each file on creation (-w); ReadBytes read
	// from each in file-read (-e).
	WriteBytes Size `json:"write_bytes"`
	ReadBytes  Size `json:"read_bytes"`
	// Rename adds the file-rename operation, which renames every file.
	Rename bool `json:"rename"`
	// Force allows a tree larger than MaxTreeDirs.
	Force bool `json:"force"`
	// Seed seeds the random order; 0 picks one from the clock.
	Seed int64 `json:"seed,omitempty"`
}

// DefaultParams are the settings a phase gets for keys it leaves out.
func DefaultParams() Params {
	return Params{Items: 1000, Iterations: 1, Branch: 1}
}

// Size and Duration read from JSON as numbers or as strings a person
// writes ("4k", "30s").
type (
	Size     = units.Size
	Duration = units.Duration
)

// DecodeParams reads a phase's parameters over the defaults; unknown keys are
// an error, so a typo in a suite fails instead of being ignored.
func DecodeParams(raw json.RawMessage) (Params, error) {
	p := DefaultParams()
	if len(bytes.TrimSpace(raw)) == 0 {
		return p, p.check()
	}
	if err := engine.DecodeStrict(raw, &p); err != nil {
		return p, fmt.Errorf("md parameters: %v", fieldError(raw, err))
	}
	if err := checkGivenZero(raw, p); err != nil {
		return p, err
	}
	return p, p.check()
}

// checkGivenZero refuses 0 given for a setting whose 0 stands for "not
// given" (workers: one per CPU, stonewall: none, seed: from the clock): a
// user who writes 0 means something, and would silently get the default.
// The CLI leaves these keys out unless their flags are given.
func checkGivenZero(raw json.RawMessage, p Params) error {
	var given map[string]json.RawMessage
	if json.Unmarshal(raw, &given) != nil {
		return nil // DecodeStrict already read it; not an object cannot happen
	}
	for _, z := range []struct {
		key, leftOut string
		zero         bool
	}{
		{"workers", "one worker per CPU", p.Workers == 0},
		{"stonewall", "no stonewall", p.Stonewall == 0},
		{"seed", "a seed from the clock", p.Seed == 0},
	} {
		if _, ok := given[z.key]; ok && z.zero {
			return fmt.Errorf("md: %s 0: zero makes no sense here; leave it out for %s", z.key, z.leftOut)
		}
	}
	return nil
}

// fieldError names the key whose value a custom decoder refused; encoding/json
// reports those errors without the field.
func fieldError(raw json.RawMessage, err error) error {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return err
	}
	for _, k := range []string{"write_bytes", "read_bytes"} {
		var s Size
		if v, ok := m[k]; ok && s.UnmarshalJSON(v) != nil {
			return fmt.Errorf("%s: %v", k, s.UnmarshalJSON(v))
		}
	}
	var d Duration
	if v, ok := m["stonewall"]; ok && d.UnmarshalJSON(v) != nil {
		return fmt.Errorf("stonewall: %v", d.UnmarshalJSON(v))
	}
	return err
}

// workers returns the number of workers, resolving 0 to the CPU count.
func (p Params) workers() int {
	if p.Workers == 0 {
		return runtime.NumCPU()
	}
	return p.Workers
}

// treeNodes returns the number of directories in one tree: 1 + b + b² + ...
// + b^depth, or a value above limit when it is larger than limit.
func treeNodes(depth, branch int, limit int64) int64 {
	var n, level int64 = 0, 1
	for d := 0; d <= depth; d++ {
		n += level
		if n > limit {
			return limit + 1
		}
		level *= int64(branch)
		if level > limit {
			level = limit + 1
		}
	}
	return n
}

// trees returns how many trees one host builds per iteration.
func (p Params) trees() int {
	if p.UniqueDir {
		return p.workers()
	}
	return 1
}

// check refuses parameters that cannot run, with one line that names the flag.
func (p Params) check() error {
	switch {
	case p.Dir == "":
		return errors.New("no target directory given (use -d DIR)")
	case p.Items < 1:
		return fmt.Errorf("items (-n) must be at least 1, got %d", p.Items)
	case p.Items > MaxItems:
		return fmt.Errorf("items (-n) %d is more than the limit of %d per worker", p.Items, MaxItems)
	case p.Iterations < 1 || p.Iterations > MaxIterations:
		return fmt.Errorf("iterations (-i) must be 1 to %d, got %d", MaxIterations, p.Iterations)
	case p.Workers < 0 || p.Workers > MaxWorkers:
		return fmt.Errorf("workers (-t) must be 1 to %d (0 for one per CPU), got %d", MaxWorkers, p.Workers)
	case p.Depth < 0 || p.Depth > MaxDepth:
		return fmt.Errorf("depth (-z) must be 0 to %d, got %d", MaxDepth, p.Depth)
	case p.Branch < 1:
		return fmt.Errorf("branch (-b) must be at least 1, got %d", p.Branch)
	case p.FilesOnly && p.DirsOnly:
		return errors.New("files-only (-F) and dirs-only (-D) exclude each other")
	case p.Stonewall < 0:
		return fmt.Errorf("stonewall (-W) must not be negative, got %v", time.Duration(p.Stonewall))
	case p.WriteBytes < 0 || p.WriteBytes > MaxIOBytes:
		return fmt.Errorf("write-bytes must be 0 to %d, got %d", int64(MaxIOBytes), p.WriteBytes)
	case p.ReadBytes < 0 || p.ReadBytes > MaxIOBytes:
		return fmt.Errorf("read-bytes must be 0 to %d, got %d", int64(MaxIOBytes), p.ReadBytes)
	case p.DirsOnly && (p.WriteBytes > 0 || p.ReadBytes > 0 || p.Rename):
		return errors.New("write-bytes, read-bytes and rename act on files; they make no sense with dirs-only (-D)")
	}
	nodes := treeNodes(p.Depth, p.Branch, MaxTreeDirs)
	total := nodes * int64(p.trees())
	if !p.Force && (nodes > MaxTreeDirs || total > MaxTreeDirs) {
		return fmt.Errorf("depth %d and branch %d make %s tree directories per iteration, over the limit of %d; use --force if you mean it",
			p.Depth, p.Branch, atLeast(total, MaxTreeDirs), MaxTreeDirs)
	}
	if p.Force {
		// Each tree directory is held open while items are worked on.
		if nodes := treeNodes(p.Depth, p.Branch, 1<<40); nodes*int64(p.trees()) > 1<<26 {
			return fmt.Errorf("depth %d and branch %d make too many tree directories to hold open even with --force", p.Depth, p.Branch)
		}
	}
	return nil
}

func atLeast(n, limit int64) string {
	if n > limit {
		return "more than " + strconv.FormatInt(limit, 10)
	}
	return strconv.FormatInt(n, 10)
}

// Validate checks a phase's parameters without touching the file system.
func (Engine) Validate(ph engine.Phase) error {
	_, err := DecodeParams(ph.Params)
	return err
}
