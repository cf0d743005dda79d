package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
)

// No code but an engine's own package names a variable the engine
// declares (Info.Environment): the command line's help takes the names
// where s3's keys come from from the engine (Info.SecretsFrom), launchers
// carry secrets without their names, and suites and the contract speak of
// "the engine's variables". So an engine with variables of its own
// touches no other file for them, and what the help says is what the
// engine reads. Tests and test support (internal/testutil, internal/s3test)
// set the variables as a user does; the system's own (HOME), which an
// engine may declare, other code reads for its own ends.
func TestTheCliNamesNoEnginesVariable(t *testing.T) {
	st, _ := testState()
	root := filepath.Join("..", "..")
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" ||
				rel == filepath.Join("internal", "testutil") || rel == filepath.Join("internal", "s3test")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil || len(files) < 100 || !slices.Contains(files, filepath.Join("internal", "cli", "env.go")) {
		t.Fatalf("the repository's Go files: %d read, %v", len(files), err)
	}
	for _, name := range st.Engines.Names() {
		own := filepath.Join("internal", "engine", string(name)) + string(filepath.Separator)
		for _, v := range st.Engines.Info(name).Environment {
			if v.Name == "HOME" {
				continue
			}
			word := regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(v.Name) + `([^A-Za-z0-9_]|$)`)
			for _, f := range files {
				if strings.HasPrefix(f, own) {
					continue
				}
				b, err := os.ReadFile(filepath.Join(root, f))
				if err != nil {
					t.Fatal(err)
				}
				if loc := word.FindIndex(b); loc != nil {
					t.Errorf("%s names %s's variable %s (line %d): take it from the engine", f, name, v.Name, 1+strings.Count(string(b[:loc[0]]), "\n"))
				}
			}
		}
	}
	// What the help says is what the engine declares.
	cmds := NewRoot(st)
	from := st.Engines.Info(model.EngineS3).SecretsFrom
	for _, path := range [][]string{{"s3"}, {"agent"}} {
		cmd, _, err := cmds.Find(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(strings.Fields(cmd.Long), " "); !strings.Contains(got, from) {
			t.Errorf("storbench %s's help does not say where s3's keys come from (%q)", path[0], from)
		}
	}
	agent, _, _ := cmds.Find([]string{"agent"})
	usage := agent.Flags().Lookup("credentials-file").Usage
	for _, name := range st.Engines.SecretNames() {
		if !strings.Contains(usage, name) {
			t.Errorf("--credentials-file's help does not name %s, which it reads: %q", name, usage)
		}
	}
}
