package tui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoFeatureHoldsTheController keeps the features behind their narrow
// interfaces (host.go): no struct of the package but the Controller has a
// field whose type mentions *Controller.
func TestNoFeatureHoldsTheController(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || ts.Name.Name == "Controller" {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, field := range st.Fields.List {
				if mentionsController(field.Type) {
					t.Errorf("%s: struct %s has a field of type %s: give it a deps struct with the methods it needs (host.go)",
						fset.Position(field.Pos()), ts.Name.Name, types.ExprString(field.Type))
				}
			}
			return true
		})
	}
}

func mentionsController(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == "Controller" {
			found = true
		}
		return !found
	})
	return found
}
