package store

import (
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store/message"
)

// TestSessionIDResolution: a read of a session's context names it by its
// id or a unique prefix, in any case and with spaces around (resolving it
// and reading its state are one statement); an ambiguous prefix lists the
// sessions it matches, and an unknown or empty id is not found.
func TestSessionIDResolution(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	a, b := newSession(t, db, "a", "/w"), newSession(t, db, "b", "/w")
	must[Record](t)(db.AppendMessage(bg, a.ID, message.NewText("user", "in a")))
	n := 0
	for a.ID[n] == b.ID[n] {
		n++
	}
	for _, id := range []string{a.ID, strings.ToUpper(a.ID), " " + a.ID[:n+1] + " "} {
		if v, err := db.View(bg, id); err != nil || v.SessionID != a.ID || len(v.Records) != 1 {
			t.Errorf("view of %q: %s with %d records (%v), want %s with 1", id, v.SessionID, len(v.Records), err, a.ID)
		}
	}
	var amb *AmbiguousIDError
	if _, err := db.View(bg, a.ID[:n]); !errors.As(err, &amb) || len(amb.Candidates) != 2 {
		t.Errorf("view of the shared prefix %q: %v, want both sessions named", a.ID[:n], err)
	}
	for _, id := range []string{"zzzz", " "} {
		if _, err := db.View(bg, id); !errors.Is(err, ErrSessionNotFound) {
			t.Errorf("view of %q: %v, want ErrSessionNotFound", id, err)
		}
	}
	// GetSession and Generations read an exact id in one statement and
	// resolve anything else first.
	must[Generation](t)(db.Clear(bg, a.ID))
	for _, id := range []string{a.ID, strings.ToUpper(a.ID), " " + a.ID[:n+1] + " "} {
		if s, err := db.GetSession(bg, id); err != nil || s.ID != a.ID || s.CurrentGen != 1 {
			t.Errorf("session %q: %s at generation %d (%v), want %s at 1", id, s.ID, s.CurrentGen, err, a.ID)
		}
		if gs, err := db.Generations(bg, id); err != nil || len(gs) != 2 || gs[0].SessionID != a.ID || gs[1].Cause != CauseClear {
			t.Errorf("generations of %q: %+v (%v), want %s's two", id, gs, err, a.ID)
		}
	}
	if _, err := db.GetSession(bg, a.ID[:n]); !errors.As(err, &amb) {
		t.Errorf("session of the shared prefix: %v, want ambiguous", err)
	}
	if _, err := db.Generations(bg, a.ID[:n]); !errors.As(err, &amb) {
		t.Errorf("generations of the shared prefix: %v, want ambiguous", err)
	}
	for _, id := range []string{"zzzz", " "} {
		if _, err := db.GetSession(bg, id); !errors.Is(err, ErrSessionNotFound) {
			t.Errorf("session %q: %v, want ErrSessionNotFound", id, err)
		}
		if _, err := db.Generations(bg, id); !errors.Is(err, ErrSessionNotFound) {
			t.Errorf("generations of %q: %v, want ErrSessionNotFound", id, err)
		}
	}
}

// TestViewOfAChainMissingAParent: a generation whose parent's row is gone
// (a damaged database) is not found, and the error names the missing
// parent, as when the chain was walked one generation at a time.
func TestViewOfAChainMissingAParent(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	s := newSession(t, db, "chain", "/w")
	turn(t, db, s.ID, "first", 1)
	turn(t, db, s.ID, "second", 1)
	must[Generation](t)(db.RevertTo(bg, s.ID, 1, CauseRevert, ""))
	turn(t, db, s.ID, "third", 1)
	if v := must[View](t)(db.View(bg, s.ID)); v.Generation.Gen != 1 || len(v.Records) != 12 {
		t.Fatalf("view of generation %d with %d records", v.Generation.Gen, len(v.Records))
	}
	if err := db.WriteTx(bg, func(tx *sql.Tx) error {
		_, err := tx.Exec("DELETE FROM generations WHERE session_id = ? AND gen = 0", s.ID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.View(bg, s.ID); !errors.Is(err, ErrGenerationNotFound) || !strings.Contains(err.Error(), "generation 0 of session "+s.ID) {
		t.Errorf("view through a missing parent: %v, want generation 0 not found", err)
	}
}

// TestAppendResolvesTheSessionAndItsGeneration: an append (and an
// interrupted step's keep) names the session by its id or a unique prefix
// and reads its state and current generation in one statement
// (stateGenQuery): the counters carry on from the generation's row, an
// ambiguous prefix lists the sessions, an unknown id is not found, and a
// current generation whose row is gone (a damaged database) is not found
// by name.
func TestAppendResolvesTheSessionAndItsGeneration(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	a, b := newSession(t, db, "a", "/w"), newSession(t, db, "b", "/w")
	n := 0
	for a.ID[n] == b.ID[n] {
		n++
	}
	turn(t, db, a.ID, "first", 1)
	must[Generation](t)(db.RevertTo(bg, a.ID, 0, CauseRevert, ""))
	cp := must[int](t)(db.StartTurn(bg, " "+strings.ToUpper(a.ID[:n+1])+" ", false, message.NewText("user", "again")))
	if cp != 0 {
		t.Errorf("the turn after a revert to checkpoint 0 is checkpoint %d, want 0", cp)
	}
	must[[]Record](t)(db.CommitStep(bg, a.ID, Step{Assistant: message.NewText("assistant", "answer"), TokenCount: 7}))
	if _, _, err := db.KeepInterrupted(bg, a.ID[:n+1], message.NewText("assistant", "partial")); err != nil {
		t.Fatal(err)
	}
	v := must[View](t)(db.View(bg, a.ID))
	if g := v.Generation; g.Gen != 3 || g.Messages != 2 || g.NextCheckpointID != 1 || v.Tokens != 7 || len(v.Records) != 4 {
		t.Errorf("generation %d: %d messages, next checkpoint %d, %d tokens, %d records; want 3: 2, 1, 7, 4",
			g.Gen, g.Messages, g.NextCheckpointID, v.Tokens, len(v.Records))
	}
	var amb *AmbiguousIDError
	if _, err := db.AppendMessage(bg, a.ID[:n], message.NewText("user", "x")); !errors.As(err, &amb) || len(amb.Candidates) != 2 {
		t.Errorf("append to the shared prefix %q: %v, want both sessions named", a.ID[:n], err)
	}
	if _, _, err := db.KeepInterrupted(bg, "zzzz", message.NewText("assistant", "x")); !errors.Is(err, ErrSessionNotFound) {
		t.Errorf("keep in an unknown session: %v, want ErrSessionNotFound", err)
	}
	if err := db.WriteTx(bg, func(tx *sql.Tx) error {
		_, err := tx.Exec("DELETE FROM generations WHERE session_id = ? AND gen = 0", b.ID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Checkpoint(bg, b.ID, false); !errors.Is(err, ErrGenerationNotFound) || !strings.Contains(err.Error(), "generation 0 of session "+b.ID) {
		t.Errorf("append to a session whose generation is gone: %v, want generation 0 not found", err)
	}
}
