package app

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadMCPServersRefusesAFIFO: an mcp.json that is a named pipe, the
// user's or the project's, is one problem line naming it, at once, and
// the other file's servers still load. os.ReadFile blocked on it for good,
// and with it the workspace's start.
func TestLoadMCPServersRefusesAFIFO(t *testing.T) {
	t.Parallel()
	for _, where := range []string{"home", "project"} {
		t.Run(where, func(t *testing.T) {
			t.Parallel()
			home, work := t.TempDir(), t.TempDir()
			if err := os.MkdirAll(filepath.Join(work, ".rewind"), 0o700); err != nil {
				t.Fatal(err)
			}
			fifo, other := filepath.Join(home, "mcp.json"), filepath.Join(work, ".rewind", "mcp.json")
			if where == "project" {
				fifo, other = other, fifo
			}
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip("no FIFOs here:", err)
			}
			if err := os.WriteFile(other, []byte(`{"mcpServers": {"ok": {"command": "fine"}}}`), 0o600); err != nil {
				t.Fatal(err)
			}
			rt := &Runtime{Getenv: func(string) string { return "" }}
			type loaded struct {
				names    int
				problems []string
			}
			done := make(chan loaded, 1)
			go func() {
				got := rt.LoadMCPServers(Config{Home: home, WorkDir: work})
				done <- loaded{len(got.Servers), got.Problems}
			}()
			select {
			case got := <-done:
				if len(got.problems) != 1 || !strings.Contains(got.problems[0], fifo) || !strings.Contains(got.problems[0], "not a regular file") {
					t.Errorf("problems %q, want one naming the FIFO", got.problems)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("LoadMCPServers blocked on a FIFO mcp.json")
			}
		})
	}
}

// TestPrivateHomeChangesOnlyRewindsOwnDir: a REWIND_HOME that is not
// recognisably rewind's (no rewind.db, not named .rewind: a shared dir
// given before its first run) keeps its mode; .rewind is made 0700; a
// private one says nothing.
func TestPrivateHomeChangesOnlyRewindsOwnDir(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	shared, own := filepath.Join(base, "shared"), filepath.Join(base, ".rewind")
	for _, d := range []string{shared, own} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if note := privateHome(shared); note != "" {
		t.Errorf("shared dir: %q", note)
	}
	if st, _ := os.Stat(shared); st.Mode().Perm() != 0o755 {
		t.Errorf("a dir not rewind's was changed to %v", st.Mode())
	}
	if note := privateHome(own); !strings.Contains(note, "made it private (0700)") {
		t.Errorf(".rewind: %q", note)
	}
	if st, _ := os.Stat(own); st.Mode().Perm() != 0o700 {
		t.Errorf(".rewind left %v", st.Mode())
	}
	if note := privateHome(own); note != "" {
		t.Errorf("a private home: %q", note)
	}
}
