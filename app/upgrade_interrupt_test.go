package app

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Ctrl-C while a database written by an earlier rewind is being upgraded
// (a minute on a big history) says in one line that the upgrade was
// interrupted and how to finish it, exits 130, and the next open upgrades
// it: QA saw "cannot open the database …: store: open …: migration
// 0013_search_contentless.sql: migration 13: copy in steps: context canceled".
func TestUpgradeInterruptedSaysHowToFinish(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	data, err := os.ReadFile("../store/testdata/schema-v2.db")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "rewind.db"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	// Ctrl-C comes as the upgrade is announced, so it lands mid-migration.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rt := &Runtime{Stdout: io.Discard, Stderr: cancelOnWrite(cancel), Getenv: func(string) string { return "" }, Flags: Overrides{Home: &home}}
	db, _, err := rt.openDB(ctx)
	if err == nil {
		db.Close()
		t.Fatal("openDB with a cancelled context upgraded the database; want it interrupted")
	}
	line := ErrorLine(err)
	for _, want := range []string{"upgrade of " + filepath.Join(home, "rewind.db") + " was interrupted", "run the command again"} {
		if !strings.Contains(line, want) {
			t.Errorf("error line %q does not say %q", line, want)
		}
	}
	if strings.Contains(line, "context canceled") || strings.Contains(line, "migration") {
		t.Errorf("error line %q shows the store's internals", line)
	}
	if code := ExitCode(err); code != ExitInterrupted {
		t.Errorf("exit code %d, want %d", code, ExitInterrupted)
	}
	rt.Stderr = io.Discard
	db, _, err = rt.openDB(context.Background())
	if err != nil {
		t.Fatalf("reopen after the interrupted upgrade: %v", err)
	}
	db.Close()
}

// cancelOnWrite is a writer that cancels a context at its first write.
type cancelOnWrite context.CancelFunc

func (c cancelOnWrite) Write(p []byte) (int, error) {
	c()
	return len(p), nil
}
