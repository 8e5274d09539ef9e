package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func makeTree(t *testing.T, root string) {
	t.Helper()
	for path, content := range map[string]string{
		"main.go":                "package main\n\nfunc Main() {}\n",
		"README.md":              "# Readme\nTODO: write docs\n",
		"pkg/a/a.go":             "package a\n// todo lower\nfunc A() {}\n",
		"pkg/a/a_test.go":        "package a\n",
		"pkg/b/deep/c/c.go":      "package c\n// TODO deep\n",
		"pkg/b/notes.txt":        "TODO in txt\n",
		".git/HEAD":              "ref: TODO\n",
		".git/objects/x.go":      "package git\n",
		"bin/tool":               "TODO\x00binary",
		"web/src/app.ts":         "// TODO ts\n",
		"web/src/sub/handler.ts": "export {}\n",
	} {
		writeFile(t, filepath.Join(root, path), content)
	}
}

func TestGlob(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	makeTree(t, env.WorkDir)
	g := &Glob{}
	cases := []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"pattern": "*.go"}, []string{"main.go"}},
		{map[string]any{"pattern": "**/*.go"}, []string{"main.go", "pkg/a/a.go", "pkg/a/a_test.go", "pkg/b/deep/c/c.go"}},
		{map[string]any{"pattern": "pkg/**/*_test.go"}, []string{"pkg/a/a_test.go"}},
		{map[string]any{"pattern": "**/*.go", "directory": "pkg/b"}, []string{"pkg/b/deep/c/c.go"}},
		{map[string]any{"pattern": "web/src/**"}, []string{"web/src/", "web/src/app.ts", "web/src/sub/", "web/src/sub/handler.ts"}},
		{map[string]any{"pattern": "pkg/*"}, []string{"pkg/a/", "pkg/b/"}},
		{map[string]any{"pattern": "./**/handler*.ts"}, []string{"web/src/sub/handler.ts"}},
	}
	for _, c := range cases {
		res := call(t, g, env, c.args)
		mustOK(t, res)
		if got := strings.Split(res.Output, "\n"); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("Glob %v = %q, want %q", c.args, got, c.want)
		}
	}
	if res := call(t, g, env, map[string]any{"pattern": "*.rs"}); res.IsError || !strings.Contains(res.Output, "No paths match") {
		t.Errorf("no match: %+v", res)
	}
	mustErr(t, call(t, g, env, map[string]any{"pattern": "[abc"}), "Invalid glob pattern")
	mustErr(t, call(t, g, env, map[string]any{"pattern": "/etc/*"}), "absolute")
	mustErr(t, call(t, g, env, map[string]any{"pattern": "*", "directory": "nope"}), "does not exist")
}

