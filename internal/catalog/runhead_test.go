package catalog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/storbench/storbench/internal/results"
)

// run.json, summary.json and a catalog row share one run header
// (model.RunHead): folders written before it still read with their run's
// id, name, status and times, and what storbench writes again, and the
// catalog's row as serve and catalog --json give it, keep the keys a
// reader of the old files knows (run_id, not the Go field's name).
func TestOldFoldersKeepTheirRunHead(t *testing.T) {
	head := []string{"run_id", "name", "status", "started_at", "ended_at"}
	for _, name := range []string{"md-a", "s3-a"} {
		dir := filepath.Join("..", "..", "testdata", "results", name)
		info, err := results.ReadRunInfo(dir)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := results.ReadSummary(dir)
		if err != nil {
			t.Fatal(err)
		}
		row := runOf(info, dir)
		for file, v := range map[string]any{"run.json": info, "summary.json": sum, "catalog row": row} {
			old := rawJSON(t, filepath.Join(dir, "run.json"))
			if file == "summary.json" {
				old = rawJSON(t, filepath.Join(dir, file))
			}
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			var now map[string]any
			if err := json.Unmarshal(b, &now); err != nil {
				t.Fatal(err)
			}
			for _, k := range head {
				if old[k] == nil || now[k] != old[k] {
					t.Errorf("%s %s: %s %v, was %v", name, file, k, now[k], old[k])
				}
			}
			for _, k := range []string{"RunHead", "ID", "RunID"} {
				if _, ok := now[k]; ok {
					t.Errorf("%s %s has the Go name %s as a key", name, file, k)
				}
			}
		}
		if b, _ := json.Marshal(row); !json.Valid(b) || row.RunID != info.RunID || !row.Finished {
			t.Errorf("%s: the catalog row %+v lost the run's id or end", name, row.RunHead)
		}
	}
}

// rawJSON is the file's object as keys and values.
func rawJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
