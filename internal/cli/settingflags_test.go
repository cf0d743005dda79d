package cli

import (
	"testing"

	"github.com/storbench/storbench/internal/model"
)

// A setting is spelled once, by its engine: every flag the engine declares
// (Info.Flags) is its command's flag, with the engine's name, shorthand
// and help, and no flag of the command repeats a setting's help by hand.
func TestEngineFlagsAreTheCommandsFlags(t *testing.T) {
	t.Parallel()
	st, _ := testState()
	root := NewRoot(st)
	for _, tc := range []struct {
		engine model.EngineName
		cmd    []string
	}{
		{model.EngineMD, []string{"md"}},
		{model.EngineS3, []string{"s3", "get"}},
		{model.EngineS3, []string{"s3", "multipart"}},
		{model.EngineFio, []string{"fio"}},
	} {
		cmd, _, err := root.Find(tc.cmd)
		if err != nil {
			t.Fatal(err)
		}
		flags := st.Engines.Info(tc.engine).Flags
		if len(flags) == 0 {
			t.Errorf("%s declares no flags", tc.engine)
		}
		for _, fl := range flags {
			got := cmd.Flags().Lookup(fl.Name)
			switch {
			case got == nil:
				t.Errorf("%s: the engine's setting %s has no flag --%s", tc.cmd, fl.Key, fl.Name)
			case got.Shorthand != fl.Short || got.Usage != fl.Help:
				t.Errorf("%s --%s: -%s %q, want the engine's -%s %q", tc.cmd, fl.Name, got.Shorthand, got.Usage, fl.Short, fl.Help)
			}
		}
	}
}
