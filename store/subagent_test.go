package store

import (
	"testing"

	"github.com/rewind-agent/rewind/store/message"
)

// TestSubagentSessions: a sub-agent session records its parent, the
// parent's call and its type; the default list leaves it out (continue
// never picks a child), the full list and SubagentsOf include it.
func TestSubagentSessions(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	parent := newSession(t, db, "parent", "/w")
	must[int](t)(db.StartTurn(bg, parent.ID, false, message.NewText("user", "count the failing tests")))
	child := must[Session](t)(db.CreateSession(bg, NewSession{Title: "count the failing tests", WorkDir: "/w", Model: "m",
		Subagent: SubagentOrigin{Of: parent.ID, CallID: "call_1", Type: "coder"}}))
	if child.SubagentOf != parent.ID || child.SubagentCall != "call_1" || child.SubagentType != "coder" {
		t.Fatalf("child = %+v", child)
	}
	got := must[Session](t)(db.GetSession(bg, child.ID))
	if got.SubagentOf != parent.ID || got.SubagentType != "coder" {
		t.Fatalf("GetSession: %+v", got)
	}
	top := must[[]Session](t)(db.ListSessions(bg, ListOptions{WorkDir: "/w"}))
	if len(top) != 1 || top[0].ID != parent.ID {
		t.Fatalf("top-level list = %v; want only the parent", ids(top))
	}
	all := must[[]Session](t)(db.ListSessions(bg, ListOptions{Subagents: true}))
	if len(all) != 2 {
		t.Fatalf("full list = %v; want parent and child", ids(all))
	}
	kids := must[[]Session](t)(db.SubagentsOf(bg, []string{parent.ID}))
	if len(kids) != 1 || kids[0].ID != child.ID {
		t.Fatalf("SubagentsOf = %v", ids(kids))
	}
	if _, err := db.CreateSession(bg, NewSession{Subagent: SubagentOrigin{Of: "nosuchsession", Type: "coder"}}); err == nil {
		t.Fatal("a sub-agent of a missing session was created")
	}
}

// TestSubagentArchivedByParentRevert: reverting the parent to before the
// step that ran the child archives the child with the parent's generation
// that held the call; restoring that generation (undo) brings it back.
func TestSubagentArchivedByParentRevert(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	parent := newSession(t, db, "parent", "/w")
	must[int](t)(db.StartTurn(bg, parent.ID, false, message.NewText("user", "first")))
	must[int](t)(db.StartTurn(bg, parent.ID, false, message.NewText("user", "second")))
	cp := must[int](t)(db.Checkpoint(bg, parent.ID, false))
	child := must[Session](t)(db.CreateSession(bg, NewSession{WorkDir: "/w",
		Subagent: SubagentOrigin{Of: parent.ID, CallID: "call_1", Type: "explore"}}))
	if a, _, err := db.SubagentArchived(bg, child); err != nil || a {
		t.Fatalf("fresh child archived=%v err=%v", a, err)
	}
	// A revert to a later checkpoint keeps the call.
	later := must[int](t)(db.Checkpoint(bg, parent.ID, false))
	must[Generation](t)(db.RevertTo(bg, parent.ID, later, CauseRevert, ""))
	child = must[Session](t)(db.GetSession(bg, child.ID))
	if a, _, err := db.SubagentArchived(bg, child); err != nil || a {
		t.Fatalf("after a revert that keeps the step: archived=%v err=%v", a, err)
	}
	// A revert to the step's checkpoint (before the step) archives it with
	// generation 0, where the call ran.
	g := must[Generation](t)(db.RevertTo(bg, parent.ID, cp, CauseRevert, ""))
	a, gen, err := db.SubagentArchived(bg, child)
	if err != nil || !a || gen != 0 {
		t.Fatalf("after reverting the parent to the step's checkpoint (gen %d): archived=%v gen=%d err=%v; want archived with generation 0", g.Gen, a, gen, err)
	}
	must[Generation](t)(db.Restore(bg, parent.ID, 1))
	if a, _, err := db.SubagentArchived(bg, child); err != nil || a {
		t.Fatalf("after restoring the parent's generation 1: archived=%v err=%v", a, err)
	}
}

func ids(ss []Session) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.ID
	}
	return out
}
