package engine

import (
	"fmt"
	"strings"
)

// Suggest returns the known word closest to w, if it is close enough to be a
// likely typo.
func Suggest(w string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(strings.ToLower(w), k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// WholeNumber reads a setting written as a whole number in YAML or on a
// command line (an int, a whole float64, or a string of digits).
func WholeNumber(v any) (int, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case float64:
		if x == float64(int(x)) {
			return int(x), nil
		}
	case string:
		var n int
		if _, err := fmt.Sscan(x, &n); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("want a whole number, got %v", v)
}
