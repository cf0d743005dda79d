package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A SQLite catalog the user names in a folder that does not exist is
// refused, naming the folder, and nothing is made: a typo in --catalog
// (or STORBENCH_CATALOG) made the folders, as root anywhere.
func TestOpenRefusesAFolderThatDoesNotExist(t *testing.T) {
	dir := t.TempDir()
	where := filepath.Join(dir, "no", "such", "c.db")
	c, err := Open(t.Context(), where)
	if err == nil {
		c.Close()
		t.Fatalf("opened %s", where)
	}
	if want := "the folder " + filepath.Join(dir, "no", "such") + " does not exist"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if _, err := os.Lstat(filepath.Join(dir, "no")); !os.IsNotExist(err) {
		t.Errorf("%s was made (%v)", filepath.Join(dir, "no"), err)
	}
}

// The default catalog, in the user's data folder, is made with its
// folders (private, as the XDG base directory specification asks), and
// only the default.
func TestDefaultCatalogFolderIsMade(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	getenv := func(k string) string { return env[k] }
	where := Default(getenv)
	if want := filepath.Join(home, ".local", "share", "storbench", "catalog.db"); where != want {
		t.Fatalf("default %q, want %q", where, want)
	}
	if err := MakeDefaultFolder(where, getenv); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Dir(where))
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the default's folder: %v %v", fi, err)
	}
	c, err := Open(t.Context(), where)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()

	env["XDG_DATA_HOME"] = filepath.Join(home, "xdg")
	if where := Default(getenv); where != filepath.Join(home, "xdg", "storbench", "catalog.db") {
		t.Errorf("default with XDG_DATA_HOME %q", where)
	}
	other := filepath.Join(home, "other", "c.db")
	if err := MakeDefaultFolder(other, getenv); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Dir(other)); !os.IsNotExist(err) {
		t.Errorf("the folder of %s, not the default, was made (%v)", other, err)
	}
}
