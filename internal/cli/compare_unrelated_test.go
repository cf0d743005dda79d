package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// compare of two unrelated runs is refused before anything is printed
// (issue 36 item 4): it printed every setting that differed (57 lines for
// a fio run against an md run) and only then said they had no phase in
// common.
func TestCompareRefusesUnrelatedRunsFirst(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"--md"}, {"--json"}} {
		st, out := testState()
		msg := refusedInOneLine(t, st, out, append([]string{"compare", filepath.Join(testResults, "fio-a"), filepath.Join(testResults, "md-a")}, args...),
			[]string{"no phase in common"})
		if s := strings.TrimSpace(out.String()); s != "" {
			t.Errorf("compare %v printed before refusing (%s):\n%s", args, msg, s)
		}
	}
}
