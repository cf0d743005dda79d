package fio

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// JobFile is a parsed fio job file: sections in order, each with its options
// in order. Comments and blank lines are dropped from the rendered text, but
// the "# report bandwidth|iops|latency" comment is kept as Report.
type JobFile struct {
	Sections []*Section
	// Report is what the summary headlines: "bandwidth", "iops" or
	// "latency"; empty when the file does not say.
	Report string
}

// Section is one [name] block of a job file.
type Section struct {
	Name    string
	Options []Option
}

// Option is one key or key=value line. A bare key (e.g. "stonewall") has
// HasValue false.
type Option struct {
	Key      string
	Value    string
	HasValue bool
	Line     int
}

var reportRE = regexp.MustCompile(`^[#;]\s*report\s+(bandwidth|iops|latency)\s*$`)

// ParseJobFile parses fio's INI-like job format the way fio reads it, so that
// what storbench checks is what fio runs: a line loses its blanks and
// everything from its first ';' or '#' (fio's comments, at the end of a line
// too); a section header is everything between '[' and the ']' that ends the
// line; a key ends at the first '='. fio's include directive, which fio
// honours on any section line starting with "include", is refused: it reads
// options storbench never sees. name is used in errors.
func ParseJobFile(name, text string) (*JobFile, error) {
	jf := &JobFile{}
	var cur *Section
	for i, raw := range strings.Split(text, "\n") {
		raw = strings.TrimSuffix(raw, "\r")
		if strings.ContainsFunc(raw, isControl) {
			return nil, fmt.Errorf("%s:%d: control character in the line; fio job files are plain text", name, i+1)
		}
		if t := strings.TrimSpace(raw); t != "" && (t[0] == '#' || t[0] == ';') {
			if m := reportRE.FindStringSubmatch(strings.ToLower(t)); m != nil {
				jf.Report = m[1]
			}
			continue
		}
		line := fioLine(raw)
		if line == "" {
			continue
		}
		if isInclude(line) {
			return nil, fmt.Errorf("%s:%d: include reads options from a file storbench does not check; put the included options in the job file", name, i+1)
		}
		if line[0] == '[' {
			if len(line) < 3 || line[len(line)-1] != ']' {
				return nil, fmt.Errorf("%s:%d: malformed section header %q: want [name] alone on the line", name, i+1, line)
			}
			if len(line) > 250 {
				return nil, fmt.Errorf("%s:%d: section name longer than fio reads (250 characters)", name, i+1)
			}
			cur = &Section{Name: line[1 : len(line)-1]}
			jf.Sections = append(jf.Sections, cur)
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("%s:%d: option %q outside any [section]", name, i+1, line)
		}
		opt := Option{Line: i + 1}
		if k, v, ok := strings.Cut(line, "="); ok {
			opt.Key, opt.Value, opt.HasValue = strings.TrimSpace(k), strings.TrimSpace(v), true
		} else {
			opt.Key = line
		}
		cur.Options = append(cur.Options, opt)
	}
	if len(jf.Sections) == 0 {
		return nil, fmt.Errorf("%s: no [job] sections", name)
	}
	return jf, nil
}

// fioLine is a job file line as fio keeps it: cut at its first ';' or '#',
// without blanks around it.
func fioLine(raw string) string {
	if i := strings.IndexAny(raw, ";#"); i >= 0 {
		raw = raw[:i]
	}
	return strings.TrimSpace(raw)
}

// isInclude reports whether fio reads line as its include directive (fio
// compares the first seven bytes; any case is refused here).
func isInclude(line string) bool {
	return len(line) >= 7 && strings.EqualFold(line[:7], "include")
}

func isControl(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }

// isGlobal reports whether fio treats a section as global: fio compares the
// first six characters of its name with "global".
func isGlobal(name string) bool { return strings.HasPrefix(name, "global") }

// Global returns the global section that applies to every job: the first
// section when it is a global one, else a new [global] put first.
func (jf *JobFile) Global() *Section {
	if len(jf.Sections) > 0 && isGlobal(jf.Sections[0].Name) {
		return jf.Sections[0]
	}
	g := &Section{Name: "global"}
	jf.Sections = append([]*Section{g}, jf.Sections...)
	return g
}

// Get returns the value of the last of the keys given in section s: fio
// applies a section's options in order, so the last one counts.
func (s *Section) Get(keys ...string) (string, bool) {
	for i := len(s.Options) - 1; i >= 0; i-- {
		for _, k := range keys {
			if s.Options[i].Key == k {
				return s.Options[i].Value, true
			}
		}
	}
	return "", false
}

