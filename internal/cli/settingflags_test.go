package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/units"
)

// A setting is spelled once, by its engine: every flag the engine declares
// (Info.Flags) is its command's flag, with the engine's name, shorthand
// and help, and no flag of the command repeats a setting's help by hand.
func TestEngineFlagsAreTheCommandsFlags(t *testing.T) {
	t.Parallel()
	st, _ := testState()
	root := NewRoot(st)
	type command struct {
		engine    model.EngineName
		cmd       []string
		benchmark string
	}
	commands := []command{{model.EngineMD, []string{"md"}, ""}, {model.EngineFio, []string{"fio"}, ""}}
	for _, op := range st.Engines.Operations(model.EngineS3) {
		commands = append(commands, command{model.EngineS3, []string{"s3", op}, op})
	}
	for _, tc := range commands {
		cmd, _, err := root.Find(tc.cmd)
		if err != nil {
			t.Fatal(err)
		}
		flags := st.Engines.Info(tc.engine).Flags
		if len(flags) == 0 {
			t.Errorf("%s declares no flags", tc.engine)
		}
		for _, decl := range flags {
			fl, ok := decl.For(tc.benchmark)
			got := cmd.Flags().Lookup(fl.Name)
			switch {
			case !ok:
				// Declared for other benchmarks only: no flag here unless
				// another declaration of the setting is this one's.
				if _, mine, _ := engine.FlagOf(flags, decl.Key, tc.benchmark); !mine && cmd.Flags().Lookup(decl.Name) != nil {
					t.Errorf("%s has --%s, which the engine declares only for %v", tc.cmd, decl.Name, decl.Benchmarks)
				}
			case got == nil:
				t.Errorf("%s: the engine's setting %s has no flag --%s", tc.cmd, fl.Key, fl.Name)
			case got.Shorthand != fl.Short || got.Usage != fl.Help:
				t.Errorf("%s --%s: -%s %q, want the engine's -%s %q", tc.cmd, fl.Name, got.Shorthand, got.Usage, fl.Short, fl.Help)
			case fl.Default != "" && got.DefValue != fl.Default:
				t.Errorf("%s --%s: default %q, want the engine's %q", tc.cmd, fl.Name, got.DefValue, fl.Default)
			}
		}
	}
}

// The flags of some s3 benchmarks only are the engine's, with the
// benchmark's default: multipart-put uploads 100 parts, 20 at a time, as
// warp's, multipart 20 and 4; retention keeps 5 versions, list 1; put has
// no --range nor --parts; and what such a flag gives reaches the phase.
func TestS3BenchmarkFlagsAreTheEngines(t *testing.T) {
	st, _ := testState()
	root := NewRoot(st)
	for _, tc := range []struct {
		op, flag, want string
	}{
		{"multipart", "parts", "20"}, {"multipart-put", "parts", "100"},
		{"multipart", "part.concurrent", "4"}, {"multipart-put", "part.concurrent", "20"},
		{"list", "versions", "1"}, {"retention", "versions", "5"},
		{"mixed", "get-distrib", "45"}, {"delete", "batch", "100"},
		{"put", "range", ""}, {"put", "parts", ""}, {"get", "batch", ""},
	} {
		cmd, _, err := root.Find([]string{"s3", tc.op})
		if err != nil {
			t.Fatal(err)
		}
		got := cmd.Flags().Lookup(tc.flag)
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("s3 %s has --%s", tc.op, tc.flag)
		case tc.want != "" && got == nil:
			t.Errorf("s3 %s has no --%s", tc.op, tc.flag)
		case got != nil && got.DefValue != tc.want:
			t.Errorf("s3 %s --%s: default %s, want %s", tc.op, tc.flag, got.DefValue, tc.want)
		}
	}
	var o S3Options
	fs := pflag.NewFlagSet("s3", pflag.ContinueOnError)
	flags := st.Engines.Info(model.EngineS3).Flags
	o.AddFlags(fs, "multipart-put", flags)
	if err := fs.Parse([]string{"--parts", "7", "--part.size", "6MiB", "--md5"}); err != nil {
		t.Fatal(err)
	}
	p := o.params("multipart-put", fs, flags)
	if p["parts"] != 7 || p["part_size"] != "6MiB" || p["md5"] != true {
		t.Errorf("settings %v: want parts 7, part_size 6MiB, md5", p)
	}
	if _, ok := p["part_concurrency"]; ok {
		t.Errorf("settings %v: part_concurrency not given, so left to the engine", p)
	}
}

// storbench md's settings are spelled once, by the engine's flags: every
// key the command gives is one of the engine's settings, sizes and
// durations are read as the engine types them (a bad one naming its
// flag), and wear_out goes only with a stonewall, which it qualifies.
func TestMdSettingsAreTheEngines(t *testing.T) {
	st, _ := testState()
	info := st.Engines.Info(model.EngineMD)
	parse := func(args ...string) (map[string]any, error) {
		var o MdOptions
		fs := pflag.NewFlagSet("md", pflag.ContinueOnError)
		o.AddFlags(fs, info.Flags, st.Engines.Defaults(model.EngineMD))
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return o.params(info)
	}
	p, err := parse("-d", "/tmp/x", "-n", "7", "-w", "4k", "--find-size", "1k", "-W", "30s", "--only", "create", "-t", "3")
	if err != nil {
		t.Fatal(err)
	}
	for k := range p {
		if !slices.Contains(info.ParamKeys, k) {
			t.Errorf("setting %q is none of the md engine's", k)
		}
	}
	for k, want := range map[string]any{"items": int64(7), "write_bytes": units.Size(4096), "find_size": units.Size(1024),
		"stonewall": units.Duration(30 * time.Second), "wear_out": true, "workers": 3, "dir": "/tmp/x"} {
		if p[k] != want {
			t.Errorf("%s = %#v, want %#v", k, p[k], want)
		}
	}
	raw, _ := json.Marshal(p)
	if err := st.Engines.Validate(engine.Phase{Name: "md", Engine: model.EngineMD, Params: raw}); err != nil {
		t.Errorf("the md engine refuses the command's settings: %v", err)
	}
	if p, _ = parse("-n", "7"); p["wear_out"] != nil || p["find_size"] != nil || p["tree"] != nil {
		t.Errorf("settings left out are given: %v", p)
	}
	if _, err := parse("-w", "4x"); err == nil || !strings.HasPrefix(err.Error(), "--write-bytes 4x: ") {
		t.Errorf("a bad size: %v, want it named by its flag", err)
	}
	if _, err := parse("-W", "3x"); err == nil || !strings.HasPrefix(err.Error(), "--stonewall 3x: ") {
		t.Errorf("a bad duration: %v, want it named by its flag", err)
	}
}
