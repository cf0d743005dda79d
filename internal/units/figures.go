package units

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// bwUnits are the units of a bandwidth: decimal ones, as vendors and
// SI write them (1 GB/s = 10^9 B/s), and binary ones (1 GiB/s = 2^30).
var bwUnits = map[string]float64{
	"b/s": 1, "kb/s": 1e3, "mb/s": 1e6, "gb/s": 1e9, "tb/s": 1e12,
	"kib/s": 1 << 10, "mib/s": 1 << 20, "gib/s": 1 << 30, "tib/s": 1 << 40,
}

// BandwidthUnits lists the units ParseBandwidth takes, for messages.
const BandwidthUnits = "B/s, kB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s or TiB/s"

// rateSuffixes are a rate's multipliers: decimal, as IOPS are written.
var rateSuffixes = map[string]float64{"": 1, "k": 1e3, "m": 1e6, "g": 1e9}

// rateWords are what may follow a rate's number and suffix.
var rateWords = []string{"ops/s", "op/s", "iops", "obj/s", "/s"}

// latencyUnits are the units of a latency, in nanoseconds.
var latencyUnits = map[string]float64{"ns": 1, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9}

// numberUnit splits "1.5 GiB/s" into its number and what follows: the
// number is written in digits (no sign, NaN, Inf, hex or underscores).
var numberUnit = regexp.MustCompile(`^([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(.*)$`)

// number reads the number at the start of s and returns it with the rest
// (trimmed, as written); what is the kind of value, for messages.
func number(what, s string) (float64, string, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "-") {
		return 0, "", fmt.Errorf("%s %q: negative", what, s)
	}
	m := numberUnit.FindStringSubmatch(t)
	if m == nil {
		return 0, "", fmt.Errorf("%s %q: want a number written in digits with its unit", what, s)
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil || math.IsInf(n, 0) {
		return 0, "", fmt.Errorf("%s %q: too large", what, s)
	}
	return n, strings.TrimSpace(m[2]), nil
}

// finite refuses a value that a multiplier took past what a float holds.
func finite(what, s string, v float64) (float64, error) {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%s %q: too large", what, s)
	}
	return v, nil
}

// ParseBandwidth reads bytes per second with its unit: "1.5GiB/s",
// "500 MB/s". kB/s, MB/s, GB/s and TB/s are decimal (as vendors and SI
// write them), KiB/s to TiB/s binary; a number without "/s" is refused.
func ParseBandwidth(s string) (float64, error) {
	n, unit, err := number("bandwidth", s)
	if err != nil {
		return 0, err
	}
	m, ok := bwUnits[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("bandwidth %q: unknown unit %q: want %s", s, unit, BandwidthUnits)
	}
	return finite("bandwidth", s, n*m)
}

// ParseRate reads operations per second: a number with an optional k, M
// or G (decimal, as IOPS are written: 20k = 20,000), optionally followed
// by ops/s, op/s, IOPS, obj/s or /s ("20k", "1.5M IOPS", "800 ops/s").
func ParseRate(s string) (float64, error) {
	n, rest, err := number("rate", s)
	if err != nil {
		return 0, err
	}
	low := strings.ToLower(rest)
	for _, w := range rateWords {
		if strings.HasSuffix(low, w) {
			low = strings.TrimSpace(strings.TrimSuffix(low, w))
			break
		}
	}
	m, ok := rateSuffixes[low]
	if !ok {
		return 0, fmt.Errorf("rate %q: unknown unit %q: want operations per second, a number with k, M or G (20k, 1.5M)", s, rest)
	}
	return finite("rate", s, n*m)
}

// ParseLatency reads a latency with its unit, in nanoseconds: ns, us (or
// µs), ms or s ("5ms", "250us", "1.5s"). A number without a unit is
// refused: ms and us are both common, and a guess would be wrong.
func ParseLatency(s string) (float64, error) {
	n, unit, err := number("latency", s)
	if err != nil {
		return 0, err
	}
	if unit == "" {
		return 0, fmt.Errorf("latency %q: give a unit: ns, us, ms or s (5ms)", s)
	}
	m, ok := latencyUnits[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("latency %q: unknown unit %q: want ns, us, ms or s (5ms)", s, unit)
	}
	return finite("latency", s, n*m)
}

// ParseCount reads a count: a number with an optional k, M or G
// (decimal): "0", "10", "1k".
func ParseCount(s string) (float64, error) {
	n, rest, err := number("count", s)
	if err != nil {
		return 0, err
	}
	m, ok := rateSuffixes[strings.ToLower(rest)]
	if !ok {
		return 0, fmt.Errorf("count %q: unknown unit %q: want a number, with k, M or G (10, 1k)", s, rest)
	}
	return finite("count", s, n*m)
}