// Set sets key=value in s, replacing every occurrence of key or appending it.
func (s *Section) Set(key, value string) {
	out := make([]Option, 0, len(s.Options)+1)
	done := false
	for _, o := range s.Options {
		if o.Key == key {
			if done {
				continue
			}
			o.Value, o.HasValue, done = value, true, true
		}
		out = append(out, o)
	}
	if !done {
		out = append(out, Option{Key: key, Value: value, HasValue: true})
	}
	s.Options = out
}

// Delete removes every occurrence of key from s.
func (s *Section) Delete(key string) {
	out := s.Options[:0]
	for _, o := range s.Options {
		if o.Key != key {
			out = append(out, o)
		}
	}
	s.Options = out
}

// Lookup returns the value a job section sees for the option named by keys
// (fio's name and its aliases): its own, else that of the nearest global
// section before it, since fio's global sections apply to the jobs after
// them.
func (jf *JobFile) Lookup(s *Section, keys ...string) (string, bool) {
	if v, ok := s.Get(keys...); ok {
		return v, true
	}
	at := -1
	for i, x := range jf.Sections {
		if x == s {
			at = i
		}
	}
	for i := at - 1; i >= 0; i-- {
		if isGlobal(jf.Sections[i].Name) {
			if v, ok := jf.Sections[i].Get(keys...); ok {
				return v, true
			}
		}
	}
	return "", false
}

// Render prints the job file back in fio's format, with the report comment.
func (jf *JobFile) Render() string {
	var b strings.Builder
	if jf.Report != "" {
		fmt.Fprintf(&b, "# report %s\n", jf.Report)
	}
	for i, s := range jf.Sections {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "[%s]\n", s.Name)
		for _, o := range s.Options {
			if o.HasValue {
				fmt.Fprintf(&b, "%s=%s\n", o.Key, o.Value)
			} else {
				fmt.Fprintf(&b, "%s\n", o.Key)
			}
		}
	}
	return b.String()
}

// Overrides are the command-line settings that replace a job file's own, so
// the same suite runs in a minute on a small machine or at full scale.
type Overrides struct {
	// Runtime in whole seconds; 0 keeps the file's.
	RuntimeS int64 `json:"runtime_s,omitempty"`
	// SizeBytes replaces filesize/size; 0 keeps the file's.
	SizeBytes int64 `json:"size_bytes,omitempty"`
	// Numjobs replaces numjobs where a section runs more than one job; a
	// single-job section (the latency jobs) keeps numjobs=1, since one job at
	// a time is what it measures.
	Numjobs int `json:"numjobs,omitempty"`
	// Options set fio options (bs, rw, iodepth, ...) in every section that
	// does I/O, replacing the option and its aliases; the create_only
	// sections keep theirs.
	Options map[string]string `json:"options,omitempty"`
}

// aliases lists fio option names that mean the same thing.
var aliases = map[string][]string{
	"bs": {"bs", "blocksize"}, "blocksize": {"bs", "blocksize"},
	"rw": {"rw", "readwrite"}, "readwrite": {"rw", "readwrite"},
	"size": {"size", "filesize"}, "filesize": {"size", "filesize"},
	"iodepth": {"iodepth"}, "ioengine": {"ioengine"},
}

