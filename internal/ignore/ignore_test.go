package ignore

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLayers(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitignore", "*.log\nbuild/\n")
	write("sub/.gitignore", "local.txt\n")
	top := Layers(nil).Enter(root, "")
	sub := top.Enter(filepath.Join(root, "sub"), "sub")
	for _, c := range []struct {
		l    Layers
		p    string
		dir  bool
		want bool
	}{
		{top, "app.log", false, true},
		{top, "main.go", false, false},
		{top, "build", true, true},
		{top, "sub/local.txt", false, false}, // sub's rules apply only inside sub
		{sub, "sub/local.txt", false, true},
		{sub, "sub/other.log", false, true},
		{Layers(nil), "app.log", false, false},
	} {
		if got := c.l.Ignored(c.p, c.dir); got != c.want {
			t.Errorf("Ignored(%q) = %v, want %v", c.p, got, c.want)
		}
	}
}