func TestGlobCap(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	for i := 0; i < globMaxResults+5; i++ {
		writeFile(t, filepath.Join(env.WorkDir, "many", fmt.Sprintf("f%04d.txt", i)), "")
	}
	res := call(t, &Glob{}, env, map[string]any{"pattern": "**/*.txt"})
	mustOK(t, res)
	lines := strings.Split(res.Output, "\n")
	if len(lines) != globMaxResults+1 || !strings.Contains(lines[len(lines)-1], "capped at 1000") {
		t.Fatalf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

func TestGrep(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	makeTree(t, env.WorkDir)
	gr := &Grep{}

	res := call(t, gr, env, map[string]any{"pattern": "TODO"})
	mustOK(t, res)
	want := "README.md:2:TODO: write docs\npkg/b/deep/c/c.go:2:// TODO deep\npkg/b/notes.txt:1:TODO in txt\nweb/src/app.ts:1:// TODO ts\n[1 binary file skipped.]"
	if res.Output != want {
		t.Fatalf("grep:\n%s\nwant:\n%s", res.Output, want)
	}
	if res.Brief != "4 matches in 4 files" {
		t.Fatalf("brief %q", res.Brief)
	}

	res = call(t, gr, env, map[string]any{"pattern": "todo", "ignore_case": true, "glob": "*.go"})
	mustOK(t, res)
	if res.Output != "pkg/a/a.go:2:// todo lower\npkg/b/deep/c/c.go:2:// TODO deep" {
		t.Fatalf("ignore_case + glob:\n%s", res.Output)
	}
	res = call(t, gr, env, map[string]any{"pattern": "todo", "ignore_case": false, "glob": "*.go"})
	if res.Output != "pkg/a/a.go:2:// todo lower" {
		t.Fatalf("case-sensitive:\n%s", res.Output)
	}
	res = call(t, gr, env, map[string]any{"pattern": `func \w+\(`, "path": "pkg", "glob": "a/**"})
	if res.Output != "pkg/a/a.go:3:func A() {}" {
		t.Fatalf("path + path glob:\n%s", res.Output)
	}
	res = call(t, gr, env, map[string]any{"pattern": "package", "path": "main.go"})
	if res.Output != "main.go:1:package main" {
		t.Fatalf("single file:\n%s", res.Output)
	}
	if res := call(t, gr, env, map[string]any{"pattern": "nothing-here"}); res.IsError || !strings.Contains(res.Output, "No matches") {
		t.Fatalf("no match: %+v", res)
	}
	mustErr(t, call(t, gr, env, map[string]any{"pattern": "(?<=x)y"}), "Invalid regular expression")
	mustErr(t, call(t, gr, env, map[string]any{"pattern": "x", "glob": "[x"}), "Invalid glob")
}

func TestGrepCapAndLongLines(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	var b strings.Builder
	for i := 0; i < 300; i++ {
		b.WriteString("hit\n")
	}
	writeFile(t, filepath.Join(env.WorkDir, "many.txt"), b.String())
	writeFile(t, filepath.Join(env.WorkDir, "wide.txt"), "hit"+strings.Repeat("x", 5000)+"\n")
	res := call(t, &Grep{}, env, map[string]any{"pattern": "hit"})
	mustOK(t, res)
	lines := strings.Split(res.Output, "\n")
	if len(lines) != grepMaxMatches+1 || !strings.Contains(lines[grepMaxMatches], "capped at 200") {
		t.Fatalf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
	res = call(t, &Grep{}, env, map[string]any{"pattern": "hit", "path": "wide.txt"})
	if len(res.Output) > grepMaxLineChars+50 || !strings.HasSuffix(res.Output, " …") {
		t.Fatalf("long line not cut: %d bytes", len(res.Output))
	}
}

func TestListDir(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	makeTree(t, env.WorkDir)
	if err := os.Symlink("main.go", filepath.Join(env.WorkDir, "link")); err != nil {
		t.Fatal(err)
	}
	res := call(t, &ListDir{}, env, `{}`)
	mustOK(t, res)
	lines := strings.Split(res.Output, "\n")
	var names []string
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		names = append(names, f[0]+" "+f[len(f)-1])
	}
	want := ".git/ dir,README.md file,bin/ dir,link symlink,main.go file,pkg/ dir,web/ dir"
	got := make([]string, len(names))
	for i, n := range names {
		p := strings.SplitN(n, " ", 2)
		got[i] = p[1] + " " + p[0]
	}
	if strings.Join(got, ",") != strings.Replace(want, "link symlink", "main.go symlink", 1) {
		t.Fatalf("ListDir:\n%s", res.Output)
	}
	if !strings.Contains(res.Output, "link -> main.go") || !strings.Contains(res.Output, "26 B  README.md") {
		t.Fatalf("ListDir details:\n%s", res.Output)
	}
	mustOK(t, call(t, &ListDir{}, env, `{"path":"pkg/a"}`))
	mustErr(t, call(t, &ListDir{}, env, `{"path":"main.go"}`), "not a directory")
	mustErr(t, call(t, &ListDir{}, env, `{"path":"nope"}`), "does not exist")
}

func TestListDirCap(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	for i := 0; i < listMaxEntries+3; i++ {
		writeFile(t, filepath.Join(env.WorkDir, fmt.Sprintf("f%04d", i)), "")
	}
	res := call(t, &ListDir{}, env, `{"path":"."}`)
	if !strings.Contains(res.Output, "3 more entries not shown") || strings.Contains(res.Output, "f1000") {
		t.Fatalf("cap: ...%s", res.Output[len(res.Output)-100:])
	}
}

func TestSearchInterrupted(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	makeTree(t, env.WorkDir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	mustErr(t, (&Grep{}).Call(ctx, env, []byte(`{"pattern":"x"}`)), "interrupted")
	mustErr(t, (&Glob{}).Call(ctx, env, []byte(`{"pattern":"**"}`)), "interrupted")
}

// TestGlobGrepHonourGitignore: Glob and Grep skip what .gitignore files
// ignore, with the matcher the file checkpoints use (internal/ignore).
func TestGlobGrepHonourGitignore(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	writeFile(t, filepath.Join(env.WorkDir, ".gitignore"), "*.log\nbuild/\n")
	writeFile(t, filepath.Join(env.WorkDir, "main.go"), "needle\n")
	writeFile(t, filepath.Join(env.WorkDir, "app.log"), "needle\n")
	writeFile(t, filepath.Join(env.WorkDir, "build", "out.go"), "needle\n")
	writeFile(t, filepath.Join(env.WorkDir, "sub", ".gitignore"), "local.go\n")
	writeFile(t, filepath.Join(env.WorkDir, "sub", "local.go"), "needle\n")
	writeFile(t, filepath.Join(env.WorkDir, "sub", "kept.go"), "needle\n")
	res := call(t, &Glob{}, env, map[string]any{"pattern": "**/*"})
	mustOK(t, res)
	if got := strings.Fields(res.Output); strings.Join(got, " ") != ".gitignore main.go sub/ sub/.gitignore sub/kept.go" {
		t.Fatalf("Glob listed %q", got)
	}
	res = call(t, &Grep{}, env, map[string]any{"pattern": "needle", "output_mode": "files_with_matches"})
	mustOK(t, res)
	for _, ignored := range []string{"app.log", "build/out.go", "sub/local.go"} {
		if strings.Contains(res.Output, ignored) {
			t.Fatalf("Grep searched ignored %s:\n%s", ignored, res.Output)
		}
	}
	if !strings.Contains(res.Output, "main.go") || !strings.Contains(res.Output, "sub/kept.go") {
		t.Fatalf("Grep missed tracked files:\n%s", res.Output)
	}
}
