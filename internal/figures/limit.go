package figures

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/storbench/storbench/internal/units"
)

// Limit is an absolute bound a figure must keep, as k6's thresholds are:
// "randread/read/p99<5ms", "md/file-create/rate>20k". A run whose figure
// crosses it fails with exit 4 once every phase has run.
type Limit struct {
	// Ref is the figure: its phase (or suite entry), operation and name.
	// A limit is on the total across hosts: Ref.Host is empty.
	Ref Ref
	// Op is the comparison the figure must satisfy: <, <=, > or >=.
	Op string
	// Value is the bound in the figure's unit (Unit: ns, ops/s, B/s or a
	// count), Text the bound as written.
	Value float64
	Text  string
}

// String writes the limit as it is parsed: PHASE/OP/FIGURE, the
// comparison and the bound as written.
func (l Limit) String() string { return l.Ref.String() + l.Op + l.Text }

// Ops are the comparisons a limit takes, longest first (<= before <).
var Ops = []string{"<=", ">=", "<", ">"}

// ParseLimit reads PHASE/OP/FIGURE<VALUE (or <=, >, >=). The value is
// read in the figure's unit as internal/units reads it: a latency with
// its unit (5ms), a rate with k, M or G (20k), a bandwidth with its unit
// (1.5GiB/s), a count (errors<1). A limit no figure can meet (under 0)
// or that every figure meets (at least 0) is refused: it would say
// nothing.
func ParseLimit(s string) (Limit, error) {
	at := strings.LastIndexAny(s, "<>")
	if at < 0 {
		return Limit{}, fmt.Errorf("limit %q: write PHASE/OP/FIGURE<VALUE or >VALUE (randread/read/p99<5ms, md/file-create/rate>20k)", s)
	}
	if _, host, ok := strings.Cut(s, "@"); ok {
		return Limit{}, fmt.Errorf("limit %q: a limit is on the total across hosts; leave out @%s", s, host)
	}
	ref, op, val := s[:at], s[at:at+1], s[at+1:]
	if strings.HasPrefix(val, "=") {
		op, val = op+"=", val[1:]
	}
	ref = strings.TrimSpace(ref)
	if strings.ContainsAny(ref, "<>=!") {
		return Limit{}, fmt.Errorf("limit %q: one comparison, <, <=, > or >=, between the figure and its value", s)
	}
	if name := ref[strings.LastIndex(ref, "/")+1:]; strings.Count(ref, "/") >= 2 && !slices.Contains(OpNames, name) {
		// A limit is judged on an operation's figures (Judge): one on
		// another figure would never be measured, and always fail.
		what := fmt.Sprintf("unknown figure %q", name)
		if slices.Contains(Names, name) {
			what = fmt.Sprintf("%q is a scale's figure, not an operation's", name)
		}
		return Limit{}, fmt.Errorf("limit %q: %s: a limit takes %s", s, what, strings.Join(OpNames, ", "))
	}
	r, err := Parse(ref)
	if err != nil {
		return Limit{}, fmt.Errorf("limit %q: %v", s, err)
	}
	return limitOn(s, r, op, strings.TrimSpace(val))
}

// ParsePhaseLimit reads OP/FIGURE<VALUE, a limit of the phase named phase
// (a suite entry's limits:).
func ParsePhaseLimit(phase, s string) (Limit, error) {
	head := s
	if at := strings.IndexAny(s, "<>"); at >= 0 {
		head = s[:at]
	}
	if strings.Count(head, "/") != 1 {
		return Limit{}, fmt.Errorf("limit %q: write OP/FIGURE<VALUE in a phase's limits (read/p99<5ms): the phase is the entry's own", s)
	}
	return ParseLimit(phase + "/" + s)
}

// limitOn reads the bound val of a limit on r and refuses one that says
// nothing.
func limitOn(s string, r Ref, op, val string) (Limit, error) {
	if val == "" {
		return Limit{}, fmt.Errorf("limit %q: no value after %s: give one with its unit (%s)", s, op, example(r.Name))
	}
	v, err := parseValue(r.Name, val)
	if err != nil {
		return Limit{}, fmt.Errorf("limit %q: %s is %s: %v", s, r.Name, kind(r.Name), err)
	}
	switch {
	case v == 0 && op == "<":
		return Limit{}, fmt.Errorf("limit %q: no figure is under 0: the limit cannot be met", s)
	case v == 0 && op == ">=":
		return Limit{}, fmt.Errorf("limit %q: every figure is at least 0: the limit says nothing", s)
	case math.IsInf(v, 0) || math.IsNaN(v):
		return Limit{}, fmt.Errorf("limit %q: too large", s)
	}
	return Limit{Ref: r, Op: op, Value: v, Text: val}, nil
}

// parseValue reads a bound in the unit of figure.
func parseValue(figure, val string) (float64, error) {
	switch {
	case IsLatency(figure):
		return units.ParseLatency(val)
	case figure == Rate:
		return units.ParseRate(val)
	case figure == BW:
		return units.ParseBandwidth(val)
	}
	return units.ParseCount(val)
}

// kind names what a figure is, for messages.
func kind(figure string) string {
	switch {
	case IsLatency(figure):
		return "a latency"
	case figure == Rate:
		return "a rate"
	case figure == BW:
		return "a bandwidth"
	}
	return "a count"
}

func example(figure string) string {
	switch {
	case IsLatency(figure):
		return "5ms"
	case figure == Rate:
		return "20k"
	case figure == BW:
		return "1.5GiB/s"
	}
	return "1"
}

// Met says whether value keeps the limit.
func (l Limit) Met(value float64) bool {
	switch l.Op {
	case "<":
		return value < l.Value
	case "<=":
		return value <= l.Value
	case ">":
		return value > l.Value
	}
	return value >= l.Value
}
