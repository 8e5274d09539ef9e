package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// The "Session in use" question goes when the other writer leaves: its
// choices were about a writer that is gone (QA: it stayed up under "WATCH ·
// writer left", and w then said "the other process is the writer").
func TestSessionInUseQuestionGoesWhenTheWriterLeaves(t *testing.T) {
	t.Parallel()
	h, _, lease := leasedElsewhere(t)
	h.waitFor("Session in use", "Watch read-only")
	if err := lease.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.waitGone("Session in use")
	screen := h.waitFor("/continue")
	if strings.Contains(screen, "the other process is the writer") {
		t.Fatalf("still says another process writes it:\n%s", screen)
	}
}

// leasedElsewhere resumes a session whose lease another writer holds (the
// lease, released at the end of the test), so the workspace asks what to do.
func leasedElsewhere(t *testing.T, replies ...llmtest.Reply) (*harness, string, *store.Lease) {
	t.Helper()
	var id string
	var lease *store.Lease
	h := newHarness(t, hopts{
		before: func(h *harness) {
			s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "busy elsewhere", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
			h.db.AppendMessage(h.ctx, id, message.NewText("user", "original prompt"))
			if lease, err = h.db.AcquireLease(h.ctx, id); err != nil {
				t.Fatal(err)
			}
		},
		mutate: func(o *Options) { o.Mode, o.SessionID = ModeResume, id },
	}, replies...)
	t.Cleanup(func() { lease.Release(context.Background()) })
	return h, id, lease
}
