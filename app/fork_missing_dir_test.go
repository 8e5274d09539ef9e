package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/store/storetest"
)

// TestForkSaysTheWorkDirIsMissing: `rewind fork` of a session whose work
// dir is not on this machine (an import from elsewhere) says so in its one
// stderr line, with what to do, instead of "continue it with rewind
// --session", where every tool would fail with "bad work dir".
func TestForkSaysTheWorkDirIsMissing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	home := t.TempDir()
	if err := os.Chmod(home, 0o700); err != nil { // as rewind makes it: a 0755 one gets a notice
		t.Fatal(err)
	}
	db := storetest.OpenAt(t, filepath.Join(home, "rewind.db"), store.Options{})
	gone := filepath.Join(home, "gone", "project")
	src, err := db.CreateSession(ctx, store.NewSession{Title: "imported", WorkDir: gone})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AppendMessage(ctx, src.ID, message.NewText("user", "hi")); err != nil {
		t.Fatal(err)
	}
	db.Close()
	var out, errOut bytes.Buffer
	rt := &Runtime{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }, Flags: Overrides{Home: &home}}
	if err := Fork(ctx, rt, ForkArgs{SessionID: src.ID}); err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSuffix(errOut.String(), "\n")
	if strings.Contains(line, "\n") || !strings.Contains(line, gone) || !strings.Contains(line, "not on this machine") || strings.Contains(line, "continue it with") {
		t.Fatalf("fork's stderr: %q; want one line saying %s is not on this machine", errOut.String(), gone)
	}
}
