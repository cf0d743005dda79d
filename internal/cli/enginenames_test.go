package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
)

// The command line names no engine's variable: the help that tells a user
// where s3's keys come from takes the names from the engine (its declared
// environment, Info.SecretsFrom), so an engine with variables of its own
// touches no help text here, and what the help says is what the engine
// reads.
func TestTheCliNamesNoEnginesVariable(t *testing.T) {
	st, _ := testState()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range st.Engines.Environment() {
		word := regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(v.Name) + `([^A-Za-z0-9_]|$)`)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if loc := word.FindIndex(b); loc != nil {
				t.Errorf("%s names the engines' variable %s (line %d): take it from the engine", f, v.Name, 1+strings.Count(string(b[:loc[0]]), "\n"))
			}
		}
	}
	// What the help says is what the engine declares.
	root := NewRoot(st)
	from := st.Engines.Info(model.EngineS3).SecretsFrom
	for _, path := range [][]string{{"s3"}, {"agent"}} {
		cmd, _, err := root.Find(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(strings.Fields(cmd.Long), " "); !strings.Contains(got, from) {
			t.Errorf("storbench %s's help does not say where s3's keys come from (%q)", path[0], from)
		}
	}
	agent, _, _ := root.Find([]string{"agent"})
	usage := agent.Flags().Lookup("s3-credentials-file").Usage
	for _, name := range st.Engines.SecretNames() {
		if !strings.Contains(usage, name) {
			t.Errorf("--s3-credentials-file's help does not name %s, which it reads: %q", name, usage)
		}
	}
}
