package main

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/app"
	"github.com/rewind-agent/rewind/internal/gen"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

// TestKill9MidImportOfALargeSession: `rewind import` of one session too
// large to hold whole commits it in pieces, hidden; a kill -9 once pieces
// are committed leaves no session a list or search shows and a database
// that passes integrity_check, and the import run again finishes with the
// whole session. "Too large" is scaled down with the import's batch
// (ImportBatchEnv): 10,000 records (1.8 MB) in 20 pieces of 500 take the
// path 100,000 records (17.6 MB) take at the default batch of 20,000.
func TestKill9MidImportOfALargeSession(t *testing.T) {
	t.Parallel()
	testKill9MidImport(t, func(dir string) (int, error) { return gen.KimiShare(dir, 1, 10000) })
}

// TestKill9MidImportOfALargeRollout: the same for a codex rollout (12,000
// records, 3.4 MB) and a Claude Code session file (13,500 records, 3.5 MB),
// streamed as kimi-cli's sessions are.
func TestKill9MidImportOfALargeRollout(t *testing.T) {
	t.Parallel()
	t.Run("codex", func(t *testing.T) {
		t.Parallel()
		testKill9MidImport(t, func(dir string) (int, error) { return gen.CodexHome(dir, 1, 1500) })
	})
	t.Run("claude", func(t *testing.T) {
		t.Parallel()
		testKill9MidImport(t, func(dir string) (int, error) { return gen.ClaudeHome(dir, 1, 1500) })
	})
}

// testKill9MidImport kills an import of the one session write makes (it
// returns its records) once its first piece is committed: the import kills
// itself then (ImportKillEnv). A kill from outside once the test saw a
// piece in the database came too late when the test was slow to look: the
// import had finished and exited (TestKill9MidImportOfALargeSession, "os:
// process already finished", 1 run in 105 of the package at load 30 with
// -test.cpu 1).
func testKill9MidImport(t *testing.T, write func(dir string) (int, error)) {
	e := newEnv(t)
	e.vars[app.ImportBatchEnv] = "1000"
	share := filepath.Join(t.TempDir(), "home")
	want, err := write(share)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	e.vars[app.ImportKillEnv] = "1"
	cmd := e.command(ctx, "import", share)
	delete(e.vars, app.ImportKillEnv)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the import was not killed after its first piece: %v\n%s", err, stderr.String())
	}
	if n := len(decode[[]map[string]any](t, e.look("sessions", "--json").stdout)); n != 0 {
		t.Fatalf("%d sessions listed after the kill, want none", n)
	}
	if hits := decode[[]map[string]any](t, e.mustOK("search", "goroutine", "--json").stdout); len(hits) != 0 {
		t.Fatalf("search after the kill: %d hits, want none", len(hits))
	}
	db := storetest.OpenAt(t, e.dbPath(), store.Options{})
	var ok string
	var hidden int
	if err := db.Reader().QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %q %v", ok, err)
	}
	if err := db.Reader().QueryRow(`SELECT count(*) FROM sessions WHERE deleted_at < 0`).Scan(&hidden); err != nil || hidden != 1 {
		t.Fatalf("hidden half-imported sessions: %d %v (the kill came too late to test anything?)", hidden, err)
	}
	db.Close()

	e.mustOK("import", share)
	list := decode[[]map[string]any](t, e.look("sessions", "--json").stdout)
	if len(list) != 1 {
		t.Fatalf("sessions after the re-import: %v", list)
	}
	db = storetest.OpenAt(t, e.dbPath(), store.Options{})
	var records int
	if err := db.Reader().QueryRow(`SELECT count(*) FROM context WHERE session_key = (SELECT key FROM sessions WHERE id = ?)`, list[0]["id"]).Scan(&records); err != nil || records != want {
		t.Fatalf("the re-imported session has %d records, want %d (%v)", records, want, err)
	}
}
