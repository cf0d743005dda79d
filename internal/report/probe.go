package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/storbench/storbench/internal/model"
)

// ProbeText writes what a probe of a service found as a table: a line
// naming the service and how many features work, then one row per
// feature (result, and what was seen). What the service sent (its name,
// its error codes) is printed without control characters.
func ProbeText(w io.Writer, p *model.Probe) error {
	works := 0
	for _, f := range p.Features {
		if f.Result == model.FeatureWorks {
			works++
		}
	}
	server := "it gave no Server header"
	if p.Server != "" {
		server = "Server: " + printable(p.Server)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "S3 probe of %s (%s): %d of %d features work\n", printable(p.Endpoint), server, works, len(p.Features))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FEATURE\tRESULT\tDETAIL")
	for _, f := range p.Features {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", printable(f.Name), printable(f.Result), printable(f.Detail))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// A row without detail would end in the result column's padding.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n"))
	return err
}

// printable is s without control characters (a server's text must not
// move the terminal's cursor or change its colours).
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
}
