package s3

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
)

// OpNames says the requests an s3 phase's benchmark records, so that a
// limit on another is refused before any load.
func TestOpNames(t *testing.T) {
	for op, want := range map[string]string{"get": "GET", "stat": "STAT", "multipart": "UPLOAD PART", "nosuch": ""} {
		p := engine.Phase{Name: "p", Engine: "s3", Params: json.RawMessage(`{"op": "` + op + `"}`)}
		if got, _ := (engine.Registry{"s3": Engine{}}).OpNames(p); strings.Join(got, " ") != want {
			t.Errorf("%s: %v, want %q", op, got, want)
		}
	}
}
