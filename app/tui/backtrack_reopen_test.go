package tui

import (
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// TestReopenedSessionShowsTheBacktrack: a session reopened after a D-Mail
// shows the banner the backtrack showed live — the checkpoint, what was
// discarded, the prompt it returned to and the note as markdown — where
// it used to show only "D-Mail from the future: …" with the note's raw
// markdown.
func TestReopenedSessionShowsTheBacktrack(t *testing.T) {
	t.Parallel()
	var id string
	long := "fix the flaky test " + strings.Repeat("and explain why ", 20) + "END"
	note := "**Use the fixture** in testdata:\n\n- it exists already\n- it is small"
	h := newHarness(t, hopts{w: 120, h: 40, before: func(h *harness) {
		db, ctx := h.db, h.ctx
		s, err := db.CreateSession(ctx, store.NewSession{Title: "flaky", WorkDir: h.work, Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		id = s.ID
		for _, p := range []string{long, "now the second thing"} {
			if _, err := db.StartTurn(ctx, id, true, message.NewText("user", p)); err != nil {
				t.Fatal(err)
			}
			if _, err := db.CommitStep(ctx, id, store.Step{Assistant: message.NewText("assistant", "working on: "+p[:10])}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.RevertTo(ctx, id, 0, store.CauseBacktrack, note); err != nil {
			t.Fatal(err)
		}
		if _, err := db.StartTurn(ctx, id, true, message.DMail(note)); err != nil {
			t.Fatal(err)
		}
	}, mutate: func(o *Options) { o.Mode, o.SessionID = ModeResume, id }})
	h.waitFor("Backtracked to checkpoint 0 · discarded 6 messages (archived in", "2 of them your prompts",
		"Returned to:", "Note from the future:", "Use the fixture in testdata:", "it exists already")
	screen := h.text()
	if strings.Contains(screen, "D-Mail from the future") || strings.Contains(screen, "**Use") {
		t.Fatalf("the D-Mail shows as its raw marker:\n%s", screen)
	}
	if strings.Contains(screen, "/undo undoes it") {
		t.Fatalf("a reopened backtrack offers an undo that may not be the last rewind:\n%s", screen)
	}
	// The prompt returned to is cut at 200 characters, as kimi-cli's.
	if strings.Contains(screen, "END") || !strings.Contains(screen, "…") {
		t.Fatalf("the prompt returned to is not cut at %d characters:\n%s", returnedToLimit, screen)
	}
}
