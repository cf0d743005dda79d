package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/engine"
)

// addToolFlags registers --tool NAME=PATH, where an outside tool an engine
// runs is (Info.Tool), and --fio-bin PATH, its older spelling for fio.
// A tool not given is found on the PATH.
func addToolFlags(f *pflag.FlagSet, tools *engine.Tools, what string) {
	f.Var(&toolsValue{tools: tools}, "tool", "where an outside tool an engine runs is, NAME=PATH, once per tool (fio=/opt/fio/bin/fio; default: found on the PATH)"+what)
	f.Var(&toolsValue{tools: tools, name: "fio"}, "fio-bin", "fio binary: --tool fio=PATH"+what)
}

// toolsValue is --tool (name "": NAME=PATH) or one tool's own flag
// (--fio-bin: PATH). A tool given twice, by either, is refused: the last
// would win without a word.
type toolsValue struct {
	tools *engine.Tools
	name  string
}

func (v *toolsValue) Set(s string) error {
	name, path := v.name, s
	if name == "" {
		var ok bool
		if name, path, ok = strings.Cut(s, "="); !ok || name == "" || path == "" {
			return fmt.Errorf("want NAME=PATH (fio=/usr/local/bin/fio)")
		}
	}
	if path == "" {
		return fmt.Errorf("want a path")
	}
	if *v.tools == nil {
		*v.tools = engine.Tools{}
	}
	if _, given := (*v.tools)[name]; given {
		return fmt.Errorf("%s's path is set already: set it once, by --tool %s=PATH or its own flag", name, name)
	}
	(*v.tools)[name] = path
	return nil
}

func (v *toolsValue) Type() string {
	if v.name != "" {
		return "string"
	}
	return "stringArray"
}

func (v *toolsValue) String() string {
	if v.name != "" {
		return (*v.tools)[v.name]
	}
	var out []string
	for _, n := range slices.Sorted(maps.Keys(*v.tools)) {
		out = append(out, n+"="+(*v.tools)[n])
	}
	if len(out) == 0 {
		return "" // no "(default [])" in the help
	}
	return "[" + strings.Join(out, ",") + "]"
}

// Append, Replace and GetSlice make --tool a list, which may be given once
// per tool.
func (v *toolsValue) Append(s string) error { return v.Set(s) }

func (v *toolsValue) Replace(ss []string) error {
	*v.tools = nil
	for _, s := range ss {
		if err := v.Set(s); err != nil {
			return err
		}
	}
	return nil
}

func (v *toolsValue) GetSlice() []string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(*v.tools)) {
		out = append(out, n+"="+(*v.tools)[n])
	}
	return out
}
