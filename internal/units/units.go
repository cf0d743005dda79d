// Package units parses and prints the sizes, durations, rates and latencies a
// storage engineer types and reads.
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// multipliers are binary, as fio reads them: 4k = 4096, 1M = 1Mi = 1048576.
var multipliers = map[string]int64{
	"": 1, "b": 1,
	"k": 1 << 10, "ki": 1 << 10, "kib": 1 << 10, "kb": 1 << 10,
	"m": 1 << 20, "mi": 1 << 20, "mib": 1 << 20, "mb": 1 << 20,
	"g": 1 << 30, "gi": 1 << 30, "gib": 1 << 30, "gb": 1 << 30,
	"t": 1 << 40, "ti": 1 << 40, "tib": 1 << 40, "tb": 1 << 40,
}

// ParseSize reads a size such as "4k", "256M", "1Mi", "2GiB" or "4096".
// Suffixes are binary (as in fio): k = 1024. Negative sizes are refused.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, suf := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	m, ok := multipliers[suf]
	if num == "" || !ok {
		return 0, fmt.Errorf("invalid size %q (want a number with an optional k, M, G or T suffix, e.g. 256M)", s)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsInf(f*float64(m), 0) || f*float64(m) > math.MaxInt64/2 {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	return int64(f * float64(m)), nil
}

// ParseDuration reads a duration with its unit, such as "30s", "5m" or
// "1h30m". A bare number other than 0 is refused: read as seconds by some
// tools and as something else by others, it is a guess either way (fio job
// files keep fio's own rules, which storbench does not read through here).
// Negative durations are refused.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if n, err := strconv.ParseFloat(t, 64); err == nil {
		if n == 0 {
			return 0, nil
		}
		return 0, fmt.Errorf("invalid duration %q: give a unit, e.g. %ss, %sm or %sh", s, t, t, t)
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (want e.g. 30s, 5m or 1h)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("invalid duration %q: negative", s)
	}
	return d, nil
}

// Bandwidth prints bytes per second in binary units: "9.37 GiB/s".
func Bandwidth(bytesPerSec float64) string {
	return Bytes(bytesPerSec) + "/s"
}

// Bytes prints a byte count in binary units with three significant figures.
func Bytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for math.Abs(b) >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return sig3(b) + " " + units[i]
}

// Rate prints an operation rate: "164595 ops/s" below a million, else "1.55M ops/s".
func Rate(opsPerSec float64, unit string) string {
	s := strconv.FormatFloat(math.Round(opsPerSec), 'f', 0, 64)
	if opsPerSec >= 1e6 {
		s = sig3(opsPerSec/1e6) + "M"
	}
	if unit == "" {
		return s
	}
	return s + " " + unit
}

// Latency prints nanoseconds in the unit a person reads: "850 ns",
// "237 us", "12.5 us", "4.55 ms", "1.20 s".
func Latency(ns float64) string {
	switch {
	case ns < 1e3:
		return strconv.FormatFloat(math.Round(ns), 'f', 0, 64) + " ns"
	case ns < 1e6:
		return sig3(ns/1e3) + " us"
	case ns < 1e9:
		return sig3(ns/1e6) + " ms"
	default:
		return sig3(ns/1e9) + " s"
	}
}

// sig3 prints x with three significant figures, but never drops integer
// digits: 9.37, 12.5, 237, 4096.
func sig3(x float64) string {
	a := math.Abs(x)
	switch {
	case a >= 100 || a == 0:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	default:
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
}
