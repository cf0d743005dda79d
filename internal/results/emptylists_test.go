package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
)

// arraysNotNull walks doc along schema and reports every place the schema
// says "array" and the document holds null.
func arraysNotNull(t *testing.T, defs map[string]any, schema map[string]any, doc any, at string) {
	t.Helper()
	if ref, ok := schema["$ref"].(string); ok {
		schema = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
	}
	switch schema["type"] {
	case "array":
		if doc == nil {
			t.Errorf("%s is null; the schema says array", at)
			return
		}
		items, _ := schema["items"].(map[string]any)
		for i, x := range doc.([]any) {
			if items != nil {
				arraysNotNull(t, defs, items, x, at+"["+strconv.Itoa(i)+"]")
			}
		}
	case "object":
		m, _ := doc.(map[string]any)
		props, _ := schema["properties"].(map[string]any)
		for k, v := range props {
			if x, present := m[k]; present {
				arraysNotNull(t, defs, v.(map[string]any), x, at+"."+k)
			}
		}
	}
}

// A failed phase, with no ops and no host figures, is written with [] for
// its lists, as the schema says, never null (issue 25: a consumer looping
// over them crashed).
func TestEmptyListsAreArrays(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "schema", "summary.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	defs := schema["$defs"].(map[string]any)
	s := Summary{SchemaVersion: SchemaVersion, RunHead: model.RunHead{Status: "failed"},
		Phases: []PhaseSummary{{Name: "p", Status: StatusFailed, Error: "fio failed"}, {Name: "q", PerHost: []HostOps{{Host: "a"}}}}}
	for _, v := range []any{s, Summary{}} {
		out, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatal(err)
		}
		arraysNotNull(t, defs, schema, doc, "summary")
	}
}
