package md

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
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
	// MaxStride bounds the strides (-N, --rank-stride): they are taken
	// modulo the hosts or the workers of all hosts, so a larger one is a
	// typing mistake.
	MaxStride = 1 << 20
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
	// On several hosts the one tree is all hosts' (mdtest's default), in
	// <dir>/storbench/<run id>/shared/, and so are the trees of -u with a
	// stride: the hosts must share the directory.
	UniqueDir bool `json:"unique_dir"`
	// Stride (-N) is mdtest 3.3+'s -N, in nodes (hosts): after the
	// creates, worker r stats (directories and files, and renames them)
	// the items of rank r+S, reads those of r+2S and removes those of
	// r+3S, all mod the workers of all hosts, where S is Stride hosts'
	// worth of ranks (Stride x the workers per host; on one host, Stride
	// ranks, as mdtest on one node). On 4 hosts -N 1 makes every stat,
	// read and remove cross hosts; on 3 hosts the remove (3 hosts further
	// on), on 2 the read, works on the host's own items, as in mdtest. 0: every
	// worker works on its own items. The hosts must run the same number of
	// workers.
	Stride int `json:"stride,omitempty"`
	// RankStride is the rank stride of mdtest before 3.3 (and of earlier
	// storbench -N): every operation after the creates works on the items
	// of rank r+RankStride mod all ranks, the same rank for stat, read and
	// remove. It excludes Stride.
	RankStride int `json:"rank_stride,omitempty"`
	// Only runs a part of the sequence, as mdtest's -C, -T, -E and -r do:
	// any of "create" (tree, directories, files), "stat", "read", "rename",
	// "find" and "remove" (files, directories, tree), in mdtest's order.
	// Empty: the whole sequence.
	Only []string `json:"only,omitempty"`
	// Tree names a tree that phases of one run share, in
	// <dir>/storbench/<run id>/shared/md-<tree>: one phase creates it (only:
	// [create]), later ones stat, read or remove it, with other phases in
	// between, as IO500 interleaves its phases. It is removed by the phase
	// that runs "remove", or at the end of the run.
	Tree string `json:"tree,omitempty"`
	// Find adds the find operation after the file creates: the workers
	// walk every directory of the trees and match each entry's name against
	// FindName and, for files whose name matches, the size against
	// FindSize, as IO500's find phase does (-name "*01*" -size 3901c).
	Find bool `json:"find"`
	// FindName is find's name pattern ("*" and "?"); FindSize the file
	// size it matches, in bytes (default: write_bytes).
	FindName string `json:"find_name,omitempty"`
	FindSize *Size  `json:"find_size,omitempty"`
	// FindIn is where find walks: "tree" (the phase's trees, the default)
	// or "data", the run's whole data directory <dir>/storbench/<run id>/
	// (every phase's files, fio's included), as IO500's find walks its
	// data directory. On several hosts "data" needs the hosts to share the
	// directory, whose entries they deal out among all their workers.
	FindIn string `json:"find_in,omitempty"`
	// Workers is the number of workers on each host (-t); 0 means one per
	// CPU.
	Workers int `json:"workers,omitempty"`
	// Stonewall (-W) ends the create operations after this time; later
	// operations work on what was created. 0 means no limit. With WearOut
	// (the default, as mdtest's -W and IO500), every worker of every host
	// then goes on creating, inside the create's time, until it has made
	// as many items as the rank that made most by the stonewall.
	Stonewall Duration `json:"stonewall,omitempty"`
	// WearOut, with a stonewall, makes every rank create up to the largest
	// count any rank reached by the stonewall (default true); false stops
	// every rank at the stonewall, each with its own count.
	WearOut *bool `json:"wear_out,omitempty"`
	// Random makes stat and read visit items in a random order.
	Random bool `json:"random"`
	// Sync flushes every file system of the host (sync(2)) at the end of
	// every operation, inside its time, as mdtest's -Y does (IO500's
	// mdtest write phases use it).
	Sync bool `json:"sync"`
	// SyncFile flushes each file (fsync(2)) after writing it in
	// file-create, inside the create's time, as mdtest's -y does.
	SyncFile bool `json:"sync_file"`
	// WriteBytes is written to each file on creation (-w); ReadBytes read
	// from each in file-read (-e).
	WriteBytes Size `json:"write_bytes"`
	ReadBytes  Size `json:"read_bytes"`
	// Verify checks in file-read that every byte read is what file-create
	// wrote (byte x of a file is byte(x)), as mdtest's -X does; a file
	// that differs, or is shorter than read_bytes, is an error.
	Verify bool `json:"verify,omitempty"`
	// Rename adds the file-rename operation, which renames every file.
	Rename bool `json:"rename"`
	// Force allows a tree larger than MaxTreeDirs.
	Force bool `json:"force"`
	// Seed seeds the random order; 0 picks one from the clock.
	Seed int64 `json:"seed,omitempty"`
	// FullPaths names every item by its whole path from Dir in each call,
	// as mdtest does from its -d: the file system client then resolves
	// every directory on the way on every call (on a network file system,
	// revalidating each as its cache rules say). By default a call names
	// the item from the open tree directory that holds it (one
	// component), which costs the client less per operation.
	FullPaths bool `json:"full_paths,omitempty"`
}

// wearsOut says whether the creates go on after the stonewall to the
// largest count (Params.WearOut).
func (p Params) wearsOut() bool { return p.Stonewall > 0 && (p.WearOut == nil || *p.WearOut) }

// strided says whether workers work on other ranks' items after the
// creates (-N or --rank-stride).
func (p Params) strided() bool { return p.Stride > 0 || p.RankStride > 0 }

