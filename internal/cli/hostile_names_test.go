package cli

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/storbench/storbench/internal/testutil"
)

// yamlQuoted writes s as a YAML double-quoted string, every rune that is
// not printable ASCII as \uXXXX.
func yamlQuoted(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r < 0x20 || r >= 0x7f || r == '"' || r == '\\' {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String() + `"`
}

// TestHostileNamesRefused (issue 33): every kind of name and label a user
// gives (a suite's name, its labels' keys and values, a phase's name, an
// event's name, --label) holding any control character is refused before
// anything runs, --dry-run included: exit 2, one line naming what to fix,
// and that line shows the character escaped, never raw. Before, each was
// taken and printed raw.
func TestHostileNamesRefused(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	suite := func(name, lk, lv, phase, event string) string {
		return fmt.Sprintf("name: %s\nlabels: {%s: %s}\nphases:\n  - name: %s\n    md: {items: 5, dir: %s}\n    events: [{name: %s, at: 1s, drop_caches: true}]\n",
			yamlQuoted(name), yamlQuoted(lk), yamlQuoted(lv), yamlQuoted(phase), data, yamlQuoted(event))
	}
	if code, o := cmdOut(t, "run", "--dry-run", writeSuite(t, suite("n", "k", "v", "p", "e"))); code != 0 {
		t.Fatalf("the plain suite: exit %d\n%s", code, o)
	}
	for _, h := range testutil.Hostile() {
		bad := "a" + h + "b"
		cases := map[string][]string{"--label value": {"md", "-d", data, "-n", "5", "--label", "tuning=" + bad}}
		if utf8.ValidString(bad) { // a suite is YAML: UTF-8
			for kind, s := range map[string]string{
				"suite name":  suite(bad, "k", "v", "p", "e"),
				"label key":   suite("n", bad, "v", "p", "e"),
				"label value": suite("n", "k", bad, "p", "e"),
				"phase name":  suite("n", "k", "v", bad, "e"),
				"event name":  suite("n", "k", "v", "p", bad),
			} {
				f := writeSuite(t, s)
				cases[kind] = []string{"run", f}
				cases[kind+" (dry run)"] = []string{"run", "--dry-run", f}
			}
		}
		for kind, args := range cases {
			res := t.TempDir()
			st, out := testState()
			err := Execute(t.Context(), st, append(args, "--results", res, "--no-catalog"))
			if err == nil {
				t.Errorf("%s with %q: taken", kind, h)
				continue
			}
			line := ErrorLine(err)
			if ExitCode(err) != ExitUsage || !strings.Contains(line, "control character") || strings.Contains(line, "\n") {
				t.Errorf("%s with %q: exit %d, %q\n%s", kind, h, ExitCode(err), line, out)
			}
			noneRaw(t, fmt.Sprintf("the error of a %s with %q", kind, h), line+out.String())
			if ents, _ := os.ReadDir(res); len(ents) > 0 {
				t.Errorf("%s with %q: a results folder was made", kind, h)
			}
		}
	}
}