// Apply rewrites the job file with the overrides and drops every directory=
// option: the agent sets the one directory its files go under.
func (jf *JobFile) Apply(o Overrides) {
	g := jf.Global()
	for _, s := range jf.Sections {
		s.Delete("directory")
		if o.RuntimeS > 0 {
			if _, ok := s.Get("runtime", "timeout"); ok || s == g {
				s.Delete("timeout") // fio's other name for runtime
				s.Set("runtime", strconv.FormatInt(o.RuntimeS, 10))
			}
		}
		if o.SizeBytes > 0 {
			for _, k := range []string{"filesize", "size"} {
				if _, ok := s.Get(k); ok {
					s.Set(k, strconv.FormatInt(o.SizeBytes, 10))
				}
			}
		}
		if o.Numjobs > 0 {
			if v, ok := s.Get("numjobs"); ok && v != "1" {
				s.Set("numjobs", strconv.Itoa(o.Numjobs))
			}
		}
	}
	if len(o.Options) > 0 {
		keys := make([]string, 0, len(o.Options))
		for k := range o.Options {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, s := range jf.Sections {
			if v, _ := jf.Lookup(s, "create_only"); v == "1" && s != g {
				continue
			}
			for _, k := range keys {
				names := aliases[k]
				if names == nil {
					names = []string{k}
				}
				if s != g {
					had := false
					for _, n := range names {
						if _, ok := s.Get(n); ok {
							had = true
						}
						s.Delete(n)
					}
					if !had {
						continue
					}
				}
				for _, n := range names {
					g.Delete(n)
				}
				s.Set(k, strings.TrimSpace(o.Options[k]))
			}
		}
	}
	if o.SizeBytes > 0 {
		_, hasF := g.Get("filesize")
		_, hasS := g.Get("size")
		if !hasF && !hasS {
			g.Set("filesize", strconv.FormatInt(o.SizeBytes, 10))
		}
	}
}

// Duration is how long fio will run the file, as planned. fio runs the job
// sections in groups, one group after another (stonewall, or its other name
// wait_for_previous, starts a group), and the sections of a group together;
// numjobs clones of a section run together too. A section lasts its
// startdelay (the longest of a range), then ramp_time, then runtime; a
// create_only section only its startdelay, plus the time laying out its
// files takes, which nobody can plan. A section with wait_for starts when the
// section it names ends. runtime counts in full also without time_based: it
// is then the longest the section may take.
func (jf *JobFile) Duration() time.Duration {
	var groupStart, groupEnd time.Duration
	ends := map[string]time.Duration{}
	first := true
	for _, s := range jf.Sections {
		if isGlobal(s.Name) {
			continue
		}
		if !first && jf.flag(s, "stonewall", "wait_for_previous") {
			groupStart = groupEnd
		}
		first = false
		start := groupStart
		if w, ok := jf.Lookup(s, "wait_for"); ok {
			start = max(start, ends[w])
		}
		d, _ := jf.Lookup(s, "startdelay")
		end := start + fioTime(d)
		if !jf.flag(s, "create_only") {
			ramp, _ := jf.Lookup(s, "ramp_time")
			rt, _ := jf.Lookup(s, "runtime", "timeout")
			end += fioTime(ramp) + fioTime(rt)
		}
		ends[jf.jobName(s)] = end
		groupEnd = max(groupEnd, end)
	}
	return groupEnd
}

// flag reports whether a boolean option (given bare, or with a value other
// than 0) is set for section s.
func (jf *JobFile) flag(s *Section, keys ...string) bool {
	v, ok := jf.Lookup(s, keys...)
	return ok && strings.TrimSpace(v) != "0"
}

// jobName is the name fio gives the job of section s: its name option, else
// the section's name.
func (jf *JobFile) jobName(s *Section) string {
	if v, ok := jf.Lookup(s, "name"); ok && v != "" {
		return v
	}
	return s.Name
}

// fioTime reads a fio time value as fio does: digits, then a unit (us or
// usec, ms or msec, s, m, h, d; none means seconds; any other letters mean
// microseconds). A range ("1-3", "1:3") gives its upper end: the plan is the
// longest fio may take.
func fioTime(v string) time.Duration {
	v = strings.TrimSpace(v)
	if i := strings.LastIndexAny(v, "-:"); i > 0 {
		v = v[i+1:]
	}
	n := 0
	for n < len(v) && v[n] >= '0' && v[n] <= '9' {
		n++
	}
	num, err := strconv.ParseInt(v[:n], 10, 64)
	if err != nil {
		return 0
	}
	unit := strings.ToLower(v[n:])
	var mult time.Duration
	switch {
	case unit == "":
		mult = time.Second
	case strings.HasPrefix(unit, "us"):
		mult = time.Microsecond
	case strings.HasPrefix(unit, "ms"):
		mult = time.Millisecond
	case unit == "s":
		mult = time.Second
	case unit == "m":
		mult = time.Minute
	case unit == "h":
		mult = time.Hour
	case unit == "d":
		mult = 24 * time.Hour
	default:
		mult = time.Microsecond
	}
	if num > int64(1<<62)/int64(mult) {
		return 0
	}
	return time.Duration(num) * mult
}

// rampTime is the longest ramp_time of the sections that do I/O: time a
// job runs before fio starts counting.
func (jf *JobFile) rampTime() time.Duration {
	var d time.Duration
	for _, s := range jf.Sections {
		if isGlobal(s.Name) || jf.flag(s, "create_only") {
			continue
		}
		v, _ := jf.Lookup(s, "ramp_time")
		d = max(d, fioTime(v))
	}
	return d
}
