package fio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/storbench/storbench/internal/engine"
)

// Rule is what storbench does with a fio option that names a path, runs a
// command or acts outside the job's directory.
type Rule string

const (
	// Confine accepts the option when every path its value names stays in
	// the job's directory: relative, free of ".." and ${VAR}, and (checked
	// by the agent on its own disk) not through a symbolic link that leads
	// out.
	Confine Rule = "confine"
	// Refuse refuses the option whatever its value.
	Refuse Rule = "refuse"
	// RefuseUnlessAllowExec refuses the option unless storbench (the
	// command, and each agent for itself) runs with --allow-exec.
	RefuseUnlessAllowExec Rule = "refuse unless --allow-exec"
	// Replace drops the job file's value: storbench sets its own.
	Replace Rule = "replaced"
)

// pathKind says where the paths are in an option's value.
type pathKind int

const (
	noPath      pathKind = iota // the value names no path
	pathList                    // ':'-separated paths (fio splits filename, directory and iolog lists there)
	pathFormat                  // a filename_format: paths once fio's $keywords are filled in
	pathElement                 // one path element: a job name
	pathMem                     // mmap:FILE, mmapshared:FILE, mmaphuge:FILE
	pathPattern                 // a pattern whose 'quoted' parts are file names fio reads
)

// PathRule is one row of the table of fio options that reach past the job's
// directory.
type PathRule struct {
	// Option is fio's name for the option, or how a non-option is written
	// (include, ${VAR}).
	Option string
	// Alias is fio's other name for the same option, if any.
	Alias string
	Rule  Rule
	// Why says what the option does or what storbench checks; it ends the
	// error line of a refusal.
	Why  string
	kind pathKind
	// inData: relative paths are relative to fio's directory= (the job's
	// data directory), not to fio's working directory (the job's directory).
	inData bool
}

// PathRules is the one table of fio options that name paths, run commands
// or act outside the job's directory, with what storbench does with each.
// The controller applies it before anything runs (exit 2) and every agent
// applies it again before preparing, whatever the controller checked. The
// job's directory is DIR/storbench/<run id>/<host>/<job>/: fio runs there,
// its files go in data/ below it. README.md shows this table
// (TestDocsPathTable keeps docs/fio.md equal to them).
var PathRules = []PathRule{
	{Option: "directory", Rule: Replace, Why: "storbench sets it to the job's data directory, `<job>/data`"},
	{Option: "filename", Rule: Confine, kind: pathList, inData: true, Why: "names files, `:`-separated, relative to the data directory; `-` (stdin/stdout) is refused"},
	{Option: "filename_format", Rule: Confine, kind: pathFormat, inData: true, Why: "checked once `$jobname`, `$jobnum`, `$filenum` are filled in"},
	{Option: "opendir", Rule: Confine, kind: pathList, Why: "fio does I/O on every file below it"},
	{Option: "name", Rule: Confine, kind: pathElement, Why: "one path element (no `/`, not `..`), as every `[section]` name must be: fio names files and logs after the job"},
	{Option: "write_iolog", Rule: Confine, kind: pathList, Why: "fio appends to the file if it exists"},
	{Option: "write_bw_log", Rule: Confine, kind: pathList, Why: "log file prefix (fio adds `_bw.N.log`); bare, fio uses the job name"},
	{Option: "write_lat_log", Rule: Confine, kind: pathList, Why: "log file prefix"},
	{Option: "write_iops_log", Rule: Confine, kind: pathList, Why: "log file prefix"},
	{Option: "write_hist_log", Rule: Confine, kind: pathList, Why: "log file prefix"},
	{Option: "mem", Alias: "iomem", Rule: Confine, kind: pathMem, Why: "the file after `mmap:`, `mmapshared:` or `mmaphuge:` backs the I/O buffers"},
	{Option: "buffer_pattern", Rule: Confine, kind: pathPattern, Why: "a `'quoted'` file name is read into the data fio writes"},
	{Option: "verify_pattern", Rule: Confine, kind: pathPattern, Why: "a `'quoted'` file name is read into the data fio writes"},
	{Option: "verify_state_save", Rule: Confine, Why: "names no path: fio writes its state file in its working directory, the job's directory"},
	{Option: "verify_state_load", Rule: Confine, Why: "names no path: fio reads its state file from the job's directory"},
	{Option: "read_iolog", Rule: Refuse, Why: "replays I/O on the files and devices the log names, wherever they are"},
	{Option: "replay_redirect", Rule: Refuse, Why: "sends replayed I/O to a device"},
	{Option: "merge_blktrace_file", Rule: Refuse, Why: "writes a merged trace for read_iolog"},
	{Option: "ioscheduler", Rule: Refuse, Why: "switches the I/O scheduler of the device under DIR (a write in /sys)"},
	{Option: "cgroup", Rule: Refuse, Why: "creates a cgroup in the system's cgroup file system"},
	{Option: "profile", Rule: Refuse, Why: "a built-in profile adds jobs with devices and directories of its own"},
	{Option: "include", Rule: Refuse, Why: "reads options from a file storbench does not check"},
	{Option: "output", Rule: Refuse, Why: "a fio command-line option (a file); storbench writes fio's command line itself"},
	{Option: "aux-path", Rule: Refuse, Why: "a fio command-line option (a directory); storbench writes fio's command line itself"},
	{Option: "trigger-file", Rule: Refuse, Why: "a fio command-line option (a file that triggers a command)"},
	{Option: "trigger", Rule: Refuse, Why: "a fio command-line option (runs a command)"},
	{Option: "trigger-remote", Rule: Refuse, Why: "a fio command-line option (runs a command)"},
	{Option: "${VAR}", Rule: Refuse, Why: "fio fills `${VAR}` in from the agent's environment, in an option's name or in the value of a `confine` option, so storbench cannot see what fio will use (storbench fills in its own `${STORBENCH_HOST_INDEX}`, `${STORBENCH_HOST_COUNT}` and `${STORBENCH_SHARED_DIR}` itself, before this check)"},
	{Option: "exec_prerun", Rule: RefuseUnlessAllowExec, Why: "runs a command before the job"},
	{Option: "exec_postrun", Rule: RefuseUnlessAllowExec, Why: "runs a command after the job"},
	{Option: "ioengine", Rule: RefuseUnlessAllowExec, Why: "any engine but the file engines (" + fileEngineList + "): `exec` runs a program; `external:PATH`, a path or an unknown name loads a shared library; network and device engines reach past DIR"},
}

