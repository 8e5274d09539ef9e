package filecp

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// writeTree creates files (path → content) under root.
func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestScannerHonoursIgnoresAndCaps(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitignore":              "*.log\n/out.txt\nsecret/\n!keep.log\n",
		"main.go":                 "package main\n",
		"debug.log":               "x",
		"keep.log":                "kept by negation",
		"out.txt":                 "root-anchored",
		"sub/out.txt":             "not anchored here",
		"sub/.gitignore":          "local.tmp\n",
		"sub/local.tmp":           "ignored by the nested file",
		"local.tmp":               "not ignored at the root",
		"secret/a.txt":            "ignored dir",
		"node_modules/x/index.js": "skipped dir",
		"build/out.o":             "skipped dir",
		".git/HEAD":               "ref",
		"big.bin":                 string(make([]byte, 2048)),
		"small.bin":               "\x00\x01",
	})
	if err := os.Symlink("/etc/passwd", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	sc, err := NewScanner(root, Options{MaxFileSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	tree, err := sc.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for p := range tree.Files {
		files = append(files, p)
	}
	sort.Strings(files)
	want := []string{".gitignore", "keep.log", "link", "local.tmp", "main.go", "small.bin", "sub/.gitignore", "sub/out.txt"}
	if len(files) != len(want) {
		t.Fatalf("files %v, want %v", files, want)
	}
	for i := range want {
		if files[i] != want[i] {
			t.Fatalf("files %v, want %v", files, want)
		}
	}
	if !tree.Files["link"].IsLink() {
		t.Fatal("symlink not recorded as a link")
	}
	skipped := map[string]string{}
	for _, s := range tree.Skipped {
		skipped[s.Path] = s.Reason
	}
	wantSkip := map[string]string{
		"debug.log": ReasonIgnored, "out.txt": ReasonIgnored, "sub/local.tmp": ReasonIgnored,
		"secret/": ReasonIgnored, "node_modules/": ReasonSkipDir, "build/": ReasonSkipDir, ".git/": ReasonSkipDir,
		"big.bin": ReasonTooLarge,
	}
	for p, r := range wantSkip {
		if skipped[p] != r {
			t.Errorf("skipped[%s] = %q, want %q", p, skipped[p], r)
		}
	}
	if len(skipped) != len(wantSkip) {
		t.Errorf("skipped %v", skipped)
	}

	// A configured skip list replaces the default (".git" stays skipped).
	sc2, err := NewScanner(root, Options{MaxFileSize: 1024, SkipDirs: []string{}, NoGitignore: true})
	if err != nil {
		t.Fatal(err)
	}
	tree2, err := sc2.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"build/out.o", "node_modules/x/index.js", "debug.log", "secret/a.txt"} {
		if _, ok := tree2.Files[p]; !ok {
			t.Errorf("%s not scanned with an empty skip list and no gitignore", p)
		}
	}
	if _, ok := tree2.Files[".git/HEAD"]; ok {
		t.Error(".git scanned")
	}
}
