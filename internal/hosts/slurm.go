package hosts

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Slurm host lists, as `scontrol show hostnames` expands them:
//
//   - node[01-16,20]: a bracket group is a comma list of numbers and
//     ranges; each range is printed with at least as many digits as its
//     first bound is written with (node[01-100] gives node01 ... node99,
//     node100).
//   - rack[1-2]-node[01-03]: several groups make every combination, the
//     first group outermost.
//   - a[1-2],b3: commas outside brackets separate entries.
//   - node[1-2]:7761: text after the brackets is copied to every name, so a
//     port (or, in an MPI hostfile, a slot count) applies to each.
//
// Where Slurm guesses, storbench refuses: a '[' without ']' (Slurm adds
// one), and a range whose second bound is zero-padded to another width than
// the first (node[1-010]: Slurm ignores the second bound's padding). A group
// whose text holds ':' is an IPv6 address ("[::1]:7761") and is kept as
// written. Names are counted before any is built, so a list past the limit
// is refused at once however many names it would make.

// idRange is one number or range of a bracket group, printed at least
// width digits wide.
type idRange struct {
	lo, hi uint64
	width  int
}

// count is how many numbers the range holds.
func (r idRange) count() uint64 { return r.hi - r.lo + 1 }

// pattern is a host list entry cut at its bracket groups: lits[k] comes
// before groups[k], and the last literal after the last group.
type pattern struct {
	lits   []string
	groups [][]idRange
}

// splitList splits a host list at the commas outside brackets.
func splitList(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// parsePattern cuts one entry at its bracket groups and checks them.
func parsePattern(s string) (pattern, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("host list %q: %s", s, fmt.Sprintf(format, a...))
	}
	var p pattern
	lit := ""
	rest := s
	for {
		i := strings.IndexAny(rest, "[]")
		if i < 0 {
			break
		}
		if rest[i] == ']' {
			return p, bad("']' without '['")
		}
		j := strings.IndexByte(rest[i+1:], ']')
		if j < 0 {
			return p, bad("'[' without ']'")
		}
		inner := rest[i+1 : i+1+j]
		if strings.Contains(inner, ":") && !strings.Contains(inner, "[") {
			// An IPv6 address, as in "[::1]:7761".
			lit += rest[:i+j+2]
			rest = rest[i+j+2:]
			continue
		}
		g, err := parseGroup(inner)
		if err != nil {
			return p, bad("%v", err)
		}
		p.lits = append(p.lits, lit+rest[:i])
		p.groups = append(p.groups, g)
		lit, rest = "", rest[i+j+2:]
	}
	p.lits = append(p.lits, lit+rest)
	return p, nil
}

// parseGroup reads the text between brackets: "01-16,20".
func parseGroup(s string) ([]idRange, error) {
	if s == "" {
		return nil, fmt.Errorf("empty brackets []")
	}
	var g []idRange
	for _, e := range strings.Split(s, ",") {
		if e == "" {
			return nil, fmt.Errorf("empty number in [%s]", s)
		}
		loText, hiText, isRange := strings.Cut(e, "-")
		if !isRange {
			hiText = loText
		}
		if !digits(loText) || !digits(hiText) {
			return nil, fmt.Errorf("malformed range %q in brackets: write numbers and ranges, as in [01-16,20]", e)
		}
		lo, err1 := strconv.ParseUint(loText, 10, 64)
		hi, err2 := strconv.ParseUint(hiText, 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("number in [%s] too large", s)
		}
		if hi < lo {
			return nil, fmt.Errorf("range [%s] runs backwards: write [%s-%s]", e, hiText, loText)
		}
		if len(hiText) > 1 && hiText[0] == '0' && len(hiText) != len(loText) {
			return nil, fmt.Errorf("the bounds of [%s] are padded differently: write both with the same number of digits", e)
		}
		g = append(g, idRange{lo: lo, hi: hi, width: len(loText)})
	}
	return g, nil
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// count is how many names the pattern makes, saturated at math.MaxUint64.
func (p pattern) count() uint64 {
	total := uint64(1)
	for _, g := range p.groups {
		n := uint64(0)
		for _, r := range g {
			n = addSat(n, r.count())
		}
		total = mulSat(total, n)
	}
	return total
}

func addSat(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

func mulSat(a, b uint64) uint64 {
	if a != 0 && b > math.MaxUint64/a {
		return math.MaxUint64
	}
	return a * b
}

// names appends every name of the pattern to out, first group outermost.
func (p pattern) names(out []string) []string {
	var walk func(k int, prefix string)
	walk = func(k int, prefix string) {
		prefix += p.lits[k]
		if k == len(p.groups) {
			out = append(out, prefix)
			return
		}
		for _, r := range p.groups[k] {
			for n := r.lo; ; n++ {
				walk(k+1, prefix+padded(n, r.width))
				if n == r.hi {
					break
				}
			}
		}
	}
	walk(0, "")
	return out
}

// padded prints n with leading zeros to width digits.
func padded(n uint64, width int) string {
	s := strconv.FormatUint(n, 10)
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return s
}

// expandSlurm expands one entry's bracket groups, refusing it before
// building anything when it makes more than room names.
func expandSlurm(s string, room, limit int) ([]string, error) {
	if !strings.ContainsAny(s, "[]") {
		return []string{s}, nil
	}
	p, err := parsePattern(s)
	if err != nil {
		return nil, err
	}
	if n := p.count(); n > uint64(room) {
		return nil, overLimit(s, n, room, limit)
	}
	return p.names(nil), nil
}

// overLimit says that the entry s makes n names where only room are left
// under the limit.
func overLimit(s string, n uint64, room, limit int) error {
	if n == 1 {
		return fmt.Errorf("host list goes over the limit of %d names at %q; raise the limit if this is intended", limit, s)
	}
	count := strconv.FormatUint(n, 10)
	if n == math.MaxUint64 {
		count = "more than " + count
	}
	left := ""
	if room < limit {
		left = fmt.Sprintf(" (%d left after the hosts before it)", max(room, 0))
	}
	return fmt.Errorf("host list %q expands to %s names, over the limit of %d%s; raise the limit if this is intended", s, count, limit, left)
}
