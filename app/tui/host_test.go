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

// controllerCore are the files whose methods may be the Controller's: the
// wiring and the state no single feature owns. Every other file is a
// feature's, and only its init method (the wiring) is the Controller's.
var controllerCore = map[string]string{
	"controller.go":  "New, Run, shutdown, the reloads of the open session's view, the status line",
	"features.go":    "the wiring of the features",
	"host.go":        "the featureCommon every feature gets",
	"thread.go":      "the UI goroutine and the workers",
	"poll.go":        "the pollers",
	"messages.go":    "status messages and the notices",
	"disabled.go":    "the disabled rules",
	"widgets.go":     "the widgets, the theme, the confirm dialog, help",
	"welcome.go":     "the empty conversation's welcome (drawn with the status line)",
	"keys.go":        "the global keys and the focus",
	"commands.go":    "the slash-command registry, prompts and the run state",
	"apply.go":       "the event pipeline's application to the widgets",
	"session.go":     "the open session's lifecycle: open, lease, switch, fork",
	"live_writer.go": "the open session's publishing (part of opening it)",
}

// The Controller's size now: moving code out lowers them, and nothing
// raises them. A new feature is a type of its own with a deps struct
// (host.go), wired by an init method.
const (
	maxControllerMethods = 87
	maxControllerFields  = 51
)

// TestControllerKeepsOnlyTheCore holds the Controller to wiring and the
// state no single feature owns: a feature file's methods are its type's
// (only its init method is the Controller's), and the Controller's method
// and field counts only go down.
func TestControllerKeepsOnlyTheCore(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	methods, fields := 0, 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil || len(d.Recv.List) != 1 || types.ExprString(d.Recv.List[0].Type) != "*Controller" {
					continue
				}
				methods++
				if _, core := controllerCore[name]; !core && !strings.HasPrefix(d.Name.Name, "init") {
					t.Errorf("%s: (*Controller).%s is in a feature's file: make it a method of the feature's type, which reaches the core through its deps struct (host.go); only the feature's init method is the Controller's", fset.Position(d.Pos()), d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == "Controller" {
						for _, field := range ts.Type.(*ast.StructType).Fields.List {
							fields += max(1, len(field.Names))
						}
					}
				}
			}
		}
	}
	if methods > maxControllerMethods {
		t.Errorf("the Controller has %d methods, more than %d: new code goes on a feature's type with a deps struct (host.go), not on the Controller", methods, maxControllerMethods)
	}
	if fields > maxControllerFields {
		t.Errorf("the Controller has %d fields, more than %d: a feature's state goes in the feature's type, not in the Controller", fields, maxControllerFields)
	}
	t.Logf("the Controller: %d methods (at most %d), %d fields (at most %d)", methods, maxControllerMethods, fields, maxControllerFields)
}
