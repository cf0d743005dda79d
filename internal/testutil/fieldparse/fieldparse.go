// Package fieldparse reads IOR's and mdtest's text reports as the
// field's scripts do, line by line, for the tests of --output-format ior
// and mdtest: the same parser reads the real tools' output (committed
// fixtures) and storbench's, so both are held to one reading.
package fieldparse

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// IOR is an IOR 4 report: its header, each test's options and results
// rows, and the summary of all tests.
type IOR struct {
	// Version is what follows "IOR-" on the first line.
	Version string
	// Header are the "key : value" lines before the first test (Began,
	// Command line, Machine), and Finished.
	Header map[string]string
	Tests  []IORTest
	// Summary are the rows of "Summary of all tests", by column name.
	Summary []map[string]string
}

// IORTest is one test: its TestID, StartTime and Path, its Options block
// and its Results rows.
type IORTest struct {
	Head    map[string]string
	Options map[string]string
	// Results are the rows of the Results table, by column name
	// (access, bw(MiB/s), IOPS, ..., iter).
	Results []map[string]string
}

var kv = regexp.MustCompile(`^([^:]*\S)\s*: ?(.*)$`)

// ParseIOR walks an IOR report: the IOR- line, header lines, then per
// test TestID..., "Options:", its lines, "Results:", the table header,
// its rows; "Summary of all tests:", its header and rows; Finished.
func ParseIOR(text string) (*IOR, error) {
	r := &IOR{Header: map[string]string{}}
	var section string
	var cols []string
	var cur *IORTest
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "IOR-"):
			v, _, ok := strings.Cut(line[4:], ":")
			if !ok {
				return nil, fmt.Errorf("IOR line without a colon: %q", line)
			}
			r.Version, section = v, "header"
		case r.Version == "":
			continue
		case strings.TrimSpace(line) == "":
			continue
		case strings.HasPrefix(line, "TestID"):
			r.Tests = append(r.Tests, IORTest{Head: map[string]string{}, Options: map[string]string{}})
			cur, section = &r.Tests[len(r.Tests)-1], "test"
			cur.Head["TestID"] = value(line)
		case strings.HasPrefix(line, "Options:"):
			section = "options"
		case strings.HasPrefix(line, "Results:"):
			section, cols = "results", nil
		case strings.HasPrefix(line, "Summary of all tests:"):
			section, cols = "summary", nil
		case strings.HasPrefix(line, "Finished"):
			r.Header["Finished"] = value(line)
		case section == "results" || section == "summary":
			f := strings.Fields(line)
			switch {
			case cols == nil:
				cols = f
			case strings.HasPrefix(f[0], "---"):
			case len(f) != len(cols):
				return nil, fmt.Errorf("%s row of %d fields under %d columns: %q", section, len(f), len(cols), line)
			default:
				row := map[string]string{}
				for i, c := range cols {
					row[c] = f[i]
				}
				if section == "summary" {
					r.Summary = append(r.Summary, row)
				} else if cur != nil {
					cur.Results = append(cur.Results, row)
				}
			}
		case kv.MatchString(line):
			m := kv.FindStringSubmatch(line)
			switch {
			case section == "header":
				r.Header[m[1]] = m[2]
			case section == "test" && cur != nil:
				cur.Head[m[1]] = m[2]
			case section == "options" && cur != nil:
				cur.Options[m[1]] = strings.TrimSpace(m[2])
			}
		}
	}
	if r.Version == "" || len(r.Tests) == 0 || len(r.Summary) == 0 {
		return nil, fmt.Errorf("not an IOR report: version %q, %d tests, %d summary rows", r.Version, len(r.Tests), len(r.Summary))
	}
	return r, nil
}

func value(line string) string {
	if m := kv.FindStringSubmatch(line); m != nil {
		return m[2]
	}
	return ""
}

// Mdtest is an mdtest 4 report: who ran, its geometry line and its
// SUMMARY table.
type Mdtest struct {
	// Tool is what "was launched with" follows ("mdtest-4.1.0+dev").
	Tool         string
	Tasks, Nodes int
	// GeoTasks, Items and What are the geometry line "T tasks, I what".
	GeoTasks   int
	Items      int64
	What       string
	Iterations int
	// Rows are the SUMMARY table's rows in order: operation, then Max,
	// Min, Mean and Std Dev.
	Rows []MdtestRow
}

// MdtestRow is one row of mdtest's SUMMARY table.
type MdtestRow struct {
	Op                   string
	Max, Min, Mean, Sdev float64
}

var (
	launched = regexp.MustCompile(`^(\S+) was launched with (\d+) total task\(s\) on (\d+) node\(s\)$`)
	geometry = regexp.MustCompile(`^(\d+) tasks, (\d+) (files/directories|files|directories)$`)
	summary  = regexp.MustCompile(`^SUMMARY rate \(in ops/sec\): \(of (\d+) iterations\)$`)
	mdRow    = regexp.MustCompile(`^   (\S.*\S)\s+(\d+\.\d{3})\s+(\d+\.\d{3})\s+(\d+\.\d{3})\s+(\d+\.\d{3})$`)
)

// ParseMdtest walks an mdtest report: the launch line, the geometry
// line, "SUMMARY rate", the table's two header lines, its rows up to
// "-- finished".
func ParseMdtest(text string) (*Mdtest, error) {
	m := &Mdtest{}
	inTable := false
	for _, line := range strings.Split(text, "\n") {
		if g := launched.FindStringSubmatch(line); g != nil {
			m.Tool = g[1]
			m.Tasks, _ = strconv.Atoi(g[2])
			m.Nodes, _ = strconv.Atoi(g[3])
		}
		if g := geometry.FindStringSubmatch(line); g != nil {
			m.GeoTasks, _ = strconv.Atoi(g[1])
			m.Items, _ = strconv.ParseInt(g[2], 10, 64)
			m.What = g[3]
		}
		if g := summary.FindStringSubmatch(line); g != nil {
			m.Iterations, _ = strconv.Atoi(g[1])
			inTable = true
			continue
		}
		if strings.HasPrefix(line, "-- finished") {
			inTable = false
		}
		if !inTable || strings.HasPrefix(line, "   Operation") || strings.HasPrefix(line, "   ---") {
			continue
		}
		g := mdRow.FindStringSubmatch(line)
		if g == nil {
			return nil, fmt.Errorf("SUMMARY row not as mdtest prints it: %q", line)
		}
		row := MdtestRow{Op: g[1]}
		for i, p := range []*float64{&row.Max, &row.Min, &row.Mean, &row.Sdev} {
			*p, _ = strconv.ParseFloat(g[i+2], 64)
		}
		m.Rows = append(m.Rows, row)
	}
	if m.Tool == "" || m.What == "" || len(m.Rows) == 0 {
		return nil, fmt.Errorf("not an mdtest report: tool %q, geometry %q, %d rows", m.Tool, m.What, len(m.Rows))
	}
	return m, nil
}
