package tui

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rewind-agent/rewind/store"
)

// TestMissingWorkDirOpensReadOnlyAndOffersAFork: a session whose work dir
// is not on this machine (imported from elsewhere) opened writable, and
// every tool then failed with "bad work dir". It opens read-only, says so
// once, and offers to fork it into the dir rewind was started in, where
// the fork is writable.
func TestMissingWorkDirOpensReadOnlyAndOffersAFork(t *testing.T) {
	t.Parallel()
	var gone string
	h := resumeHarness(t, func(h *harness) string {
		gone = filepath.Join(t.TempDir(), "elsewhere", "project")
		s, err := h.db.ImportSession(context.Background(), store.NewSession{Title: "imported", WorkDir: gone},
			[]store.ImportedGeneration{{Records: longRecords(3)}})
		if err != nil {
			t.Fatal(err)
		}
		return s.ID
	})
	src := h.sessionID()
	h.waitFor("Work dir not on this machine", "[f] Fork into")
	waitForBoxSentence(h, "Work dir not on this machine", "Fork it into "+h.work+", the dir rewind was started in")
	h.c.onUIThread(func() {
		if !h.c.readOnly {
			t.Error("the session opened writable in a work dir that does not exist")
		}
	})
	h.typeText("f", false)
	h.waitUntil("the fork", func() bool { return h.c.SessionID() != "" && h.c.SessionID() != src && !h.c.readOnly })
	fork, err := h.db.GetSession(context.Background(), h.c.SessionID())
	if err != nil {
		t.Fatal(err)
	}
	if fork.WorkDir != h.work {
		t.Errorf("the fork works in %s, want %s (the dir rewind was started in)", fork.WorkDir, h.work)
	}
	h.waitFor("prompt 2")
	if _, _, ok := h.findText("Work dir not on this machine"); ok {
		t.Errorf("the question shows again for the fork:\n%s", h.text())
	}
}
