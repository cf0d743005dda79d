package catalog

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// Eight writers at once, each with its own connection to the catalog as
// eight storbench processes would have, each adding its own runs: every
// entry is there at the end, whole (all its figures and labels).
func TestConcurrentWritersLoseNothing(t *testing.T) {
	const writers, each = 8, 12
	eachBackend(t, func(t *testing.T, b backend) {
		where := b.create(t)
		open(t, where) // created once, as the first run would
		root := t.TempDir()
		dirs := make([][]string, writers)
		for w := range writers {
			for i := range each {
				n := w*each + i
				dirs[w] = append(dirs[w], writeGen(t, root, genRun{i: n, name: fmt.Sprintf("writer%d", w), start: t0.Add(time.Duration(n) * time.Minute),
					labels: map[string]string{"writer": fmt.Sprint(w)}, seed: 5, hosts: 2}))
			}
		}
		var wg sync.WaitGroup
		errs := make(chan error, writers*each)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := Open(t.Context(), where)
				if err != nil {
					errs <- err
					return
				}
				defer c.Close()
				for _, d := range dirs[w] {
					if _, err := c.Add(t.Context(), d); err != nil {
						errs <- fmt.Errorf("writer %d: %v", w, err)
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		c := open(t, where)
		runs, err := c.Runs(t.Context(), Query{})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != writers*each {
			t.Fatalf("%d runs in the catalog after %d writers added %d each, want %d", len(runs), writers, each, writers*each)
		}
		for _, r := range runs {
			figs, err := c.Figures(t.Context(), r.RunID)
			if err != nil {
				t.Fatal(err)
			}
			// 26 totals, and per host (2 hosts) the rate of 4 operations
			// and the rest of their figures.
			if len(figs) < 26 || r.Labels["writer"] == "" {
				t.Errorf("run %s has %d figures and labels %v: not whole", r.RunID, len(figs), r.Labels)
			}
		}
	})
}
