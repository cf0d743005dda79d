package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines bounds every function of the command line: a command turns
// flags into options and hands them to run, analyze or report; a function
// longer than this is orchestration that belongs in those packages.
const maxFuncLines = 80

// The command line holds no orchestration: no function in
// internal/cli/*.go (tests aside) runs over maxFuncLines lines, literals
// inside it included.
func TestNoLongFunctions(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	funcs := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			funcs++
			lines := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			if lines > maxFuncLines {
				t.Errorf("%s: %s is %d lines, over %d: move what it orchestrates out of the command line", fset.Position(fd.Pos()), fd.Name.Name, lines, maxFuncLines)
			}
		}
	}
	if funcs < 50 {
		t.Fatalf("only %d functions found: is the test running in internal/cli?", funcs)
	}
}
