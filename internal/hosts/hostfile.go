package hosts

import (
	"errors"
	"fmt"
	"net"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSlots is the most slots a host file may give one host: more than any
// machine has cores, less than would let a typo start millions of workers.
const MaxSlots = 1 << 16

// Entry is one host of a host list: where its agent listens, and how many
// workers a host file gives it.
type Entry struct {
	// Host is a host name or an IP address, checked with CheckName.
	Host string
	// Port is the agent's port; 0 when the list gives none (the caller's
	// default).
	Port int
	// Slots is the number of workers per host the file gives (MPI's
	// slots); 0 when it gives none.
	Slots int
	// Dir is where this host mounts the run's target directory, when a
	// host file gives it a path of its own (dir=PATH): hosts that mount
	// one shared namespace at different places. Empty: the run's -d.
	Dir string
}

// String writes the entry as host lists write it: host, or host:port
// ("[v6]:port" for an IPv6 address with a port).
func (e Entry) String() string {
	if e.Port == 0 {
		return e.Host
	}
	return net.JoinHostPort(e.Host, strconv.Itoa(e.Port))
}

// ParseEntry reads one expanded name of a host list: host, host:port,
// [v6]:port or a bare IPv6 address. The host is checked with CheckName and
// the port must be 1 to 65535.
func ParseEntry(s string) (Entry, error) {
	if _, _, err := net.SplitHostPort(s); err == nil {
		h, p, err := SplitHostPort(s)
		return Entry{Host: h, Port: p}, err
	}
	if strings.Count(s, ":") > 1 { // a bare IPv6 address
		return Entry{Host: s}, CheckName(s)
	}
	if strings.Contains(s, ":") {
		return Entry{}, fmt.Errorf("%q: want host or host:port", s)
	}
	return Entry{Host: s}, CheckName(s)
}

// Format says how the lines of a host file read.
type Format int

const (
	// AgentsFormat is storbench's agents file (--agents-file): host lists
	// (host[:port], ranges, Slurm lists), several per line; or one host
	// list followed by Open MPI's slots=N [max_slots=M]. host:N is always
	// a port here, as it always was.
	AgentsFormat Format = iota
	// MPIFormat is an MPI hostfile (--hostfile), as mpiexec -f and mpirun
	// --hostfile read it: one host list per line, with MPICH's host:N or
	// Open MPI's slots=N [max_slots=M] giving its slots. host:N is slots
	// here; agents listen on the default port.
	MPIFormat
)

// String names the format in messages.
func (f Format) String() string {
	if f == MPIFormat {
		return "MPI hostfile"
	}
	return "agents file"
}

// ParseHostfile reads a host file. Both formats take '#' comments, blank
// lines, brace ranges and Slurm lists. A host listed twice is listed once
// when no slots are given, as host lists always did; with slots it is
// refused, since MPI adds the slots of repeated lines and storbench would
// not. Errors name the file and line ("hosts.txt:3: ..."). limit caps the
// number of hosts (0 means DefaultLimit).
func ParseHostfile(name string, text []byte, f Format, limit int) ([]Entry, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	type key struct {
		host string
		port int
	}
	var out []Entry
	at := map[key]int{}   // index in out
	line := map[key]int{} // line first listing the host
	for i, l := range strings.Split(string(text), "\n") {
		if err := textLine(l); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, i+1, err)
		}
		l, _, _ = strings.Cut(l, "#")
		fields := strings.Fields(l)
		if len(fields) == 0 {
			continue
		}
		es, err := parseLine(fields, f, limit-len(out), limit)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, i+1, err)
		}
		for _, e := range es {
			k := key{e.Host, e.Port}
			if j, dup := at[k]; dup {
				if e.Slots == 0 && out[j].Slots == 0 {
					continue
				}
				return nil, fmt.Errorf("%s:%d: %s is already listed at line %d: list each host once, with all its slots", name, i+1, e, line[k])
			}
			at[k], line[k] = len(out), i+1
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s names no host", name)
	}
	return out, nil
}

// maxLineBytes is the longest line a host file may have: a host name,
// its options and a comment fit many times over.
const maxLineBytes = 4096

// textLine refuses a line no host file has, before it is quoted in an
// error: one past maxLineBytes, control characters, bytes that are not
// UTF-8 (a binary file given by mistake).
func textLine(l string) error {
	if len(l) > maxLineBytes {
		return fmt.Errorf("a line of %d bytes, over the %d a host file's line may have: give a file listing hosts, one a line", len(l), maxLineBytes)
	}
	if !utf8.ValidString(l) || strings.ContainsFunc(strings.TrimSuffix(l, "\r"), func(r rune) bool { return unicode.IsControl(r) && r != '\t' }) {
		return errors.New("not text (control characters, or bytes that are not UTF-8): give a file listing hosts, one a line")
	}
	return nil
}

