package views

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	chromalexers "github.com/alecthomas/chroma/v2/lexers"

	"github.com/rewind-agent/rewind/third_party/chroma/lexers"
)

// forkDir is the copy of chroma's lexers package whose registry is built
// on first use.
var forkDir = filepath.Join("..", "third_party", "chroma", "lexers")

// TestLexersAreChromas: the lexers HighlightCode finds on first use are
// chroma's own. The copied files are byte for byte those of the chroma
// version in go.mod (an upgrade fails here until `go generate
// ./third_party/chroma/lexers` copies them again), and the registry holds
// the same lexers in the same order with the same configurations, so
// chroma's lookups by name, alias, file name and MIME type choose the same
// one; and every analyser, the three of analysers.go among them, scores
// chroma's test files as chroma's does.
func TestLexersAreChromas(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/alecthomas/chroma/v2").Output()
	if err != nil {
		t.Fatalf("go list chroma: %v", err)
	}
	chromaDir := filepath.Join(strings.TrimSpace(string(out)), "lexers")

	replaced := map[string]bool{"lexers.go": true, "dns.go": true, "mysql.go": true, "zed.go": true}
	copied := map[string]bool{}
	for _, pattern := range []string{"*.go", "embedded/*.xml"} {
		files, err := filepath.Glob(filepath.Join(chromaDir, pattern))
		if err != nil || len(files) == 0 {
			t.Fatalf("chroma's %s: %v", pattern, err)
		}
		for _, f := range files {
			rel, _ := filepath.Rel(chromaDir, f)
			if replaced[rel] || strings.HasSuffix(rel, "_test.go") {
				continue
			}
			copied[rel] = true
			want, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(forkDir, rel))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s is not chroma's (%v): go generate ./third_party/chroma/lexers", rel, err)
			}
		}
	}
	for _, pattern := range []string{"*.go", "embedded/*.xml"} {
		files, _ := filepath.Glob(filepath.Join(forkDir, pattern))
		for _, f := range files {
			rel, _ := filepath.Rel(forkDir, f)
			if !copied[rel] && rel != "lexers.go" && rel != "analysers.go" {
				t.Errorf("%s is not in chroma's lexers: go generate ./third_party/chroma/lexers", rel)
			}
		}
	}

	got, want := lexers.Registry().Lexers, chromalexers.GlobalLexerRegistry.Lexers
	if len(got) != len(want) {
		t.Fatalf("%d lexers, chroma has %d", len(got), len(want))
	}
	for i := range want {
		if g, w := got[i].Config(), want[i].Config(); !reflect.DeepEqual(g, w) {
			t.Errorf("lexer %d: %+v, chroma's %+v", i, g, w)
		}
	}

	samples, _ := filepath.Glob(filepath.Join(chromaDir, "testdata", "*.actual"))
	more, _ := filepath.Glob(filepath.Join(chromaDir, "testdata", "analysis", "*.actual"))
	samples = append(samples, more...)
	if len(samples) < 100 {
		t.Fatalf("%d of chroma's test files", len(samples))
	}
	for _, f := range samples {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for i := range want {
			if g, w := got[i].(chroma.Analyser).AnalyseText(text), want[i].(chroma.Analyser).AnalyseText(text); g != w {
				t.Errorf("%s scores %s %v, chroma's %v", want[i].Config().Name, filepath.Base(f), g, w)
			}
		}
	}
}
