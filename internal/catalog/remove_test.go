package catalog

import (
	"os"
	"testing"
	"time"
)

// Remove takes runs out with their labels and figures, leaves their
// folders, passes over an id it does not hold; Add brings a run back.
func TestRemove(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		c := open(t, b.create(t))
		root := t.TempDir()
		var dirs []string
		for i := range 3 {
			dirs = append(dirs, writeGen(t, root, genRun{i: i, name: "x", start: t0.Add(time.Duration(i) * time.Hour), seed: 1,
				labels: map[string]string{"tuning": "default"}}))
			if _, err := c.Add(t.Context(), dirs[i]); err != nil {
				t.Fatal(err)
			}
		}
		all, _ := c.Runs(t.Context(), Query{})
		gone := all[1].RunID
		n, err := c.Remove(t.Context(), []string{gone, "no-such-run"})
		if err != nil || n != 1 {
			t.Fatalf("Remove: %d, %v; want 1 run removed", n, err)
		}
		left, _ := c.Runs(t.Context(), Query{Labels: map[string]string{"tuning": "default"}})
		figs, _ := c.Figures(t.Context(), gone)
		if len(left) != 2 || left[0].RunID == gone || left[1].RunID == gone || len(figs) != 0 {
			t.Errorf("after removing %s: runs %v, its figures %d; want the two others and none of its figures", gone, left, len(figs))
		}
		if _, err := os.Stat(all[1].Path); err != nil {
			t.Errorf("the removed run's folder is gone: %v", err)
		}
		if _, err := c.Add(t.Context(), all[1].Path); err != nil {
			t.Fatal(err)
		}
		if back, _ := c.Runs(t.Context(), Query{}); len(back) != 3 {
			t.Errorf("after adding it again: %d runs, want 3", len(back))
		}
	})
}
