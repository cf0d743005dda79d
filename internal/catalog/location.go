package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/safetext"
)

// EnvCatalog is the environment variable that says where the catalog is
// (a file or a postgres:// URL), or turns it off ("off").
const EnvCatalog = "STORBENCH_CATALOG"

// Location resolves where the catalog is, in this order: off when
// noCatalog (--no-catalog); flag (--catalog); the environment variable
// EnvCatalog ("off", "none", "0" or "false" turn it off); else
// $XDG_DATA_HOME/storbench/catalog.db, or ~/.local/share/storbench/catalog.db.
// With none of these set (no home: a test's empty environment) there is no
// catalog. on is false when there is none, and why says why.
//
// A test binary, and storbench as a test binary builds it
// (testutil.StorbenchBin), has no default: a test gives its catalog
// (--catalog, EnvCatalog) or has none, so that no test, whichever package
// it is in, writes into the catalog of the user who runs the tests.
func Location(flag string, noCatalog bool, getenv func(string) string) (where string, on bool, why string) {
	switch {
	case noCatalog:
		return "", false, "--no-catalog"
	case flag != "":
		return flag, true, ""
	}
	if v := strings.TrimSpace(getenv(EnvCatalog)); v != "" {
		switch strings.ToLower(v) {
		case "off", "none", "0", "false", "no":
			return "", false, EnvCatalog + "=" + v
		}
		return v, true, ""
	}
	if ForTests() {
		return "", false, "storbench under test: a test names its catalog with --catalog or " + EnvCatalog
	}
	if d := Default(getenv); d != "" {
		return d, true, ""
	}
	return "", false, "no HOME, XDG_DATA_HOME or " + EnvCatalog
}

// Default is the catalog's file when nothing names one:
// $XDG_DATA_HOME/storbench/catalog.db, or
// ~/.local/share/storbench/catalog.db; "" with neither variable set.
func Default(getenv func(string) string) string {
	if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "storbench", "catalog.db")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "share", "storbench", "catalog.db")
	}
	return ""
}

// MakeDefaultFolder makes the folders of where when it is the default
// catalog (Default), which storbench chose, mode 700 as the XDG base
// directory specification asks; Open refuses any other catalog in a
// folder that does not exist.
func MakeDefaultFolder(where string, getenv func(string) string) error {
	if where == "" || where != Default(getenv) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(where), 0o700); err != nil {
		return fmt.Errorf("catalog %s: %v", where, err)
	}
	return nil
}

// builtForTests is set to 1 (-X) in the storbench that test binaries
// build and run as a process (testutil.StorbenchBin).
var builtForTests string

// ForTests says this process is a test binary or storbench built for one:
// the user's data folder is then never the catalog.
func ForTests() bool { return testing.Testing() || builtForTests != "" }

var (
	urlPassword = regexp.MustCompile(`(postgres(?:ql)?://[^:/@\s]*):[^@\s]*@`)
	kvPassword  = regexp.MustCompile(`(?i)(password=)[^\s&]*`)
)

// RedactURL returns a catalog location as it may be printed or recorded:
// a URL's password (user:PASSWORD@, or password= in its query) replaced.
func RedactURL(where string) string { return scrub(where) }

// scrub replaces every password of a catalog URL in a text.
func scrub(s string) string {
	s = urlPassword.ReplaceAllString(s, "${1}:REDACTED@")
	return kvPassword.ReplaceAllString(s, "${1}REDACTED")
}

// ParseLabel splits a label given as KEY=VALUE. The key is a word (letters,
// digits, ., _ and -); the value may be empty but the = may not be left out,
// and holds no control character (safetext).
func ParseLabel(s string) (key, value string, err error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return "", "", fmt.Errorf("label %q has no '=': give KEY=VALUE (--label tuning=default)", s)
	}
	if !labelKey.MatchString(k) {
		return "", "", fmt.Errorf("label %q: the key must be letters, digits, '.', '_' or '-' (--label tuning=default)", s)
	}
	if err := safetext.Check("label "+k+": the value", v); err != nil {
		return "", "", err
	}
	return k, v, nil
}

var labelKey = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// Labels parses labels given as KEY=VALUE into a map; a key given twice
// keeps its last value.
func Labels(kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(kvs))
	for _, s := range kvs {
		k, v, err := ParseLabel(s)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}