// parseLine reads one line's fields into at most room entries.
func parseLine(fields []string, f Format, room, limit int) ([]Entry, error) {
	var lists, opts []string
	for _, fl := range fields {
		if fl == "=" || strings.HasPrefix(fl, "=") {
			return nil, fmt.Errorf("write slots=N, without spaces around '='")
		}
		if strings.Contains(fl, "=") {
			opts = append(opts, fl)
		} else {
			lists = append(lists, fl)
		}
	}
	if len(opts) > 0 && (len(lists) != 1 || strings.Contains(fields[0], "=")) {
		return nil, fmt.Errorf("want one host list, then slots=N [max_slots=M] [dir=PATH]")
	}
	if f == MPIFormat && len(lists) > 1 {
		return nil, fmt.Errorf("want one host list per line, as MPI hostfiles have")
	}
	slots, dir, err := parseOptions(opts)
	if err != nil {
		return nil, err
	}
	names, err := expand(lists, room, limit)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(names))
	for _, n := range names {
		var e Entry
		if f == MPIFormat {
			e, err = parseMPIName(n)
			if err == nil && e.Slots > 0 && slots > 0 {
				err = fmt.Errorf("%s gives slots twice: write host:N or host slots=N", n)
			}
		} else {
			e, err = ParseEntry(n)
		}
		if err != nil {
			return nil, err
		}
		if slots > 0 {
			e.Slots = slots
		}
		e.Dir = dir
		out = append(out, e)
	}
	return out, nil
}

// parseOptions reads Open MPI's slots=N and max_slots=M (max-slots=M),
// and storbench's dir=PATH (the host's own path for the run's target
// directory: absolute); max_slots only caps oversubscription, which
// storbench never does, so it is checked and otherwise ignored.
func parseOptions(opts []string) (slots int, dir string, err error) {
	seen := map[string]bool{}
	maxSlots := 0
	for _, o := range opts {
		k, v, _ := strings.Cut(o, "=")
		var dst *int
		switch k {
		case "slots":
			dst = &slots
		case "max_slots", "max-slots":
			k, dst = "max_slots", &maxSlots
		case "dir":
		default:
			return 0, "", fmt.Errorf("%q is not understood: a host may be followed by slots=N, max_slots=M and dir=PATH", o)
		}
		if seen[k] {
			return 0, "", fmt.Errorf("%s given twice", k)
		}
		seen[k] = true
		if k == "dir" {
			if !path.IsAbs(v) || path.Clean(v) != v {
				return 0, "", fmt.Errorf("%s: give the host's path for the run's directory as a clean absolute path (dir=/mnt/gluster)", o)
			}
			dir = v
			continue
		}
		n, ok := parseSlots(v)
		if !ok {
			return 0, "", fmt.Errorf("%s: want a whole number of workers from 1 to %d", o, MaxSlots)
		}
		*dst = n
	}
	if slots > 0 && maxSlots > 0 && maxSlots < slots {
		return 0, "", fmt.Errorf("max_slots=%d is below slots=%d", maxSlots, slots)
	}
	return slots, dir, nil
}

// parseSlots reads a slot count: decimal digits, 1 to MaxSlots.
func parseSlots(s string) (int, bool) {
	if !digits(s) || len(s) > 6 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 1 && n <= MaxSlots
}

// parseMPIName reads one expanded name of an MPI hostfile: host, host:N
// (MPICH's slots), [v6] or [v6]:N.
func parseMPIName(s string) (Entry, error) {
	host, slots, hasSlots := s, "", false
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.IndexByte(s, ']')
		if end < 0 || (end+1 < len(s) && s[end+1] != ':') {
			return Entry{}, fmt.Errorf("%q: want [address] or [address]:slots", s)
		}
		host = s[1:end]
		if end+1 < len(s) {
			slots, hasSlots = s[end+2:], true
		}
	case strings.Count(s, ":") > 1:
		return Entry{}, fmt.Errorf("%q: write the IPv6 address in brackets: [address] or [address]:slots", s)
	default:
		host, slots, hasSlots = strings.Cut(s, ":")
	}
	if err := CheckName(host); err != nil {
		return Entry{}, err
	}
	e := Entry{Host: host}
	if hasSlots {
		n, ok := parseSlots(slots)
		if !ok {
			return Entry{}, fmt.Errorf("slots %s of %q: want a whole number of workers from 1 to %d (an MPI hostfile's host:N gives slots, not a port)", slots, s, MaxSlots)
		}
		e.Slots = n
	}
	return e, nil
}

// EqualSlots returns the slots every entry has (0 when none has any).
// Entries whose slots differ are refused: every host receives the same
// phase, so workers per host are the same on all of them.
func EqualSlots(entries []Entry) (int, error) {
	if len(entries) == 0 {
		return 0, nil
	}
	first := entries[0]
	for _, e := range entries[1:] {
		if e.Slots != first.Slots {
			a, b := "no slots", "none"
			if first.Slots > 0 {
				a = fmt.Sprintf("%d slots", first.Slots)
			}
			if e.Slots > 0 {
				b = strconv.Itoa(e.Slots)
			}
			return 0, fmt.Errorf("hosts' slots differ (%s has %s and %s %s): every host runs the same number of workers; give every host the same slots", first, a, e, b)
		}
	}
	return first.Slots, nil
}

// MostSlots is the most slots any of entries gives (0: none).
func MostSlots(entries []Entry) int {
	most := 0
	for _, e := range entries {
		most = max(most, e.Slots)
	}
	return most
}
