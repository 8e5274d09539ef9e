package views

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/themes"
)

var updateHighlight = flag.Bool("update-highlight", false, "rewrite testdata/highlight.golden from the current HighlightCode")

// highlightCases are fences as answers write them: a lexer found by name,
// alias, file extension or whole file name, one that hands parts of its
// text to other lexers (HTML's CSS and JavaScript, markdown's fences, Go's
// raw strings, PHP in HTML), and no language or an unknown one, where the
// lexer is guessed from the text (Go, shell, a DNS zone, MySQL) or none is.
var highlightCases = []struct{ lang, src string }{
	{"go", "package main\n\nimport \"fmt\"\n\n// main says hi.\nfunc main() {\n\tx := `raw {{.T}}`\n\tfmt.Println(x, 0x1f, 1.5e3)\n}"},
	{"golang", "var err error = nil"},
	{"Python", "def f(x: int) -> str:\n    \"\"\"doc\"\"\"\n    return f\"{x!r}\"  # note"},
	{"py", "import os\nprint(os.getcwd())"},
	{"main.rs", "fn main() {\n    let v: Vec<u8> = vec![1, 2];\n    println!(\"{:?}\", v);\n}"},
	{"rs", "pub struct S<'a> { s: &'a str }"},
	{"src/app/view.tsx", "export const V = (p: {n: number}) => <div className=\"v\">{p.n}</div>;"},
	{"Makefile", "all: build\n\nbuild:\n\tgo build -o $(BIN) ./...\n"},
	{"GNUmakefile", "CC ?= cc\n%.o: %.c\n\t$(CC) -c $<"},
	{"Dockerfile", "FROM golang:1.23 AS build\nRUN go build ./...\nCOPY --from=build /app /app"},
	{"CMakeLists.txt", "cmake_minimum_required(VERSION 3.20)\nadd_executable(app main.c)"},
	{"html", "<!doctype html>\n<style>body { color: #333; }</style>\n<script>const x = () => 1 + 2;</script>\n<p class=\"a\">hi &amp; bye</p>"},
	{"markdown", "# Title\n\nSome *emphasis* and `code`.\n\n```python\nprint('inner')\n```\n"},
	{"php", "<html><?php echo $x + 1; ?></html>"},
	{"go-html-template", "<p>{{ .Name | html }}</p>"},
	{"diff", "--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-old\n+new"},
	{"json", "{\"a\": [1, true, null, \"s\"]}"},
	{"yaml", "key: value\nlist:\n  - 1\n  - two # c"},
	{"sh", "for f in *.go; do echo \"$f\"; done"},
	{"Bash", "set -euo pipefail\n[[ -n ${X:-} ]] && exit 1"},
	{"sql", "SELECT id, COUNT(*) FROM t WHERE x = 'y' GROUP BY id;"},
	{"mysql", "SELECT `id` FROM `t` LIMIT 1;"},
	{"http", "GET /v1/models HTTP/1.1\nHost: example.com\nContent-Type: application/json\n\n{\"a\": 1}"},
	{"no-such-language", "package main\n\nfunc f() {}"},
	{"", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(1) }"},
	{"", "#!/bin/bash\necho hi"},
	{"", "$ORIGIN example.com.\n@ IN SOA ns1 admin 1 2 3 4 5"},
	{"", "SELECT `name` FROM `users` WHERE `id` = 1"},
	{"", "<?xml version=\"1.0\"?>\n<a b=\"c\"/>"},
	{"", "just some words, nothing to guess from"},
}

// TestHighlightGolden: HighlightCode colours each case exactly as
// testdata/highlight.golden holds it. The file was written while chroma's
// own lexers package chose the lexers; the lexers found on first use
// (internal/chroma/lexers) must not change a colour.
func TestHighlightGolden(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, c := range highlightCases {
		fmt.Fprintf(&b, "== %q\n", c.lang)
		for _, l := range HighlightCode(c.src, c.lang, themes.Default(), tcell.StyleDefault) {
			for _, s := range l {
				fg, bg, attr := s.Style.Decompose()
				fmt.Fprintf(&b, "[%q %s %s %d]", s.Text, colourName(fg), colourName(bg), attr)
			}
			b.WriteString("\n")
		}
	}
	path := filepath.Join("testdata", "highlight.golden")
	if *updateHighlight {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./views -run TestHighlightGolden -update-highlight writes it)", err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("line %d differs from %s:\ngot  %s\nwant %s", i+1, path, gl[i], wl[i])
			}
		}
		t.Fatalf("%d lines, %s has %d", len(gl), path, len(wl))
	}
}

func colourName(c tcell.Color) string {
	if c == tcell.ColorDefault {
		return "default"
	}
	return fmt.Sprintf("#%06x", c.Hex())
}
