package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
)

// io500DriverFiles reads the result files of a real IO500 run (io500
// 02091cf254d8, 3 ranks, stonewall 1 s: invalid, as its lines say).
func io500DriverFiles(t *testing.T) (summary, result string) {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", "field", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	return read("io500-result_summary.txt"), read("io500-result.txt")
}

// scoreFrom makes the IO500 score the fixture's run had, from its
// result_summary.txt: each scored phase's figure and time, the means, the
// score, and INVALID where the driver marked it.
func scoreFrom(t *testing.T, text string) *results.IO500Score {
	t.Helper()
	line := regexp.MustCompile(`^\[RESULT\]\s+(\S+)\s+(\S+) (\S+) : time (\S+) seconds( \[INVALID\])?$`)
	total := regexp.MustCompile(`^\[SCORE \] Bandwidth (\S+) GiB/s : IOPS (\S+) kiops : TOTAL (\S+)( \[INVALID\])?$`)
	sc := &results.IO500Score{Valid: true}
	num := func(s string) *float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	for _, l := range strings.Split(text, "\n") {
		if m := line.FindStringSubmatch(l); m != nil {
			unit := model.UnitKIOPS
			if m[3] == "GiB/s" {
				unit = model.UnitGiBPerS
			}
			f := results.IO500Figure{Phase: m[1], Unit: unit, Value: num(m[2]), DurationS: num(m[4]), Invalid: m[5] != ""}
			if f.Invalid {
				sc.Invalid = append(sc.Invalid, f.Phase+": Runtime is smaller than expected minimum runtime")
			}
			sc.Figures = append(sc.Figures, f)
		}
		if m := total.FindStringSubmatch(l); m != nil {
			sc.BandwidthGiB, sc.MetadataKIOPS, sc.Score, sc.Valid = num(m[1]), num(m[2]), num(m[3]), m[4] == ""
		}
	}
	return sc
}

// An IO500-shaped run writes IO500's result files as the driver writes
// them: result_summary.txt's lines and result.txt's sections and keys in
// IO500's order, and the hash IO500's scripts check, equal to the one the
// real driver computed for the same figures.
func TestIO500ResultFilesAsTheDriversOwn(t *testing.T) {
	wantSummary, wantResult := io500DriverFiles(t)
	s := &results.Summary{IO500: scoreFrom(t, wantSummary)}
	if len(s.IO500.Figures) != 12 || s.IO500.Valid {
		t.Fatalf("fixture read as %d figures, valid %v", len(s.IO500.Figures), s.IO500.Valid)
	}
	// result_summary.txt: the same lines but the driver's unscored ones
	// (timestamp, ior-rnd4K-easy-read), the version named storbench's.
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(wantSummary), "\n") {
		if !strings.HasPrefix(l, "[      ]") {
			want = append(want, l)
		}
	}
	want[0] = "IO500 version storbench (standard)"
	if got := strings.TrimSpace(string(IO500ResultSummary(s))); got != strings.Join(want, "\n") {
		t.Errorf("result_summary.txt:\n%s\n\nthe driver's, unscored lines left out:\n%s", got, strings.Join(want, "\n"))
	}
	// result.txt: the hash IO500 computed over the same figures.
	hash := regexp.MustCompile(`(?m)^hash\s+= (\S+)$`)
	version := regexp.MustCompile(`(?m)^version\s+= (\S+)$`).FindStringSubmatch(wantResult)[1]
	got := string(io500Result(s, version))
	if g, w := hash.FindStringSubmatch(got), hash.FindStringSubmatch(wantResult); g == nil || g[1] != w[1] {
		t.Errorf("hash %v, the driver's %s\n%s", g, w[1], got)
	}
	// The keys of each section, in the driver's order, where storbench
	// has them (exe, the command run, it has not).
	keys := func(text string) []string {
		var out []string
		for _, l := range strings.Split(text, "\n") {
			k, _, ok := strings.Cut(l, " = ")
			switch {
			case strings.HasPrefix(l, "["):
				out = append(out, l)
			case strings.HasPrefix(l, "; ERROR INVALID"):
				if len(out) == 0 || out[len(out)-1] != "; ERROR INVALID" {
					out = append(out, "; ERROR INVALID") // one or more
				}
			case ok && strings.TrimSpace(k) != "exe" && !strings.HasPrefix(k, "throughput-stonewall") && !strings.HasPrefix(k, "rate-stonewall") &&
				!strings.HasPrefix(k, "config-hash") && !strings.HasPrefix(k, "result-dir") && !strings.HasPrefix(k, "nproc") && !strings.HasPrefix(k, "found") && !strings.HasPrefix(k, "total-files"):
				out = append(out, strings.TrimSpace(k))
			}
		}
		return out
	}
	// The driver's unscored sections and the run's stonewall remark are
	// not storbench's; times are left out where the summary has none.
	var wantKeys []string
	skip := false
	for _, k := range keys(wantResult) {
		if strings.HasPrefix(k, "[") {
			skip = k == "[timestamp]" || k == "[ior-rnd4K-easy-read]"
		}
		if !skip && k != "t_start" && k != "t_end" {
			wantKeys = append(wantKeys, k)
		}
	}
	gotKeys := keys(got)
	// The driver's remark on the stonewall time it was given is in [run];
	// storbench's reasons are per phase.
	wantKeys = slicesDelete(wantKeys, "; ERROR INVALID", 1)
	if strings.Join(gotKeys, "|") != strings.Join(wantKeys, "|") {
		t.Errorf("result.txt keys:\n%s\n\nthe driver's:\n%s", strings.Join(gotKeys, "|"), strings.Join(wantKeys, "|"))
	}
}

// slicesDelete removes the first n occurrences of v.
func slicesDelete(xs []string, v string, n int) []string {
	var out []string
	for _, x := range xs {
		if x == v && n > 0 {
			n--
			continue
		}
		out = append(out, x)
	}
	return out
}