// fileEngines are the fio engines that do I/O only on the job's files. fio
// compares engine names exactly and loads any other name as a shared
// library, so this list is exact too.
var fileEngines = map[string]bool{}

const fileEngineList = "sync, psync, vsync, pvsync, pvsync2, libaio, io_uring, posixaio, mmap, splice, null, falloc, ftruncate, filecreate, filestat, filedelete, dircreate, dirstat, dirdelete, cpuio"

// fioEngineNames are the names of fio's own engines, of every build and
// platform of fio 3 (fio --enghelp lists the ones a build has): a name
// outside them, not external:PATH nor a path, is no engine of fio's but
// a mistyped one, which fio would try to load as a shared library.
var fioEngineNames = strings.Fields(`cpuio mmap sync psync vsync pvsync pvsync2 null net netsplice ftruncate
	filecreate filestat filedelete dircreate dirstat dirdelete exec posixaio falloc e4defrag splice gfapi
	gfapi_async mtd sg io_uring io_uring_cmd nbd libaio rdma rados rbd pmemblk dev-dax libpmem libpmem2 http
	nfs libiscsi libzbc xnvme libcufile libhdfs dfs windowsaio solarisaio guasi binject syslet-rw libblkio
	ime_psync ime_psyncv ime_aio skeleton_external`)

// knownEngine says an ioengine value names an engine fio has, or one to
// load (external:PATH, a path).
func knownEngine(v string) bool {
	return slices.Contains(fioEngineNames, v) || strings.HasPrefix(v, "external") || strings.Contains(v, "/")
}

// ruleOf finds an option's row by fio's name or alias, in any case (fio
// matches exact names; refusing every spelling costs nothing).
var ruleOf = map[string]*PathRule{}

func init() {
	for _, e := range strings.Split(fileEngineList, ", ") {
		fileEngines[e] = true
	}
	for i := range PathRules {
		r := &PathRules[i]
		ruleOf[strings.ToLower(r.Option)] = r
		if r.Alias != "" {
			ruleOf[strings.ToLower(r.Alias)] = r
		}
	}
}

