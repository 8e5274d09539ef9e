package views

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGoldmarkExtensionsAreGoldmarks: the extensions the markdown parser
// uses (third_party/goldmark/extension) are byte for byte goldmark's of the
// version in go.mod (an upgrade fails here until `go generate
// ./third_party/goldmark/extension` copies them again), and the copy holds
// nothing else.
func TestGoldmarkExtensionsAreGoldmarks(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/yuin/goldmark").Output()
	if err != nil {
		t.Fatalf("go list goldmark: %v", err)
	}
	goldmarkDir := filepath.Join(strings.TrimSpace(string(out)), "extension")
	copyDir := filepath.Join("..", "third_party", "goldmark", "extension")
	copied := []string{"strikethrough.go", "table.go", "tasklist.go"}
	for _, name := range copied {
		want, err := os.ReadFile(filepath.Join(goldmarkDir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(copyDir, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not goldmark's (%v): go generate ./third_party/goldmark/extension", name, err)
		}
	}
	files, err := filepath.Glob(filepath.Join(copyDir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if name := filepath.Base(f); name != "doc.go" && !slices.Contains(copied, name) {
			t.Errorf("%s is not one of the goldmark files copied", name)
		}
	}
}
