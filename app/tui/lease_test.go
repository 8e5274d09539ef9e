package tui

import (
	"database/sql"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// TestLostLeaseTurnsTheWorkspaceReadOnly: another process takes the
// session while the model answers (as after a long Ctrl-Z); the step is
// not committed and the workspace stops writing at once.
func TestLostLeaseTurnsTheWorkspaceReadOnly(t *testing.T) {
	t.Parallel()
	asked, answer := make(chan struct{}), make(chan struct{})
	var once sync.Once
	h := newHarness(t, hopts{})
	h.srv.Handle(func(llmtest.Request) llmtest.Reply {
		once.Do(func() { close(asked) })
		<-answer
		return llmtest.Text("answer after the takeover")
	})
	h.typeText("a question", true)
	<-asked
	raw, err := sql.Open("sqlite3", filepath.Join(h.dir, "rewind.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE leases SET token = 'another process'`); err != nil {
		t.Fatal(err)
	}
	close(answer)
	h.waitFor("read-only until it exits")
	var readOnly bool
	h.c.onUIThread(func() { readOnly = h.c.readOnly })
	if !readOnly {
		t.Error("the workspace still writes after losing its lease")
	}
	v, err := h.db.View(h.ctx, h.sessionID())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range v.Messages() {
		if m.Role == "assistant" {
			t.Errorf("a step was committed after the lease was lost: %q", m.Content.PlainText())
		}
	}
}
