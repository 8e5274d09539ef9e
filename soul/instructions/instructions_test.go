package instructions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadFromHomeRepoRootAndWorkDir(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	home := filepath.Join(base, "home")
	repo := filepath.Join(base, "outside", "repo")
	work := filepath.Join(repo, "svc", "api")
	write(t, filepath.Join(base, "outside", FileName), "above the repository: never read")
	write(t, filepath.Join(home, FileName), "global rules")
	write(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(repo, FileName), "repo rules")
	write(t, filepath.Join(work, FileName), "api rules")
	files, err := Load(home, work)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Text)
	}
	if strings.Join(got, "|") != "global rules|repo rules|api rules" {
		t.Fatalf("loaded %q", got)
	}
	if !files[0].Global || files[1].Global {
		t.Errorf("global flags: %+v", files)
	}
	p := Format(files)
	if !strings.Contains(p, "# Project instructions") || strings.Index(p, "repo rules") > strings.Index(p, "api rules") || !strings.Contains(p, filepath.Join(work, FileName)) {
		t.Errorf("format:\n%s", p)
	}
}

func TestLoadOutsideARepositoryReadsOnlyTheWorkDir(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	work := filepath.Join(base, "proj")
	write(t, filepath.Join(base, FileName), "parent: not a repository root")
	write(t, filepath.Join(work, FileName), "proj rules")
	files, err := Load("", work)
	if err != nil || len(files) != 1 || files[0].Text != "proj rules" {
		t.Fatalf("files %+v, %v", files, err)
	}
	if Format(nil) != "" {
		t.Error("no files must add nothing")
	}
}

func TestLoadTruncatesLargeFiles(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	write(t, filepath.Join(work, FileName), strings.Repeat("x", MaxFileBytes+10))
	files, err := Load("", work)
	if err != nil || len(files) != 1 || !files[0].Truncated || len(files[0].Text) != MaxFileBytes {
		t.Fatalf("files %+v, %v", len(files), err)
	}
	if !strings.Contains(Format(files), "only its first 32 KB") {
		t.Error("truncation not said")
	}
}
