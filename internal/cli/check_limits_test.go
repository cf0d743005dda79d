package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// check gates a catalog query on limits: with --own-limits every run the
// query matches is judged by the limits it ran with, as the catalog kept
// their verdicts (real md runs with --limit, indexed at their end), and
// one that crossed a limit fails the check with exit 4, or --fail-code,
// naming the run and the limit; --limits judges every matched run's
// figures. A query that matches no run, or --own-limits on runs given
// none, is bad input, as is a query beside --baseline.
func TestCheckQueryOnLimits(t *testing.T) {
	t.Parallel()
	cat := filepath.Join(t.TempDir(), "catalog.db")
	ids := map[string]string{}
	for _, r := range []struct{ label, limit string }{
		{"kept", "md/file-create/rate>1"},
		{"crossed", "md/file-stat/p99<1ns"},
		{"none", ""},
	} {
		res := t.TempDir()
		args := []string{"md", "-d", t.TempDir(), "-n", "20", "-t", "1", "--results", res, "--catalog", cat, "--label", "suite=gate", "--label", "gate=" + r.label}
		if r.limit != "" {
			args = append(args, "--limit", r.limit)
		}
		code, out := cmdOut(t, args...)
		if want := map[bool]int{true: ExitLimit, false: ExitOK}[r.label == "crossed"]; code != want {
			t.Fatalf("md %s: exit %d, want %d\n%s", r.label, code, want, out)
		}
		_, s := readOnlySummary(t, res)
		ids[r.label] = s.RunID
	}
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"check", "id=" + ids["kept"], "--own-limits"}, ExitOK, []string{"run " + ids["kept"] + " against 1 limits", "limit md/file-create/rate>1: ", "met"}},
		{[]string{"check", "id=" + ids["crossed"], "--own-limits"}, ExitLimit, []string{"md/file-stat/p99<1ns: ", "CROSSED", "run " + ids["crossed"] + " did not keep 1 limits: md/file-stat/p99<1ns (CROSSED)"}},
		{[]string{"check", "label=suite=gate", "--own-limits"}, ExitLimit, []string{"run " + ids["kept"] + " against 1 limits", "run " + ids["none"] + " against 0 limits", "1 of 3 runs did not keep their limits: run " + ids["crossed"]}},
		{[]string{"check", "label=suite=gate", "--own-limits", "--fail-code", "9"}, 9, []string{"1 of 3 runs did not keep their limits"}},
		{[]string{"check", "label=gate=kept", "--own-limits", "--limits", "md/file-stat/p99<1ns"}, ExitLimit, []string{"against 2 limits", "met", "CROSSED"}},
		{[]string{"check", "label=suite=gate", "--limits", "md/file-create/rate>1"}, ExitOK, []string{"run " + ids["none"] + " against 1 limits"}},
		{[]string{"check", "label=gate=none", "--own-limits"}, ExitUsage, []string{"none of the 1 runs was given limits"}},
		{[]string{"check", "label=gate=nosuch", "--own-limits"}, ExitUsage, []string{"matches no run"}},
		{[]string{"check", "label=suite=gate", "--limits", "md/file-create/rate>1", "--baseline", "label=gate=kept"}, ExitUsage, []string{"a query is judged on limits alone"}},
		{[]string{"check", "label=suite=gate", "--limits", "nosuch/file-create/rate>1"}, ExitUsage, []string{"no phase nosuch"}},
		{[]string{"check", "nosuch=1", "--own-limits"}, ExitUsage, []string{`unknown key "nosuch"`}},
	} {
		code, out := cmdOut(t, append(tc.args, "--catalog", cat)...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, tc.code, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, out)
			}
		}
	}
	code, out := cmdOut(t, "check", "label=suite=gate", "--own-limits", "--json", "--catalog", cat)
	var judged []struct {
		Run    string `json:"run"`
		Limits []struct {
			Limit  string   `json:"limit"`
			Value  *float64 `json:"value"`
			Passed *bool    `json:"passed"`
		} `json:"limits"`
	}
	if err := json.Unmarshal([]byte(out[:strings.LastIndex(out, "]")+1]), &judged); err != nil || code != ExitLimit || len(judged) != 3 {
		t.Fatalf("--json: exit %d, %v\n%s", code, err, out)
	}
	for _, j := range judged {
		if j.Run == ids["crossed"] && (len(j.Limits) != 1 || j.Limits[0].Passed == nil || *j.Limits[0].Passed || j.Limits[0].Value == nil) {
			t.Errorf("--json: the crossed run's limits %+v", j.Limits)
		}
	}
}
