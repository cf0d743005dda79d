package fio

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
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

// ParseJobFile parses fio's INI-like job format. name is used in errors.
func ParseJobFile(name, text string) (*JobFile, error) {
	jf := &JobFile{}
	var cur *Section
	for i, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(strings.TrimSuffix(raw, "\r"))
		if line == "" {
			continue
		}
		if line[0] == '#' || line[0] == ';' {
			if m := reportRE.FindStringSubmatch(strings.ToLower(line)); m != nil {
				jf.Report = m[1]
			}
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 2 {
				return nil, fmt.Errorf("%s:%d: malformed section header %q", name, i+1, line)
			}
			cur = &Section{Name: line[1:end]}
			jf.Sections = append(jf.Sections, cur)
			continue
		}
		if cur == nil {
			if strings.HasPrefix(line, "include ") {
				return nil, fmt.Errorf("%s:%d: 'include' is not supported: put the included options in the job file", name, i+1)
			}
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

// Global returns the [global] section, creating it first in the file when the
// file has none.
func (jf *JobFile) Global() *Section {
	for _, s := range jf.Sections {
		if s.Name == "global" {
			return s
		}
	}
	g := &Section{Name: "global"}
	jf.Sections = append([]*Section{g}, jf.Sections...)
	return g
}

// Get returns the value of key in section s.
func (s *Section) Get(key string) (string, bool) {
	for _, o := range s.Options {
		if o.Key == key {
			return o.Value, true
		}
	}
	return "", false
}

// Set sets key=value in s, replacing an existing key or appending it.
func (s *Section) Set(key, value string) {
	for i := range s.Options {
		if s.Options[i].Key == key {
			s.Options[i].Value, s.Options[i].HasValue = value, true
			return
		}
	}
	s.Options = append(s.Options, Option{Key: key, Value: value, HasValue: true})
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

// Lookup returns the value a job section sees for key: its own, else the
// global one.
func (jf *JobFile) Lookup(s *Section, key string) (string, bool) {
	if v, ok := s.Get(key); ok {
		return v, true
	}
	for _, g := range jf.Sections {
		if g.Name == "global" {
			return g.Get(key)
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
			if _, ok := s.Get("runtime"); ok || s == g {
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
				s.Set(k, o.Options[k])
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

// CheckSafe refuses options that run commands or reach outside the phase's
// directory, unless allowExec lets the command-running ones through.
func (jf *JobFile) CheckSafe(name string, allowExec bool) error {
	for _, s := range jf.Sections {
		for _, o := range s.Options {
			k, v := strings.ToLower(o.Key), strings.ToLower(o.Value)
			runs := k == "exec_prerun" || k == "exec_postrun" ||
				(k == "ioengine" && (v == "exec" || strings.HasPrefix(v, "external") || strings.Contains(v, "/")))
			if runs && !allowExec {
				return fmt.Errorf("%s:%d: %s=%s runs a command or loads external code; refused (pass --allow-exec to permit it)", name, o.Line, o.Key, o.Value)
			}
			if k == "filename" || k == "filename_format" {
				for _, f := range strings.Split(o.Value, ":") {
					if strings.HasPrefix(f, "/") || hasDotDot(f) {
						return fmt.Errorf("%s:%d: %s=%s points outside the target directory; use a relative name", name, o.Line, o.Key, o.Value)
					}
				}
			}
		}
	}
	return nil
}

func hasDotDot(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return true
		}
	}
	return false
}

// Duration estimates how long fio will run the file, in seconds: for each
// stonewalled group its startdelay plus runtime, when time_based.
func (jf *JobFile) Duration() int64 {
	var total int64
	for _, s := range jf.Sections {
		if s.Name == "global" {
			continue
		}
		if v, _ := jf.Lookup(s, "create_only"); v == "1" {
			continue
		}
		rt, _ := jf.Lookup(s, "runtime")
		sd, _ := jf.Lookup(s, "startdelay")
		total += seconds(rt) + seconds(sd)
	}
	return total
}

// seconds reads a fio time value: plain seconds, or with s/m/h suffix.
func seconds(v string) int64 {
	v = strings.TrimSpace(strings.ToLower(v))
	mult := int64(1)
	switch {
	case strings.HasSuffix(v, "ms"):
		n, _ := strconv.ParseInt(strings.TrimSuffix(v, "ms"), 10, 64)
		return n / 1000
	case strings.HasSuffix(v, "s"):
		v = strings.TrimSuffix(v, "s")
	case strings.HasSuffix(v, "m"):
		v, mult = strings.TrimSuffix(v, "m"), 60
	case strings.HasSuffix(v, "h"):
		v, mult = strings.TrimSuffix(v, "h"), 3600
	}
	n, _ := strconv.ParseInt(v, 10, 64)
	return n * mult
}
