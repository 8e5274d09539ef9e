package store

import (
	"errors"
	"testing"

	"github.com/rewind-agent/rewind/store/message"
)

// TestLostLeaseCommitsNothing: writer A holds the lease, is paused long
// enough to be taken over (here: its pid reads as gone), and B takes the
// session. Every write A then tries fails with ErrLeaseLost and leaves the
// session as B wrote it.
func TestLostLeaseCommitsNothing(t *testing.T) {
	t.Parallel()
	path := newDBPath(t)
	a, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s := newSession(t, a, "contested", "/w")
	if _, err := a.Checkpoint(bg, s.ID, true); err != nil {
		t.Fatal(err)
	}
	la, err := a.acquireLease(bg, s.ID, 1<<30) // a pid that does not exist: stale at once
	if err != nil {
		t.Fatal(err)
	}
	defer la.Release(bg)
	if _, err := a.AppendMessage(bg, s.ID, message.NewText("user", "A while it holds the lease")); err != nil {
		t.Fatalf("A with its lease: %v", err)
	}

	lb, err := b.AcquireLease(bg, s.ID)
	if err != nil {
		t.Fatalf("B could not take the stale lease: %v", err)
	}
	defer lb.Release(bg)
	before, err := b.View(bg, s.ID)
	if err != nil {
		t.Fatal(err)
	}

	writes := map[string]func() error{
		"commit step": func() error { _, err := a.CommitStep(bg, s.ID, crashStep(1, 1)); return err },
		"append": func() error {
			_, err := a.AppendMessage(bg, s.ID, message.NewText("user", "A after losing it"))
			return err
		},
		"checkpoint": func() error { _, err := a.Checkpoint(bg, s.ID, true); return err },
		"revert":     func() error { _, err := a.RevertTo(bg, s.ID, 0, CauseRevert, ""); return err },
		"clear":      func() error { _, err := a.Clear(bg, s.ID); return err },
		"restore":    func() error { _, err := a.Restore(bg, s.ID, 0); return err },
		"compact": func() error {
			_, err := a.StartCompacted(bg, s.ID, []message.Message{message.NewText("user", "summary")}, 0, 10, false)
			return err
		},
		"file batch": func() error { _, err := a.ApplyFileBatch(bg, FileBatch{WorkDir: "/w", SessionID: s.ID}); return err },
	}
	for name, write := range writes {
		if err := write(); !errors.Is(err, ErrLeaseLost) {
			t.Errorf("%s by the writer that lost its lease: %v, want ErrLeaseLost", name, err)
		}
	}
	after, err := b.View(bg, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Records) != len(before.Records) || after.Generation.Gen != before.Generation.Gen {
		t.Errorf("the session changed: %d records gen %d, was %d records gen %d", len(after.Records), after.Generation.Gen, len(before.Records), before.Generation.Gen)
	}
	if _, err := b.CommitStep(bg, s.ID, crashStep(2, 1)); err != nil {
		t.Errorf("B, the lease holder, cannot write: %v", err)
	}
}
