package suite_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/all"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/suite"
)

// A top-level mapping named after an engine holds settings every phase of
// that engine takes unless it sets its own, for any engine of the list
// (s3's endpoint and bucket, md's items), so a new engine has its block
// without the suite knowing it. A block naming no engine is an unknown
// key, said at its line with the nearest name.
func TestEngineBlocks(t *testing.T) {
	s, err := suite.Parse("suite.yaml", []byte("dir: /tmp\nmd: {items: 7, depth: 1}\nphases:\n  - md: {depth: 2}\n  - md: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	x, err := s.Expand(context.Background(), suite.ExpandOptions{Engines: all.Engines()})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{2, 1} {
		var p struct{ Items, Depth int }
		if err := json.Unmarshal(x.Phases[i].Params, &p); err != nil || p.Items != 7 || p.Depth != want {
			t.Errorf("phase %d: items %d depth %d (%v), want the block's items 7 and depth %d", i, p.Items, p.Depth, err, want)
		}
	}
	s, err = suite.Parse("suite.yaml", []byte("dir: /tmp\nmdd: {items: 7}\nphases:\n  - md: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	// The nearest name among md alone: an engine added to the list may
	// be as near ("dd").
	mdOnly := engine.Registry{model.EngineMD: all.Engines()[model.EngineMD]}
	_, err = s.Expand(context.Background(), suite.ExpandOptions{Engines: mdOnly})
	if want := `suite.yaml:2: unknown key "mdd" (did you mean "md"?)`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a block naming no engine: %v, want %s", err, want)
	}
}
