package app

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFollowRefusesWhatItCannotFollow: `rewind import --follow` and
// `rewind watch --follow` share their set-up, and say in one line why a
// path cannot be followed: missing, a directory, not a codex or Claude
// Code session file.
func TestFollowRefusesWhatItCannotFollow(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(dir, "notes.jsonl")
	if err := os.WriteFile(notes, []byte(`{"a":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rt := &Runtime{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }, Flags: Overrides{Home: &home}}
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "gone.jsonl"), "cannot follow " + filepath.Join(dir, "gone.jsonl") + ": "},
		{dir, "it is a directory; --follow takes one session file"},
		{notes, "it is not a codex rollout or a Claude Code session file"},
	} {
		for name, follow := range map[string]func(context.Context, *Runtime, string) error{"import": ImportFollow, "watch": WatchFollow} {
			err := follow(context.Background(), rt, tc.path)
			if line := ErrorLine(err); err == nil || !strings.Contains(line, tc.want) || strings.Contains(line, "\n") {
				t.Errorf("%s --follow %s: %q, want one line with %q", name, tc.path, line, tc.want)
			}
		}
	}
}
