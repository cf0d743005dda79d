package catalog

import (
	"reflect"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/results"
)

// seqReadLimits are a run's verdicts on three limits of its seq-read
// phase: one met, one crossed, one on a figure not measured.
func seqReadLimits() []results.LimitResult {
	met, crossed := true, false
	bw, p99 := 2e9, 12e6
	return []results.LimitResult{
		{Limit: "seq-read/read/bw>1.5GiB/s", Value: &bw, Passed: &met, Unit: "B/s"},
		{Limit: "seq-read/read/p99<5ms", Value: &p99, Passed: &crossed, Unit: "ns"},
		{Limit: "seq-read/read/errors<1"},
	}
}

// On both databases the catalog keeps the limits each run was given and
// the verdicts it reached, in the run's order, a figure not measured
// without value or verdict; a run without limits has none; removing a
// run takes its limits with it, and adding it again brings them back.
func TestCatalogKeepsLimits(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		c := open(t, b.create(t))
		root := t.TempDir()
		with := writeGen(t, root, genRun{i: 1, name: "nightly", start: t0, limits: seqReadLimits()})
		without := writeGen(t, root, genRun{i: 2, name: "nightly", start: t0.Add(time.Hour)})
		var ids []string
		for _, dir := range []string{with, without} {
			r, err := c.Add(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, r.RunID)
		}
		want := []Limit{}
		for _, l := range seqReadLimits() {
			want = append(want, Limit{Phase: "seq-read", LimitResult: l})
		}
		got, err := c.Limits(t.Context(), ids[0])
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("limits kept: %+v %v\nwant %+v", got, err, want)
		}
		if got, err := c.Limits(t.Context(), ids[1]); err != nil || len(got) != 0 {
			t.Errorf("a run without limits: %+v %v", got, err)
		}
		if _, err := c.Remove(t.Context(), ids[:1]); err != nil {
			t.Fatal(err)
		}
		if got, err := c.Limits(t.Context(), ids[0]); err != nil || len(got) != 0 {
			t.Errorf("after the run was removed: %+v %v", got, err)
		}
		if _, err := c.Add(t.Context(), with); err != nil {
			t.Fatal(err)
		}
		if got, err := c.Limits(t.Context(), ids[0]); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("added again: %+v %v", got, err)
		}
	})
}

// On both databases a catalog of schema 3, made before limits were kept,
// is migrated when opened: its run stays, without limits, and a run
// added after keeps its own.
func TestSchema3CatalogKeepsLimitsAfterMigrating(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		where := b.create(t)
		root := t.TempDir()
		old, err := openRaw(where)
		if err != nil {
			t.Fatal(err)
		}
		if err := old.migrateTo(t.Context(), 3); err != nil {
			t.Fatal(err)
		}
		first, err := old.Add(t.Context(), writeGen(t, root, genRun{i: 1, name: "old", start: t0, limits: seqReadLimits()}))
		if err != nil {
			t.Fatal(err)
		}
		old.Close()
		c := open(t, where)
		if got, err := c.Limits(t.Context(), first.RunID); err != nil || len(got) != 0 {
			t.Errorf("the run indexed at schema 3: %+v %v, want no limits kept", got, err)
		}
		r, err := c.Add(t.Context(), writeGen(t, root, genRun{i: 2, name: "new", start: t0.Add(time.Hour), limits: seqReadLimits()}))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := c.Limits(t.Context(), r.RunID); err != nil || len(got) != 3 {
			t.Errorf("a run added after migrating: %+v %v", got, err)
		}
	})
}
