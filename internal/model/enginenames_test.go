package model_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// engineNames are the engines' names as code spells them: the constants
// and the string literals.
var (
	engineConsts   = []string{"EngineFio", "EngineMD", "EngineS3"}
	engineLiterals = []string{"fio", "md", "s3"}
)

// nameChoices are the places outside internal/engine allowed to choose by
// an engine's name, by "file:function", each with its reason. Nothing else
// may: what differs between engines is asked of the engine through the
// Registry or travels in the results data (rate_unit, formats).
var nameChoices = map[string]string{
	// Results written before the summary kept what the engine offers name
	// only the engine: their rate unit and text formats are the three
	// first engines'. A new engine always writes its own.
	"internal/results/legacy.go:PhaseSummary.RateName": "results written before rate_unit was kept",
	"internal/results/legacy.go:LegacyFormats":         "results written before formats were kept",
	// IO500's score is defined over ior and mdtest runs: its phases are
	// fio and md phases by definition, not by storbench's choice.
	"internal/suite/suite.go:checkIO500": "IO500's phases are ior's (fio) and mdtest's (md)",
	// The field's own texts are defined over their tools' work: IOR's
	// report describes fio's jobs, mdtest's text md's phases, fio's JSON
	// is fio's; and mdtest's -t is a hint on the md command only.
	"internal/report/fiojob.go:planJobs":       "IOR's report reads fio's job files",
	"internal/report/fieldtext.go:planMd":      "mdtest's text reads md's settings",
	"internal/cli/fieldformat.go:printFioJSON": "--output-format json is fio's own JSON",
	"internal/cli/fieldflags.go:fieldFlagHint": "mdtest's -t, on the md command",
}

// Outside internal/engine, no non-test code compares anything with an
// engine's name or switches on it (the model's constants, or "fio", "md",
// "s3" as literals), so a new engine is its package and one line in the
// engine list, and every report, summary and suite serves it as it serves
// the first three. The literals are matched in any comparison: a suite key
// or a flag value that happens to spell an engine's name is an engine's
// name to its reader too.
func TestNoChoiceByEngineName(t *testing.T) {
	watchSources(t)
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	seen := map[string]bool{}
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == "internal/engine") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		files++
		for _, c := range nameComparisons(f) {
			key := rel + ":" + c.fn
			if _, ok := nameChoices[key]; ok {
				seen[key] = true
				continue
			}
			t.Errorf("%s:%d: %s chooses by an engine's name (%s): ask the engine through the engine.Registry, or carry the choice in the results data",
				rel, fset.Position(c.pos).Line, c.fn, c.name)
		}
		return nil
	})
	if err != nil || files < 100 {
		t.Fatalf("the repository's Go files: %d read, %v", files, err)
	}
	for key, why := range nameChoices {
		if !seen[key] {
			t.Errorf("%s is listed as choosing by an engine's name (%s) but does not: take it off the list", key, why)
		}
	}
}

// comparison is an engine's name compared or switched on, in function fn.
type comparison struct {
	fn   string
	name string
	pos  token.Pos
}

// nameComparisons finds, in every function of f, the comparisons (== and
// !=) and switch cases with an engine's name on one side.
func nameComparisons(f *ast.File) []comparison {
	var out []comparison
	for _, d := range f.Decls {
		fn := "(package level)"
		if fd, ok := d.(*ast.FuncDecl); ok {
			fn = declName(fd)
		}
		ast.Inspect(d, func(n ast.Node) bool {
			var sides []ast.Expr
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if n.Op == token.EQL || n.Op == token.NEQ {
					sides = []ast.Expr{n.X, n.Y}
				}
			case *ast.CaseClause:
				sides = n.List
			}
			for _, e := range sides {
				if name, ok := engineName(e); ok {
					out = append(out, comparison{fn: fn, name: name, pos: e.Pos()})
				}
			}
			return true
		})
	}
	return out
}

// engineName says e spells an engine's name: one of the model's
// constants, or a string literal of one.
func engineName(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return engineName(e.X)
	case *ast.SelectorExpr:
		if slices.Contains(engineConsts, e.Sel.Name) {
			return "model." + e.Sel.Name, true
		}
	case *ast.Ident:
		if slices.Contains(engineConsts, e.Name) {
			return e.Name, true
		}
	case *ast.BasicLit:
		if s, err := strconv.Unquote(e.Value); e.Kind == token.STRING && err == nil && slices.Contains(engineLiterals, s) {
			return e.Value, true
		}
	case *ast.CallExpr:
		// A conversion: model.EngineName("s3"), string(model.EngineS3).
		if len(e.Args) == 1 && isConversion(e.Fun) {
			return engineName(e.Args[0])
		}
	}
	return "", false
}

// isConversion says fun converts to a string or an engine name.
func isConversion(fun ast.Expr) bool {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name == "string" || f.Name == "EngineName"
	case *ast.SelectorExpr:
		return f.Sel.Name == "EngineName"
	}
	return false
}

// declName is "Receiver.Name", or "Name" for a function.
func declName(fd *ast.FuncDecl) string {
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
