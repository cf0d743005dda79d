package engine

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// Tool is the outside program an engine runs (Info.Tool): how it is
// named and how it says its version.
type Tool struct {
	// Name is the program's name on the PATH ("fio"), and the name a
	// command line gives its path by.
	Name string
	// VersionArgs make the program print its version ("--version").
	VersionArgs []string
	// VersionPrefix is how that version begins ("fio-"): a program that
	// prints another is not the tool.
	VersionPrefix string
	// Install, when set, says how the tool is installed ("apt-get install
	// fio, dnf install fio"), for the message when it is not.
	Install string
}

// Find is where t's program is, at bin (Tools.Path: the path given by
// --tool NAME=PATH, else the name, looked up on the PATH): an error in the
// words of that flag when it is not there or is another program, whose
// every job would fail for a reason the user would look for elsewhere.
func (t Tool) Find(bin string) (string, error) {
	if bin == "" {
		bin = t.Name
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		if bin == t.Name {
			how := ""
			if t.Install != "" {
				how = " (" + t.Install + ")"
			}
			return "", fmt.Errorf("%s is not installed: install it%s or give its path with --tool %s=PATH", t.Name, how, t.Name)
		}
		return "", fmt.Errorf("--tool %s=%s: not found or not executable", t.Name, bin)
	}
	if v, err := ToolVersion(path, t.VersionArgs...); err != nil || !strings.HasPrefix(v, t.VersionPrefix) {
		return "", fmt.Errorf("--tool %s=%s: not %s (`%s %s` does not print %s<version>)", t.Name, bin, t.Name, bin, strings.Join(t.VersionArgs, " "), t.VersionPrefix)
	}
	return path, nil
}

// Version is the version t's program at bin prints, checked against
// VersionPrefix.
func (t Tool) Version(bin string) (string, error) {
	v, err := ToolVersion(bin, t.VersionArgs...)
	if err == nil && !strings.HasPrefix(v, t.VersionPrefix) {
		err = fmt.Errorf("%s: not %s (`%s %s` does not print %s<version>)", bin, t.Name, bin, strings.Join(t.VersionArgs, " "), t.VersionPrefix)
	}
	return v, err
}

// Tools are where this machine's outside tools are, by tool name
// (Tool.Name), as a command line's --tool NAME=PATH gives them: an
// agent's own setting, never taken from the network. A tool not named is
// found on the PATH.
type Tools map[string]string

// Path is where the tool called name is: its given path, else its name.
func (t Tools) Path(name string) string {
	if p := t[name]; p != "" {
		return p
	}
	return name
}

// ToolNames are the names of the outside tools the engines run, sorted.
func (r Registry) ToolNames() []string {
	var out []string
	for _, n := range r.Names() {
		if t := r[n].Info().Tool; t != nil && !slices.Contains(out, t.Name) {
			out = append(out, t.Name)
		}
	}
	slices.Sort(out)
	return out
}

// CheckTools refuses a path given for a tool no engine runs (a misspelt
// name), naming those it runs.
func (r Registry) CheckTools(t Tools) error {
	names := r.ToolNames()
	for _, n := range slices.Sorted(maps.Keys(t)) {
		if !slices.Contains(names, n) {
			return fmt.Errorf("--tool %s=%s: no engine runs a tool called %q (the tools: %s)", n, t[n], n, strings.Join(names, ", "))
		}
	}
	return nil
}

// FindTools refuses, as a *MissingTool, the first phase (in plan order)
// whose engine runs an outside tool (Info.Tool) that is not on this
// machine at its path in paths: every engine's tool is checked the same
// way before any load, whether or not the engine checks its own.
func (r Registry) FindTools(phases []Phase, paths Tools) error {
	seen := map[string]bool{}
	for _, ph := range phases {
		t := r.Info(ph.Engine).Tool
		if t == nil || seen[t.Name] {
			continue
		}
		seen[t.Name] = true
		if _, err := t.Find(paths.Path(t.Name)); err != nil {
			return &MissingTool{Tool: t.Name, Err: fmt.Errorf("phase %s: %w", ph.Name, err)}
		}
	}
	return nil
}

// ToolVersions is the version of every outside tool the engines run
// (Info.Tool), by tool name, as found on this host at its path in paths
// (a tool not found is absent).
func (r Registry) ToolVersions(paths Tools) map[string]string {
	var out map[string]string
	for _, n := range r.Names() {
		t := r[n].Info().Tool
		if t == nil {
			continue
		}
		if v, err := t.Version(paths.Path(t.Name)); err == nil {
			if out == nil {
				out = map[string]string{}
			}
			out[t.Name] = v
		}
	}
	return out
}

// versions keeps what a tool said its version was, for each binary, by the
// file's identity: a run asked fio four times before its first job
// (finding fio, the run's record, the agent's hello, the phase's hooks),
// and fio, linked against many libraries, takes 40-900 ms to start on a
// loaded machine. A binary replaced in place (an upgrade) is another file
// and is asked again.
var versions = struct {
	sync.Mutex
	m map[binID]string
}{m: map[binID]string{}}

// binID is what tells one file from another at a path, and the arguments
// it was asked its version with.
type binID struct {
	path       string
	dev, ino   uint64
	size, nsec int64
	args       string
}

// ToolVersion returns the first line the program at bin prints, trimmed,
// when run with args ("fio-3.33" for fio --version).
func ToolVersion(bin string, args ...string) (string, error) {
	id, known := identify(bin)
	id.args = strings.Join(args, "\x00")
	if known {
		versions.Lock()
		v, ok := versions.m[id]
		versions.Unlock()
		if ok {
			return v, nil
		}
	}
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %v", bin, strings.Join(args, " "), err)
	}
	// The first line: a banner of copyright and licence may follow.
	v, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	v = strings.TrimSpace(v)
	if known {
		versions.Lock()
		versions.m[id] = v
		versions.Unlock()
	}
	return v, nil
}

// identify returns the identity of the file bin names (known false when
// it cannot be told: the binary is then asked every time).
func identify(bin string) (binID, bool) {
	path, err := exec.LookPath(bin)
	if err != nil {
		return binID{}, false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return binID{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return binID{}, false
	}
	return binID{path: path, dev: uint64(st.Dev), ino: st.Ino, size: fi.Size(), nsec: fi.ModTime().UnixNano()}, true
}
