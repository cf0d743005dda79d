package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines bounds every function of the repository: a command turns
// flags into options and hands them to run, analyze or report, and an
// engine, a renderer or the controller reads as steps each named by a
// function; one longer than this is several steps in one.
const maxFuncLines = 80

// maxFileLines bounds every file: past it, a file holds more than one
// thing and is split.
const maxFileLines = 800

// longFuncs are the functions over maxFuncLines when the check became
// repository-wide ("path:Receiver.Name" to their length then), to be
// broken up: none may grow, a new one may not join, and one broken up must
// leave the list (the test says so), so the list only shrinks.
var longFuncs = map[string]int{}

// longFiles are the files over maxFileLines likewise.
var longFiles = map[string]int{}

// moduleRoot is the repository's root, the folder of go.mod above the
// test's.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}

// sourceFiles lists the repository's non-test Go files, relative to root,
// leaving out hidden folders (.tools, .git), testdata and bin.
func sourceFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// funcName is "Receiver.Name", or "Name" for a function.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	if g, ok := typ.(*ast.IndexExpr); ok {
		typ = g.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// checkLength reports a function or file of n lines over max, unless the
// list knew it at that length or more; seen records what the list names.
func checkLength(t *testing.T, what, key string, n, max int, known map[string]int, seen map[string]bool) {
	t.Helper()
	was, listed := known[key]
	if listed {
		seen[key] = true
	}
	switch {
	case n <= max && listed:
		t.Errorf("%s is %d lines now, within %d: take it off the list of long ones", key, n, max)
	case n > max && !listed:
		t.Errorf("%s %s is %d lines, over %d: break it up", what, key, n, max)
	case n > max && n > was:
		t.Errorf("%s %s grew to %d lines (%d when listed, over %d): break it up", what, key, n, was, max)
	}
}

// No non-test function in the repository (bench/ and cmd/ included) runs
// over maxFuncLines lines, literals inside it included, and no non-test
// file over maxFileLines; those listed in longFuncs and longFiles wait to
// be broken up and may only shrink.
func TestNoLongFunctions(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	fset := token.NewFileSet()
	funcs := 0
	seen := map[string]bool{}
	for _, name := range sourceFiles(t, root) {
		f, err := parser.ParseFile(fset, filepath.Join(root, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checkLength(t, "file", name, fset.File(f.Pos()).LineCount(), maxFileLines, longFiles, seen)
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			funcs++
			lines := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			checkLength(t, "function", name+":"+funcName(fd), lines, maxFuncLines, longFuncs, seen)
		}
	}
	for _, list := range []map[string]int{longFuncs, longFiles} {
		for key := range list {
			if !seen[key] {
				t.Errorf("%s is listed as long but is not in the repository: take it off the list", key)
			}
		}
	}
	if funcs < 500 {
		t.Fatalf("only %d functions found under %s: is the walk of the repository right?", funcs, root)
	}
}
