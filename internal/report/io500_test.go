package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
)

// io500Fixture is the IO500-shaped score of results' hand-made run (score
// 20), its write phases run for writeS seconds.
func io500Fixture(t *testing.T, writeS float64) *results.IO500Score {
	t.Helper()
	sum, err := results.ReadSummary("../results/testdata/io500")
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range sum.Phases {
		for _, ip := range model.IO500Phases {
			if ip.Name == p.Name && ip.Write {
				for j := range p.Ops {
					sum.Phases[i].Ops[j].DurationS = writeS
				}
			}
		}
	}
	return results.ComputeIO500(sum.Phases)
}

// A run IO500 would mark INVALID (write phases under 300 s) says so where
// its score is printed - the text, summary.md and report.html's card - as
// IO500 does: the score kept and marked [INVALID], each invalid phase
// marked, and why.
func TestIO500InvalidPrinted(t *testing.T) {
	s := io500Fixture(t, 12.5)
	var text, md bytes.Buffer
	IO500Text(&text, s)
	io500Markdown(&md, s)
	card, note := io500Headline(s)
	reason := "ior-hard-write: ran 12.5 s, under IO500's minimum of 300 s for a write phase"
	for _, c := range []struct{ where, out string }{{"text", text.String()}, {"summary.md", md.String()}, {"report.html", card.V + "\n" + note}} {
		if !strings.Contains(c.out, "20.000 [INVALID]") {
			t.Errorf("%s does not mark the score [INVALID]:\n%s", c.where, c.out)
		}
		if !strings.Contains(c.out, reason) || !strings.Contains(c.out, "INVALID by IO500's rules") {
			t.Errorf("%s does not say why (%q):\n%s", c.where, reason, c.out)
		}
	}
	if !strings.Contains(text.String(), "\n    ior-hard-write              1.000 GiB/s  time 12.5 s [INVALID]\n") ||
		!strings.Contains(text.String(), "\n    ior-hard-read               2.000 GiB/s  time 10 s\n") {
		t.Errorf("the text does not mark the write phases alone:\n%s", text.String())
	}
	if !strings.Contains(md.String(), "| ior-hard-write | 1.000 GiB/s [INVALID] |") {
		t.Errorf("summary.md does not mark the phase:\n%s", md.String())
	}

	// A valid run says nothing of validity.
	s = io500Fixture(t, 300)
	text.Reset()
	md.Reset()
	IO500Text(&text, s)
	io500Markdown(&md, s)
	card, note = io500Headline(s)
	if out := text.String() + md.String() + card.V + note; strings.Contains(out, "INVALID") || !strings.Contains(out, "score 20.000\n") {
		t.Errorf("a valid run printed as:\n%s", out)
	}
}

// A phase without a figure leaves the score absent and the run INVALID,
// and both are said.
func TestIO500InvalidAbsentScorePrinted(t *testing.T) {
	sum, err := results.ReadSummary("../results/testdata/io500")
	if err != nil {
		t.Fatal(err)
	}
	for i := range sum.Phases {
		if sum.Phases[i].Name == "find" {
			sum.Phases[i].Status = results.StatusFailed
		}
		for j := range sum.Phases[i].Ops {
			sum.Phases[i].Ops[j].DurationS = 300
		}
	}
	s := results.ComputeIO500(sum.Phases)
	var text bytes.Buffer
	IO500Text(&text, s)
	for _, want := range []string{"score absent: no figure from find: failed\n", "INVALID by IO500's rules", "find: failed, a score of 0\n"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}
