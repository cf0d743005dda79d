package cli

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/testutil"
)

// No test and no bench of the project's writes into the catalog of the
// user who runs them (issue 36): a run in a test binary, and storbench
// as tests build it, has no default catalog whatever HOME says; no test
// builds storbench another way; every bench script turns the catalog off.
// Before, a run in a test (internal/report's TestEventStopsRealGateway)
// landed in ~/.local/share/storbench/catalog.db.
func TestTestsAndBenchesKeepOutOfTheUsersCatalog(t *testing.T) {
	t.Parallel()
	userCatalog := func(home string) string {
		return filepath.Join(home, ".local", "share", "storbench", "catalog.db")
	}
	t.Run("a run in a test binary", func(t *testing.T) {
		home := t.TempDir()
		st, out := testState()
		st.Getenv = func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		}
		err := Execute(context.Background(), st, []string{"md", "-d", t.TempDir(), "-n", "30", "-q", "--results", t.TempDir()})
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if _, err := os.Stat(userCatalog(home)); err == nil {
			t.Errorf("a run in a test binary wrote the user's catalog %s", userCatalog(home))
		}
	})
	t.Run("storbench as tests build it", func(t *testing.T) {
		home := t.TempDir()
		cmd := exec.Command(testutil.StorbenchBin(t), "md", "-d", t.TempDir(), "-n", "30", "-q", "--results", t.TempDir())
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if _, err := os.Stat(userCatalog(home)); err == nil {
			t.Errorf("storbench built by testutil.StorbenchBin wrote the user's catalog %s", userCatalog(home))
		}
	})
	root := moduleRoot(t)
	t.Run("no test builds storbench another way", func(t *testing.T) {
		needle := "cmd/" + `storbench"` // split: this file is walked too
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.go") {
				return err
			}
			b, err := os.ReadFile(p)
			if err == nil && strings.Contains(string(b), needle) {
				t.Errorf("%s builds storbench itself: use testutil.StorbenchBin, whose build has no default catalog", p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	t.Run("every bench script turns the catalog off", func(t *testing.T) {
		scripts, _ := filepath.Glob(filepath.Join(root, "bench", "*.sh"))
		if len(scripts) == 0 {
			t.Fatal("no bench/*.sh found")
		}
		for _, s := range scripts {
			if b, err := os.ReadFile(s); err != nil || !strings.Contains(string(b), "\nexport STORBENCH_CATALOG=off\n") {
				t.Errorf("%s does not export STORBENCH_CATALOG=off: its runs would land in the user's catalog", s)
			}
		}
	})
}
