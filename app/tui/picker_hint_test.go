package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/store"
)

// At 80x24 the Esc Esc picker's status hint still shows the keys that act
// (it was cut after "(the conversation…", losing → and Enter).
func TestEscEscHintKeysFitAt80Columns(t *testing.T) {
	t.Parallel()
	var id string
	h := newHarness(t, hopts{w: 80, h: 24,
		before: func(h *harness) {
			s, err := h.db.CreateSession(context.Background(), store.NewSession{Title: "two", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
			seedTurns(t, h.db, id, "first task", "second task")
		},
		mutate: func(o *Options) { o.Mode, o.SessionID = ModeResume, id },
	})
	h.waitFor("answer to second task")
	h.key(tcell.KeyEsc)
	h.escAgain()
	h.waitFor("PREVIEW · before checkpoint")
	rows := h.rows()
	bar := rows[len(rows)-1]
	for _, want := range []string{"↑/↓ pick a turn", "→ steps", "Enter reverts"} {
		if !strings.Contains(bar, want) {
			t.Errorf("status bar %q lacks %q", strings.TrimSpace(bar), want)
		}
	}
}
