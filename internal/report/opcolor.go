package report

import "hash/fnv"

// opColors give each operation the report and serve draw one colour
// wherever it appears: md's twelve operations all differ, so that a chart
// of every operation of a phase tells them apart, and fio's and S3's
// reads and writes share the blue and red of md's file-read and
// file-create (no phase has both).
var opColors = map[string]string{
	"read": "#1f77b4", "write": "#d62728", "trim": "#8c564b",
	"GET": "#1f77b4", "PUT": "#d62728", "DELETE": "#ff7f0e", "LIST": "#2ca02c", "STAT": "#9467bd",
	"tree-create": "#393b79", "dir-create": "#2ca02c", "dir-stat": "#17becf", "dir-rename": "#bcbd22",
	"dir-remove": "#8c564b", "file-create": "#d62728", "find": "#7f7f7f", "file-stat": "#9467bd",
	"file-read": "#1f77b4", "file-rename": "#e377c2", "file-remove": "#ff7f0e", "tree-remove": "#e7ba52",
}

// OpColor is the colour of an operation in every chart: its own, or for
// an operation of no known engine one of the palette's picked by its
// name (the same name, the same colour, whatever else the chart holds).
func OpColor(op string) string {
	if c, ok := opColors[op]; ok {
		return c
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(op))
	return palette[h.Sum32()%uint32(len(palette))]
}