// PathRulesMarkdown renders PathRules as the Markdown table README.md shows.
func PathRulesMarkdown() string {
	var b strings.Builder
	b.WriteString("| fio option | rule | why, or what is checked |\n|---|---|---|\n")
	for _, r := range PathRules {
		name := "`" + r.Option + "`"
		if r.Alias != "" {
			name += " (`" + r.Alias + "`)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, r.Rule, r.Why)
	}
	return b.String()
}

// CheckSafe applies PathRules to the job file as fio will read it, and
// refuses options that run commands or load code unless allowExec. Every
// refusal is one line naming the file, line, option and what to do.
func (jf *JobFile) CheckSafe(name string, allowExec bool) error {
	if err := jf.checkLines(name); err != nil {
		return err
	}
	for _, s := range jf.Sections {
		if !isGlobal(s.Name) {
			if err := checkElement(s.Name); err != nil {
				return fmt.Errorf("%s: [%s]: %v: fio names the job's files and logs after it", name, s.Name, err)
			}
		}
		for _, o := range s.Options {
			if err := jf.checkOption(s, o, allowExec); err != nil {
				where := fmt.Sprintf("%s:%d", name, o.Line)
				if o.Line == 0 {
					where = name + " (options)"
				}
				opt := o.Key
				if o.HasValue {
					opt += "=" + o.Value
				}
				return fmt.Errorf("%s: %s: %v", where, opt, err)
			}
		}
	}
	return nil
}

// checkOption applies the table to one option of section s.
func (jf *JobFile) checkOption(s *Section, o Option, allowExec bool) error {
	if strings.Contains(o.Key, "${") {
		return refusal(ruleOf["${var}"])
	}
	r := ruleOf[strings.ToLower(o.Key)]
	if r == nil {
		return nil
	}
	switch r.Rule {
	case Replace:
		return nil
	case Refuse:
		return refusal(r)
	case RefuseUnlessAllowExec:
		if allowExec || r.Option == "ioengine" && fileEngines[o.Value] {
			return nil
		}
		if r.Option == "ioengine" && !strings.Contains(o.Value, "${") && !knownEngine(o.Value) {
			// A typo: --allow-exec is not what would fix it.
			return fmt.Errorf("fio has no engine %q: give one of the engines that work on the job's files: %s", o.Value, fileEngineList)
		}
		return fmt.Errorf("%s; refused (start storbench, and each agent, with --allow-exec to permit it)", plain(r.Why))
	}
	if strings.Contains(o.Value, "${") {
		return fmt.Errorf("${VAR} is filled in from the agent's environment, so storbench cannot see where the path leads; write the path out")
	}
	switch r.kind {
	case pathElement:
		if err := checkElement(o.Value); err != nil {
			return fmt.Errorf("%v: %s", err, plain(r.Why))
		}
		return nil
	case pathList, pathFormat, pathMem, pathPattern:
		for _, p := range jf.paths(s, r, o.Value) {
			if err := checkRelative(p); err != nil {
				return err
			}
		}
	}
	return nil
}

func refusal(r *PathRule) error {
	return fmt.Errorf("%s; refused (storbench keeps fio inside the job's directory)", plain(r.Why))
}

// plain is a table text without its Markdown quotes, for an error line.
func plain(s string) string { return strings.ReplaceAll(s, "`", "") }

// paths returns the paths an option's value names, as written (relative to
// fio's directory= or working directory).
func (jf *JobFile) paths(s *Section, r *PathRule, v string) []string {
	switch r.kind {
	case pathList:
		// fio splits on ':' unless escaped as '\:'; splitting on every
		// ':' sees each part fio can, and more.
		return strings.Split(v, ":")
	case pathFormat:
		return strings.Split(fillFormat(v, jf.jobName(s)), ":")
	case pathMem:
		kind, file, ok := strings.Cut(v, ":")
		if ok && strings.HasPrefix(strings.ToLower(kind), "mmap") {
			return []string{file}
		}
	case pathPattern:
		return patternFiles(v)
	}
	return nil
}

var formatKeyword = regexp.MustCompile(`(?i)\$(jobname|jobnum|filenum|clientuid)`)

// fillFormat fills in fio's filename_format keywords (any case, as fio
// matches them): the job's name, and a number for the others.
func fillFormat(v, job string) string {
	return formatKeyword.ReplaceAllStringFunc(v, func(k string) string {
		if strings.EqualFold(k, "$jobname") {
			return job
		}
		return "0"
	})
}

// patternFiles returns the file names in a fio pattern: the parts in single
// quotes, outside double-quoted strings. An unclosed quote names the rest.
func patternFiles(v string) []string {
	var out []string
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '"':
			if j := strings.IndexByte(v[i+1:], '"'); j >= 0 {
				i += j + 1
			} else {
				i = len(v)
			}
		case '\'':
			j := strings.IndexByte(v[i+1:], '\'')
			if j < 0 {
				return append(out, v[i+1:])
			}
			out = append(out, v[i+1:i+1+j])
			i += j + 1
		}
	}
	return out
}

