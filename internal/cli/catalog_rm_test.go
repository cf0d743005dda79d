package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/catalog"
)

// catalog rm takes runs out by id or by query, lists them, with
// --dry-run only lists them, and never touches their folders (issue 36:
// nothing took a run out of the catalog).
func TestCatalogRm(t *testing.T) {
	t.Parallel()
	res := t.TempDir()
	cat := filepath.Join(t.TempDir(), "catalog.db")
	for _, purpose := range []string{"smoke", "bench", "smoke", "bench"} {
		if err, out := mdRun(t, "--results", res, "--catalog", cat, "--label", "purpose="+purpose); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	ids := func() []string {
		t.Helper()
		code, out := cmdOut(t, "runs", "--catalog", cat, "--json")
		var runs []catalog.Run
		if code != 0 || json.Unmarshal([]byte(out), &runs) != nil {
			t.Fatalf("runs --json: exit %d\n%s", code, out)
		}
		var out2 []string
		for _, r := range runs {
			out2 = append(out2, r.RunID)
		}
		return out2
	}
	all := ids()
	if len(all) != 4 {
		t.Fatalf("%d runs in the catalog, want 4", len(all))
	}
	code, out := cmdOut(t, "catalog", "rm", "--catalog", cat, "--dry-run", "label=purpose=smoke")
	if code != 0 || !strings.Contains(out, "2 runs would be taken out") || len(ids()) != 4 {
		t.Errorf("rm --dry-run label=purpose=smoke: exit %d, %d runs left\n%s\nwant both listed and none taken out", code, len(ids()), out)
	}
	code, out = cmdOut(t, "catalog", "rm", "--catalog", cat, "label=purpose=smoke")
	if left := ids(); code != 0 || len(left) != 2 || !strings.Contains(out, "2 runs taken out") {
		t.Errorf("rm label=purpose=smoke: exit %d, %d runs left\n%s", code, len(left), out)
	}
	left := ids()
	code, out = cmdOut(t, "catalog", "rm", "--catalog", cat, left[0])
	if now := ids(); code != 0 || len(now) != 1 || now[0] != left[1] || !strings.Contains(out, left[0]) {
		t.Errorf("rm %s: exit %d, runs left %v\n%s", left[0], code, now, out)
	}
	entries, _ := os.ReadDir(res)
	if len(entries) != 4 {
		t.Errorf("%d results folders left, want all 4: rm takes runs out of the catalog only", len(entries))
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"no-such-run", left[1]}, "no-such-run not in"},
		{[]string{left[1], "label=purpose=bench"}, "run ids or query terms, not both"},
		{[]string{"nosuch=1"}, "unknown key"},
		{[]string{"2026*"}, "given whole"},
		{nil, "requires at least 1 arg"},
	} {
		code, out := cmdOut(t, append([]string{"catalog", "rm", "--catalog", cat}, c.args...)...)
		if code != 2 || !strings.Contains(out, c.want) || len(ids()) != 1 {
			t.Errorf("rm %v: exit %d, %d runs left\n%s\nwant exit 2 saying %q, nothing taken out", c.args, code, len(ids()), out, c.want)
		}
	}
	if code, out := cmdOut(t, "catalog", "rm", "--catalog", cat, "label=purpose=none"); code != 0 || !strings.Contains(out, "nothing taken out") {
		t.Errorf("rm of a query that matches nothing: exit %d\n%s", code, out)
	}
}
