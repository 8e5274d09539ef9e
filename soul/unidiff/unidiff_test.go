package unidiff

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnifiedDiffHunks(t *testing.T) {
	t.Parallel()
	var old, new strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&old, "line %d\n", i)
		switch i {
		case 2:
			new.WriteString("line two\n")
		case 25:
		default:
			fmt.Fprintf(&new, "line %d\n", i)
		}
	}
	new.WriteString("tail")
	d := Unified("f.txt", []byte(old.String()), []byte(new.String()))
	if n := strings.Count(d, "\n@@ "); n != 2 {
		t.Fatalf("want 2 hunks, got %d:\n%s", n, d)
	}
	if !strings.Contains(d, "@@ -1,5 +1,5 @@\n line 1\n-line 2\n+line two\n line 3\n") {
		t.Fatalf("first hunk:\n%s", d)
	}
	if !strings.Contains(d, "@@ -22,9 +22,9 @@\n") || !strings.HasSuffix(d, "+tail\n\\ No newline at end of file\n") {
		t.Fatalf("second hunk:\n%s", d)
	}
	if Unified("f", []byte("same\n"), []byte("same\n")) != "" {
		t.Fatal("diff of equal texts is not empty")
	}

	// The diff applies with patch(1), when it is installed.
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch not installed")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(old.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("patch", "-p1", "--quiet")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(d)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch: %v\n%s\n%s", err, out, d)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(got) != new.String() {
		t.Fatalf("patched file differs:\n%s", got)
	}
}
