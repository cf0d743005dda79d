package record

// SizeClass is a range of object sizes an engine gives results per, when
// the objects of a phase have several sizes: [MinBytes, MaxBytes].
type SizeClass struct {
	// Label names the class as the output prints it ("<=4KiB",
	// "4KiB-64KiB").
	Label    string `json:"label"`
	MinBytes int64  `json:"min_bytes"`
	MaxBytes int64  `json:"max_bytes"`
}

// SizeOpStats is one operation's statistics restricted to the requests on
// objects of one size class (a ranged read counts in its object's class).
type SizeOpStats struct {
	Size SizeClass `json:"size"`
	OpStats
}

// CombineBySize merges lists of per-size statistics by operation and size
// class, keeping the order in which they first appear.
func CombineBySize(lists ...[]SizeOpStats) []SizeOpStats {
	var out []SizeOpStats
	idx := map[[2]string]int{}
	for _, l := range lists {
		for _, s := range l {
			k := [2]string{s.Op, s.Size.Label}
			if i, ok := idx[k]; ok {
				out[i].OpStats = out[i].OpStats.Combine(s.OpStats)
				continue
			}
			idx[k] = len(out)
			out = append(out, s)
		}
	}
	return out
}