// checkRelative refuses a path that is absolute, climbs with "..", or is
// fio's stdin/stdout.
func checkRelative(p string) error {
	switch {
	case p == "-":
		return errors.New("'-' is fio's stdin or stdout; name a file in the job's directory")
	case strings.HasPrefix(p, "/"):
		return errors.New("an absolute path leaves the job's directory; give a path relative to it (DIR/storbench/<run id>/<host>/<job>/)")
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return errors.New("'..' climbs out of the job's directory; give a path inside it")
		}
	}
	return nil
}

// checkElement refuses a job name that is not one path element.
func checkElement(n string) error {
	if n == "" || n == "." || n == ".." || strings.Contains(n, "/") {
		return fmt.Errorf("a job name must be one path element")
	}
	return nil
}

// checkLines refuses a job file whose options would not reach fio as the one
// line each that was checked: an override's name or value with a line break,
// ';' or '#' (fio cuts the line there), '=' or blanks in a name, or a name
// that fio reads as a section or an include.
func (jf *JobFile) checkLines(name string) error {
	for _, s := range jf.Sections {
		if strings.ContainsAny(s.Name, "[];#") || strings.ContainsFunc(s.Name, isControl) || strings.TrimSpace(s.Name) != s.Name {
			return fmt.Errorf("%s: [%s]: not a section name fio reads back as written", name, s.Name)
		}
		for _, o := range s.Options {
			k := o.Key
			bad := k == "" || k != strings.TrimSpace(k) || strings.ContainsAny(k, "=;#[") || strings.ContainsFunc(k, isControl) ||
				isInclude(k) || o.Value != strings.TrimSpace(o.Value) || strings.ContainsAny(o.Value, ";#") || strings.ContainsFunc(o.Value, isControl)
			if bad {
				return fmt.Errorf("%s: %q=%q is not one option line as fio reads it (a line break, ';', '#', or '=' in its name); refused", name, o.Key, o.Value)
			}
		}
	}
	again, err := ParseJobFile(name, jf.Render())
	if err != nil {
		return fmt.Errorf("%s: the job file with its options is not one fio reads as checked: %v", name, err)
	}
	if again.Render() != jf.Render() {
		return fmt.Errorf("%s: the job file with its options is not one fio reads as checked", name)
	}
	return nil
}

// checkOnDisk refuses rel (relative to root, already free of "..") when a
// part of it that exists is a symbolic link leading out of root, or one that
// dangles: fio would create its target, wherever that is.
func checkOnDisk(root, rel string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	p := root
	for _, part := range strings.Split(filepath.Clean(rel), "/") {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		target, err := filepath.EvalSymlinks(p)
		if err != nil {
			dest, _ := os.Readlink(p)
			return fmt.Errorf("%s is a symbolic link to %s, which does not exist: fio would create it outside the job's directory", p, dest)
		}
		if !within(realRoot, target) {
			return fmt.Errorf("%s is a symbolic link to %s, outside the job's directory", p, target)
		}
	}
	return nil
}

// within reports whether path p is dir or below it (both resolved).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// diskPath is a path a confined option names, relative to the job's
// directory, or to its data directory (fio's directory=) when inData.
type diskPath struct {
	rel    string
	inData bool
}

// diskPaths lists every path a confined option names, for the agent's
// check of its own disk.
func (jf *JobFile) diskPaths() []diskPath {
	var out []diskPath
	for _, s := range jf.Sections {
		for _, o := range s.Options {
			r := ruleOf[strings.ToLower(o.Key)]
			if r == nil || r.Rule != Confine {
				continue
			}
			for _, p := range jf.paths(s, r, o.Value) {
				if p == "" {
					continue
				}
				out = append(out, diskPath{rel: p, inData: r.inData})
			}
		}
	}
	return out
}

// checkLevels refuses a level of DIR/<parts...> that already exists as a
// symbolic link (engine.CheckLevels: every engine's one rule). The job's
// directory is DIR/storbench/<run id>/<host>/<job>, a shared phase's files
// are in DIR/storbench/<run id>/shared/<entry>.
func checkLevels(dir string, parts ...string) error {
	return engine.CheckLevels(dir, parts...)
}
