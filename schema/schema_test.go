// Package schema holds the JSON Schema of summary.json and the test that
// keeps it in step with the Go types: a field renamed, removed or retyped
// without a results.SchemaVersion bump fails here.
package schema

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/results"
)

var update = flag.Bool("update", false, "rewrite summary.schema.json from the Go types (refused when fields were removed or changed without a schema_version bump)")

const schemaFile = "summary.schema.json"

// generate builds the JSON Schema of results.Summary by reflection.
func generate() map[string]any {
	defs := map[string]any{}
	root := typeSchema(reflect.TypeOf(results.Summary{}), defs)
	s := map[string]any{
		"$schema":          "https://json-schema.org/draft/2020-12/schema",
		"$id":              "https://github.com/storbench/storbench/schema/summary.schema.json",
		"title":            "storbench summary.json",
		"description":      "The figures of every phase of a run, per host and merged across hosts. Field names carry their units (_ns, _s, _bytes_per_s). Readers should ignore unknown fields; schema_version changes when a field is added, renamed, removed or changes meaning.",
		"x-schema-version": results.SchemaVersion,
		"$defs":            defs,
		"$ref":             root["$ref"],
	}
	return s
}

var timeType = reflect.TypeOf(time.Time{})

func typeSchema(t reflect.Type, defs map[string]any) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t.Kind() == reflect.String:
		return map[string]any{"type": "string"}
	case t.Kind() == reflect.Bool:
		return map[string]any{"type": "boolean"}
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		return map[string]any{"type": "integer"}
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		return map[string]any{"type": "integer", "minimum": 0}
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return map[string]any{"type": "number"}
	case t.Kind() == reflect.Slice:
		return map[string]any{"type": "array", "items": typeSchema(t.Elem(), defs)}
	case t.Kind() == reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": typeSchema(t.Elem(), defs)}
	case t.Kind() == reflect.Interface:
		return map[string]any{}
	case t.Kind() == reflect.Struct:
		name := t.Name()
		if _, ok := defs[name]; !ok {
			defs[name] = nil // breaks cycles
			props := map[string]any{}
			required := structFields(t, props, defs)
			sort.Strings(required)
			d := map[string]any{"type": "object", "properties": props}
			if len(required) > 0 {
				d["required"] = required
			}
			defs[name] = d
		}
		return map[string]any{"$ref": "#/$defs/" + name}
	}
	panic(fmt.Sprintf("schema: no JSON type for %v", t))
}

// structFields puts t's fields in props by their JSON names and returns
// those always written. An embedded struct without a JSON name has its
// fields written in its place, as encoding/json writes them (the run
// header, model.RunHead, in Summary).
func structFields(t reflect.Type, props map[string]any, defs map[string]any) (required []string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		jn, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if jn == "" && f.Anonymous && f.Type.Kind() == reflect.Struct {
			required = append(required, structFields(f.Type, props, defs)...)
			continue
		}
		if jn == "-" || !f.IsExported() {
			continue
		}
		if jn == "" {
			jn = f.Name
		}
		props[jn] = typeSchema(f.Type, defs)
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
			required = append(required, jn)
		}
	}
	return required
}

// fields lists every field of the schema as "Type.field: json-type", so two
// schemas can be compared field by field.
func fields(s map[string]any) map[string]bool {
	out := map[string]bool{}
	defs, _ := s["$defs"].(map[string]any)
	for name, d := range defs {
		dm, _ := d.(map[string]any)
		props, _ := dm["properties"].(map[string]any)
		for p, ps := range props {
			b, _ := json.Marshal(ps)
			out[name+"."+p+": "+string(b)] = true
		}
	}
	return out
}

func TestSummarySchemaMatchesTypes(t *testing.T) {
	gen := generate()
	want, err := json.MarshalIndent(gen, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	raw, err := os.ReadFile(schemaFile)
	if err != nil && !*update {
		t.Fatalf("%v (go test ./schema -update writes it)", err)
	}
	var committed map[string]any
	if err == nil {
		if err := json.Unmarshal(raw, &committed); err != nil {
			t.Fatalf("%s: %v", schemaFile, err)
		}
	}
	oldVersion, _ := committed["x-schema-version"].(float64)
	have, now := fields(committed), fields(gen)
	var removed, added []string
	for f := range have {
		if !now[f] {
			removed = append(removed, f)
		}
	}
	for f := range now {
		if !have[f] {
			added = append(added, f)
		}
	}
	sort.Strings(removed)
	sort.Strings(added)
	bumped := results.SchemaVersion > int(oldVersion)
	if len(removed) > 0 && !bumped {
		t.Fatalf("summary.json fields were removed, renamed or retyped without a schema_version bump:\n  %s\n"+
			"bump results.SchemaVersion (now %d), then run go test ./schema -update", strings.Join(removed, "\n  "), results.SchemaVersion)
	}
	if *update {
		if err := os.WriteFile(schemaFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if len(added) > 0 || bumped || !bytes.Equal(raw, want) {
		t.Fatalf("%s is out of date (fields added: %v; version %v -> %d): run go test ./schema -update", schemaFile, added, oldVersion, results.SchemaVersion)
	}
}

// Every key of the committed summaries (one per engine) is in the schema,
// with its JSON type.
func TestCommittedSummariesFollowSchema(t *testing.T) {
	raw, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	defs := s["$defs"].(map[string]any)
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "results", "*", "summary.json"))
	if len(files) == 0 {
		t.Fatal("no committed summary.json")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		for _, e := range check(v, s, defs, "") {
			t.Errorf("%s: %s", f, e)
		}
	}
}

func check(v any, sch map[string]any, defs map[string]any, path string) []string {
	if ref, ok := sch["$ref"].(string); ok {
		sch = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
	}
	var errs []string
	switch x := v.(type) {
	case map[string]any:
		if sch["type"] != "object" {
			return []string{path + ": object where the schema says " + fmt.Sprint(sch["type"])}
		}
		props, _ := sch["properties"].(map[string]any)
		req, _ := sch["required"].([]any)
		for _, r := range req {
			if _, ok := x[r.(string)]; !ok {
				errs = append(errs, path+"."+r.(string)+": required, missing")
			}
		}
		for k, e := range x {
			ps, ok := props[k].(map[string]any)
			if !ok {
				ps, ok = sch["additionalProperties"].(map[string]any)
			}
			if !ok {
				errs = append(errs, path+"."+k+": not in the schema")
				continue
			}
			errs = append(errs, check(e, ps, defs, path+"."+k)...)
		}
	case []any:
		if sch["type"] != "array" {
			return []string{path + ": array where the schema says " + fmt.Sprint(sch["type"])}
		}
		for i, e := range x {
			errs = append(errs, check(e, sch["items"].(map[string]any), defs, fmt.Sprintf("%s[%d]", path, i))...)
		}
	case string:
		if sch["type"] != "string" && len(sch) > 0 {
			errs = append(errs, path+": string where the schema says "+fmt.Sprint(sch["type"]))
		}
	case float64:
		if sch["type"] != "number" && sch["type"] != "integer" && len(sch) > 0 {
			errs = append(errs, path+": number where the schema says "+fmt.Sprint(sch["type"]))
		}
	case bool:
		if sch["type"] != "boolean" && len(sch) > 0 {
			errs = append(errs, path+": boolean where the schema says "+fmt.Sprint(sch["type"]))
		}
	}
	return errs
}
