package engine_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/units"
)

// A value that does not decode is named by its key, also when the
// value's type refuses it itself (units.Size); unknown keys are refused.
func TestDecodeStrictNamesTheKey(t *testing.T) {
	type params struct {
		Items int        `json:"items"`
		Mean  units.Size `json:"obj_mean"`
		Dur   units.Duration
	}
	for _, c := range []struct{ raw, want string }{
		{`{"items": 5, "obj_mean": "-1KiB"}`, `obj_mean: invalid size "-1KiB"`},
		{`{"obj_mean": "4k", "Dur": "soon"}`, `Dur: `},
		{`{"items": "five"}`, `items: "five": want a whole number`},
		{`{"items": 5, "itmes": 6}`, `unknown field "itmes"`},
	} {
		var p params
		err := engine.DecodeStrict(json.RawMessage(c.raw), &p)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %s", c.raw, err, c.want)
		}
	}
	var p params
	if err := engine.DecodeStrict(json.RawMessage(`{"items": 5, "obj_mean": "64KiB", "Dur": "2s"}`), &p); err != nil || p.Mean != 64<<10 {
		t.Errorf("good params: %v, %+v", err, p)
	}
}
