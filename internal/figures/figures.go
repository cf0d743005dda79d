// Package figures names the figures storbench keeps of every operation
// of every phase (rate, bw, mean, p50, p99, p99.9, errors, and a scale's
// knee), their units,
// and how one is written on a command line: PHASE/OP/FIGURE[@HOST]. The
// catalog stores figures by these names, trend and check take them, and
// limits are written on them: one naming for all.
package figures

import (
	"fmt"
	"slices"
	"strings"
)

// Figure names, with their units.
const (
	Rate   = "rate"   // operations per second
	BW     = "bw"     // bytes per second
	Mean   = "mean"   // mean latency, ns
	P50    = "p50"    // latency percentiles, ns
	P99    = "p99"    //
	P999   = "p99.9"  //
	Errors = "errors" // failed operations, a count
	// Knee is a scale's knee (results.Scale.Knee): the most load before
	// the rate flattened or latency broke, kept as the figure of PHASE
	// the scale's group and OP its parameter ("randread/jobs/knee"). A
	// scale whose range ended first has no knee figure: the knee lies
	// beyond it, not at it.
	Knee = "knee"
)

// Names are the figures kept, in the order they are shown: those of every
// operation (OpNames), then a scale's knee.
var Names = append(slices.Clip(OpNames), Knee)

// OpNames are the figures every operation has (Of), which limits judge.
var OpNames = []string{Rate, BW, Mean, P50, P99, P999, Errors}

// Unit is the unit of a figure: "ops/s", "B/s", "ns" or "" (a count).
func Unit(figure string) string {
	switch figure {
	case Rate:
		return "ops/s"
	case BW:
		return "B/s"
	case Errors, Knee:
		return ""
	}
	return "ns"
}

// IsLatency says the figure is a latency (mean or a percentile), in ns.
func IsLatency(figure string) bool {
	return figure == Mean || figure == P50 || figure == P99 || figure == P999
}

// HigherIsBetter says whether a larger value of the figure is better.
func HigherIsBetter(figure string) bool { return figure == Rate || figure == BW || figure == Knee }

// Order is the figure's place in Names (past the end for another name).
func Order(figure string) int {
	if i := slices.Index(Names, figure); i >= 0 {
		return i
	}
	return len(Names)
}

// Named is one figure of an operation and its value in the figure's unit.
type Named struct {
	Name  string
	Value float64
}

// Ref names one figure of one operation of one phase, written
// PHASE/OP/FIGURE or PHASE/OP/FIGURE@HOST: "seq-read/read/bw",
// "md/create/rate", "s3-get/get/p99@client3". FIGURE is one of Names;
// without @HOST the figure is the total across hosts. PHASE and OP may
// hold '*' to match several ("*/read/bw": every phase's read bandwidth).
type Ref struct {
	Phase string `json:"phase"`
	Op    string `json:"op"`
	Name  string `json:"figure"`
	Host  string `json:"host,omitempty"`
}

// String writes the reference as it is parsed.
func (f Ref) String() string {
	s := f.Phase + "/" + f.Op + "/" + f.Name
	if f.Host != "" {
		s += "@" + f.Host
	}
	return s
}

// Parse reads PHASE/OP/FIGURE[@HOST]. PHASE may itself hold '/': the
// last two parts are the operation and the figure.
func Parse(s string) (Ref, error) {
	var f Ref
	body, host, _ := strings.Cut(s, "@")
	parts := strings.Split(body, "/")
	if len(parts) < 3 {
		return f, fmt.Errorf("figure %q: write PHASE/OP/FIGURE (seq-read/read/bw), FIGURE one of %s", s, strings.Join(Names, ", "))
	}
	n := len(parts)
	f = Ref{Phase: strings.Join(parts[:n-2], "/"), Op: parts[n-2], Name: parts[n-1], Host: host}
	if f.Phase == "" || f.Op == "" {
		return f, fmt.Errorf("figure %q: PHASE and OP may not be empty (seq-read/read/bw)", s)
	}
	if !slices.Contains(Names, f.Name) {
		return f, fmt.Errorf("figure %q: unknown figure %q: want one of %s", s, f.Name, strings.Join(Names, ", "))
	}
	return f, nil
}