// DefaultParams are the settings a phase gets for keys it leaves out.
func DefaultParams() Params {
	return Params{Items: 1000, Iterations: 1, Branch: 1, FindName: "*01*"}
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
	for _, k := range []string{"write_bytes", "read_bytes", "find_size"} {
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
		return fmt.Errorf("workers (-t) must be 1 to %d, got %d", MaxWorkers, p.Workers)
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
	case p.ReadBytes > p.WriteBytes && (len(p.Only) == 0 || slices.Contains(p.Only, "create")):
		// The phase reads the files it wrote: past write-bytes there is
		// nothing, and the reads would be short.
		return fmt.Errorf("--read-bytes (read_bytes) %d is more than --write-bytes (write_bytes) %d: the files hold only what was written", p.ReadBytes, p.WriteBytes)
	case p.Verify && p.ReadBytes == 0:
		return errors.New("verify (--verify) checks what file-read reads: give read_bytes (--read-bytes) too")
	case p.Stride < 0 || p.Stride > MaxStride:
		return fmt.Errorf("stride (-N) must be 0 to %d, got %d", MaxStride, p.Stride)
	case p.RankStride < 0 || p.RankStride > MaxStride:
		return fmt.Errorf("rank_stride (--rank-stride) must be 0 to %d, got %d", MaxStride, p.RankStride)
	case p.WearOut != nil && p.Stonewall == 0:
		return errors.New("wear_out (--wear-out) says what happens after the stonewall: give a stonewall (-W) too")
	case p.Stride > 0 && p.RankStride > 0:
		return errors.New("stride (-N, in hosts) and rank_stride (--rank-stride, in ranks) both say whose items a worker works on: give one")
	}
	if err := p.checkOnly(); err != nil {
		return err
	}
	if err := p.checkFind(); err != nil {
		return err
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

// group is a name Only takes and the operations it stands for.
type group struct {
	name string
	ops  []opKind
}

// groups are the names Only takes, in mdtest's order.
var groups = []group{
	{"create", []opKind{opTreeCreate, opDirCreate, opFileCreate}},
	{"stat", []opKind{opDirStat, opFileStat}},
	{"find", []opKind{opFind}},
	{"read", []opKind{opFileRead}},
	{"rename", []opKind{opDirRename, opFileRename}},
	{"remove", []opKind{opFileRemove, opDirRemove, opTreeRemove}},
}

// groupOf returns the group (Only's name) of operation k.
func groupOf(k opKind) string {
	for _, g := range groups {
		if slices.Contains(g.ops, k) {
			return g.name
		}
	}
	return ""
}

// only says whether the phase runs the group name: every group when Only
// is empty.
func (p Params) only(name string) bool {
	return len(p.Only) == 0 || slices.Contains(p.Only, name)
}

// checkOnly refuses a part of the sequence that cannot run.
func (p Params) checkOnly() error {
	if p.Only != nil && len(p.Only) == 0 {
		return errors.New("only: give at least one of create, stat, find, read, rename, remove (or leave it out for all)")
	}
	for _, o := range p.Only {
		if !slices.ContainsFunc(groups, func(g group) bool { return g.name == o }) {
			return fmt.Errorf("only: %q is not an operation; give any of create, stat, find, read, rename, remove", o)
		}
	}
	if p.Tree != "" {
		if err := checkTreeName(p.Tree); err != nil {
			return err
		}
		if p.Iterations != 1 {
			return fmt.Errorf("tree %s: phases that share a tree run one iteration each (iterations: 1), got %d", p.Tree, p.Iterations)
		}
	}
	if !p.only("create") && p.Tree == "" {
		return fmt.Errorf("only %v works on a tree an earlier phase created: name it with tree: NAME in both phases", p.Only)
	}
	return nil
}

// checkTreeName refuses a tree name that is not one plain path element.
func checkTreeName(s string) error {
	if len(s) > 64 || s == "." || s == ".." {
		return fmt.Errorf("tree %q: give a name of 1 to 64 letters, digits, '.', '-' or '_'", s)
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return fmt.Errorf("tree %q: give a name of 1 to 64 letters, digits, '.', '-' or '_'", s)
		}
	}
	return nil
}

// checkFind refuses a find pattern or size that cannot match.
func (p Params) checkFind() error {
	if !p.finds() {
		return nil
	}
	switch {
	case p.FindName == "" || len(p.FindName) > 255 || strings.ContainsAny(p.FindName, "/\x00"):
		return fmt.Errorf("find_name %q: give a file name pattern (\"*\" and \"?\" match) of 1 to 255 bytes without '/'", p.FindName)
	case p.FindSize != nil && *p.FindSize < 0:
		return fmt.Errorf("find_size must not be negative, got %d", *p.FindSize)
	case p.FindIn != "" && p.FindIn != FindInTree && p.FindIn != FindInData:
		return fmt.Errorf("find_in %q: give %s (the phase's trees) or %s (the run's whole data directory)", p.FindIn, FindInTree, FindInData)
	}
	return nil
}

// finds says whether the phase runs the find operation.
func (p Params) finds() bool {
	return p.Find || slices.Contains(p.Only, "find")
}

// findSize is the file size find matches: FindSize, or write_bytes.
func (p Params) findSize() int64 {
	if p.FindSize != nil {
		return int64(*p.FindSize)
	}
	return int64(p.WriteBytes)
}

func atLeast(n, limit int64) string {
	if n > limit {
		return "more than " + strconv.FormatInt(limit, 10)
	}
	return strconv.FormatInt(n, 10)
}

// phaseParams are ph's settings, decoded.
func phaseParams(ph engine.Phase) (Params, error) { return DecodeParams(ph.Params) }
