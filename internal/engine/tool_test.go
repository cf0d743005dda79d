package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// A tool whose --version prints a banner after its version (coreutils'
// dd: seven lines of copyright and licence) is recorded by its first line
// alone: run.json and the report name the version, not the licence.
func TestToolVersionIsTheFirstLine(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "dd")
	script := "#!/bin/sh\nprintf 'dd (coreutils) 9.1\\nCopyright (C) 2022 Free Software Foundation, Inc.\\nLicense GPLv3+\\n'\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	v, err := Tool{Name: "dd", VersionArgs: []string{"--version"}, VersionPrefix: "dd (coreutils) "}.Version(bin)
	if err != nil || v != "dd (coreutils) 9.1" {
		t.Errorf("version %q (%v), want %q", v, err, "dd (coreutils) 9.1")
	}
}
