package tools

import (
	"path/filepath"
	"strings"
	"testing"
)

// Overwriting a file with the content it already has asks with a dialog
// that says nothing changes, not with an empty diff (the dialog then fell
// back to the raw JSON arguments, cut at its edge).
func TestWriteFileSameContentSaysNoChange(t *testing.T) {
	t.Parallel()
	env, rec := newEnv(t)
	writeFile(t, filepath.Join(env.WorkDir, "hello.go"), "package main\n")
	mustOK(t, call(t, &WriteFile{}, env, map[string]any{"path": "hello.go", "content": "package main\n"}))
	a := rec.approvals[0]
	if !strings.Contains(a.Description, "Overwrite hello.go with 1 line (no change)") {
		t.Errorf("description %q: want it to say nothing changes", a.Description)
	}
	if want := "(no change: hello.go already has this content)\n"; a.Diff != want {
		t.Errorf("diff %q, want %q", a.Diff, want)
	}
}
