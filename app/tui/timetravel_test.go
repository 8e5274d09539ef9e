package tui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul/filecp"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// seedTurns appends one checkpoint + user message + answer per task.
func seedTurns(t *testing.T, db *store.DB, id string, tasks ...string) {
	t.Helper()
	ctx := context.Background()
	for i, task := range tasks {
		if _, err := db.Checkpoint(ctx, id, false); err != nil {
			t.Fatal(err)
		}
		if _, err := db.AppendMessage(ctx, id, message.NewText("user", task)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.CommitStep(ctx, id, store.Step{Assistant: message.NewText("assistant", "answer to "+task), TokenCount: 1000 * (i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
}

// branchedSession is a session with three turns, reverted to checkpoint 1
// and continued: generation 0 is an archived branch at checkpoint 1.
func branchedSession(t *testing.T, db *store.DB, work string) string {
	t.Helper()
	ctx := context.Background()
	s, err := db.CreateSession(ctx, store.NewSession{Title: "branched", WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	seedTurns(t, db, s.ID, "first task", "second task", "third task")
	if _, err := db.RevertTo(ctx, s.ID, 1, store.CauseRevert, "try again"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Checkpoint(ctx, s.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AppendMessage(ctx, s.ID, message.NewText("user", "second task, take two")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CommitStep(ctx, s.ID, store.Step{Assistant: message.NewText("assistant", "a better answer"), TokenCount: 2500}); err != nil {
		t.Fatal(err)
	}
	return s.ID
}

func resumeHarness(t *testing.T, seed func(h *harness) string) *harness {
	var id string
	return newHarness(t, hopts{
		w: 180, h: 44,
		before: func(h *harness) { id = seed(h) },
		mutate: func(o *Options) { o.Mode, o.SessionID = ModeResume, id },
	})
}

// findText returns the position of sub on the screen.
func (h *harness) findText(sub string) (x, y int, ok bool) {
	for y, row := range h.rows() {
		if i := strings.Index(row, sub); i >= 0 {
			return len([]rune(row[:i])), y, true
		}
	}
	return 0, 0, false
}

func (h *harness) focus(p interface{ HasFocus() bool }) {
	h.c.onUIThread(func() {
		switch p {
		case h.c.timeline:
			h.c.app.SetFocus(h.c.timeline)
		case h.c.input:
			h.c.app.SetFocus(h.c.input)
		case h.c.sessions:
			h.c.app.SetFocus(h.c.sessions)
		case h.c.conv:
			h.c.app.SetFocus(h.c.conv)
		case h.c.toolOut:
			h.c.app.SetFocus(h.c.toolOut)
		}
	})
}

func TestTimelineBranchesAndArchivedStyle(t *testing.T) {
	t.Parallel()
	h := resumeHarness(t, func(h *harness) string { return branchedSession(t, h.db, h.work) })
	txt := h.waitFor("gen 0 · start · 6 msgs · archived by revert in gen 1: try again", "second task, take two ← here")
	x, y, ok := h.findText("○ gen 0")
	if !ok {
		t.Fatalf("no branch row:\n%s", txt)
	}
	if r := h.cell(x-2, y).Runes; len(r) == 0 || r[0] != '├' {
		t.Errorf("the branch is not drawn with box characters: %q in row %q", string(r), h.rows()[y])
	}
	fg, _, _ := h.cell(x, y).Style.Decompose()
	if want := h.theme().Dim; fg != want {
		t.Errorf("archived generation drawn in %v, want the dim colour %v", fg, want)
	}
	// The branch sits between checkpoint 0 and checkpoint 1 (where it left).
	_, y0, _ := h.findText("first task")
	_, y1, _ := h.findText("second task, take two ← here")
	if !(y0 < y && y < y1) {
		t.Errorf("branch row %d not between checkpoint 0 (%d) and 1 (%d):\n%s", y, y0, y1, txt)
	}
}

func TestTimelinePreviewRevertConfirmAndRevert(t *testing.T) {
	t.Parallel()
	var id string
	h := resumeHarness(t, func(h *harness) string { id = branchedSession(t, h.db, h.work); return id })
	h.waitFor("second task, take two ← here")
	h.focus(h.c.timeline)
	// Focusing the timeline previews the selected (last) checkpoint.
	txt := h.waitFor("PREVIEW · before checkpoint 1 · 2 later messages not shown")
	if _, _, ok := h.findText("a better answer"); ok {
		t.Fatalf("the preview still shows messages after the checkpoint:\n%s", txt)
	}
	h.key(tcell.KeyEnter)
	h.waitFor("Revert to checkpoint 1? 2 messages will be archived in generation 1 (not deleted).", "Conversation only", "No file would change")
	h.typeText("c", false)
	h.waitFor("Reverted to checkpoint 1: generation 2")
	gens, err := h.db.Generations(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(gens) != 3 || gens[2].Cause != store.CauseRevert || gens[1].ArchivedAt == nil {
		t.Fatalf("generations after the revert: %+v", gens)
	}
	h.waitGone("PREVIEW ·")
	// The user message we returned to is offered for editing.
	h.waitUntil("the input to hold the returned-to message", func() bool { return h.c.input.Text() == "second task, take two" })
}

func TestTimelinePreviewEndsWhenLeaving(t *testing.T) {
	t.Parallel()
	h := resumeHarness(t, func(h *harness) string { return branchedSession(t, h.db, h.work) })
	h.waitFor("a better answer")
	h.focus(h.c.timeline)
	h.waitFor("PREVIEW · before checkpoint 1")
	h.key(tcell.KeyHome) // first row: checkpoint 0 (g asks for a checkpoint)
	h.waitFor("PREVIEW · before checkpoint 0 · 4 later messages")
	h.key(tcell.KeyEsc)
	h.waitGone("PREVIEW ·")
	h.waitFor("a better answer")
	h.waitUntil("focus back on the input", func() bool { return h.c.app.GetFocus() == h.c.input })
}

func TestRevertConfirmListsFilesAndRevertsThem(t *testing.T) {
	t.Parallel()
	var id string
	var tr *filecp.Tracker
	h := newHarness(t, hopts{
		w: 180, h: 44,
		before: func(h *harness) {
			ctx := context.Background()
			s, err := h.db.CreateSession(ctx, store.NewSession{Title: "files", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
			seedTurns(t, h.db, id, "make notes")
			if _, err := h.db.Checkpoint(ctx, id, false); err != nil { // checkpoint 1
				t.Fatal(err)
			}
			if _, err := h.db.AppendMessage(ctx, id, message.NewText("user", "write the file")); err != nil {
				t.Fatal(err)
			}
			if tr, err = filecp.New(h.db, id, h.work, filecp.Options{}); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(h.work, "notes.txt")
			if _, err := tr.BeforeWrite(ctx, []string{p}); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("hello\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := tr.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := h.db.CommitStep(ctx, id, store.Step{Assistant: message.NewText("assistant", "wrote notes.txt")}); err != nil {
				t.Fatal(err)
			}
		},
		mutate: func(o *Options) {
			o.Mode, o.SessionID = ModeResume, id
			o.Soul.Files = toolsTracker{tr}
		},
	})
	h.waitFor("wrote notes.txt")
	h.typeText("/revert 1", true)
	h.waitFor("Revert to checkpoint 1? 2 messages will be archived", "files to revert to checkpoint 1: 0 to modify, 0 to create, 1 to delete", "delete    notes.txt", "Conversation + files", "Files only", "Show file diffs")
	// The diffs on request: what the revert would write, then back.
	h.typeText("d", false)
	h.waitFor("Files: now → revert to checkpoint 1", "--- a/notes.txt", "+++ /dev/null", "- hello")
	h.key(tcell.KeyEsc)
	// Enter takes the default, as in the undo dialog: conversation and
	// files together (it used to be the conversation only).
	h.waitFor("Revert to checkpoint 1? 2 messages will be archived", "Show file diffs", "▶ [b] Conversation + files")
	h.key(tcell.KeyEnter)
	h.waitFor("Reverted to checkpoint 1", "files reverted to", "0 modified, 0 created, 1 deleted")
	if _, err := os.Stat(filepath.Join(h.work, "notes.txt")); !os.IsNotExist(err) {
		t.Fatalf("notes.txt still exists after a conversation + files revert: %v", err)
	}
	v, err := h.db.View(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if v.Generation.Cause != store.CauseRevert {
		t.Fatalf("current generation cause %s, want revert", v.Generation.Cause)
	}
}

func TestRevertIntoCompactedRegionRefusedWithRestoreOffer(t *testing.T) {
	t.Parallel()
	var id string
	h := resumeHarness(t, func(h *harness) string {
		ctx := context.Background()
		s, err := h.db.CreateSession(ctx, store.NewSession{Title: "compacted", WorkDir: h.work})
		if err != nil {
			t.Fatal(err)
		}
		id = s.ID
		seedTurns(t, h.db, id, "alpha", "beta", "gamma")
		sum := message.Compaction("summary of alpha, beta, gamma")
		if _, err := h.db.StartCompacted(ctx, id, []message.Message{sum}, 0, 500, false); err != nil {
			t.Fatal(err)
		}
		return id
	})
	h.waitFor("summary of alpha")
	h.typeText("/revert 2", true)
	h.waitFor("Cannot revert into a compacted region", "Checkpoint 2 lies in the part of the conversation", "[r] Restore generation 0")
	h.typeText("r", false)
	h.waitFor("Restore generation 0 (", "Conversation only")
	h.typeText("c", false)
	h.waitFor("Restored generation 0 as generation 2")
	v, err := h.db.View(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if v.Generation.Cause != store.CauseRestore || v.Generation.ParentGen == nil || *v.Generation.ParentGen != 0 {
		t.Fatalf("current generation %+v, want a restore of generation 0", v.Generation)
	}
}

func TestGenerationPreviewAndDiff(t *testing.T) {
	t.Parallel()
	h := resumeHarness(t, func(h *harness) string { return branchedSession(t, h.db, h.work) })
	h.waitFor("gen 0 · start")
	h.focus(h.c.timeline)
	h.waitFor("PREVIEW · before checkpoint 1")
	h.key(tcell.KeyUp) // the branch row
	h.waitFor("ARCHIVED generation 0 · start · archived by revert in gen 1: try again · 6 msgs · read-only", "answer to third task")
	h.typeText("d", false)
	txt := h.waitFor("Diff: generation 0 (start) → current generation 1", "+2 -4")
	x, y, ok := h.findText("+ user: second task, take two")
	if !ok {
		t.Fatalf("no added line:\n%s", txt)
	}
	if fg, _, _ := h.cell(x, y).Style.Decompose(); fg != h.theme().DiffAdd {
		t.Errorf("added line in %v, want DiffAdd %v", fg, h.theme().DiffAdd)
	}
	x, y, ok = h.findText("- assistant: answer to third task")
	if !ok {
		t.Fatalf("no removed line:\n%s", txt)
	}
	if fg, _, _ := h.cell(x, y).Style.Decompose(); fg != h.theme().DiffRemove {
		t.Errorf("removed line in %v, want DiffRemove %v", fg, h.theme().DiffRemove)
	}
	h.key(tcell.KeyEsc)
	h.waitGone("Diff: generation 0")
}

func TestGenerationRestoreAndFork(t *testing.T) {
	t.Parallel()
	var id string
	h := resumeHarness(t, func(h *harness) string { id = branchedSession(t, h.db, h.work); return id })
	h.waitFor("gen 0 · start")
	h.focus(h.c.timeline)
	h.waitFor("PREVIEW · before checkpoint 1")
	h.key(tcell.KeyUp)
	h.waitFor("ARCHIVED generation 0")
	h.typeText("r", false)
	h.waitFor("Restore generation 0 (6 messages)?")
	h.typeText("c", false)
	h.waitFor("Restored generation 0 as generation 2", "answer to third task")
	// The restore is still under way when its view shows; a fork chosen
	// before it ends is refused (a run is active): the question closed and
	// nothing was forked, once in ~500 runs.
	h.waitUntil("the restore to end", h.idle)
	v, err := h.db.View(context.Background(), id)
	if err != nil || v.Generation.Cause != store.CauseRestore {
		t.Fatalf("after restore: %+v %v", v.Generation, err)
	}

	// Fork the archived generation 1 into a new session.
	h.focus(h.c.timeline)
	h.waitUntil("the generation 1 branch", func() bool {
		for i := 0; i < h.c.timeline.Len(); i++ {
			h.c.timeline.Select(i)
			if it, ok := h.c.timeline.SelectedItem(); ok && it.Kind == views.TimelineGeneration && it.Generation.Gen == 1 {
				return true
			}
		}
		return false
	})
	h.typeText("f", false)
	h.waitFor("Fork generation 1 into a new session")
	h.typeText("f", false)
	h.waitFor("Forked generation 1 of session")
	h.waitUntil("the workspace on the fork", func() bool { return h.c.SessionID() != id })
	fork, err := h.db.GetSession(context.Background(), h.sessionID())
	if err != nil || fork.Messages != 4 {
		t.Fatalf("fork %+v %v, want 4 messages (generation 1's view)", fork, err)
	}
}

// f on a checkpoint row asks, then forks the conversation as it was before
// that checkpoint into a new session and switches to it; the lists title
// the fork "fork of <title> @ checkpoint N" (no UI path forked at a
// checkpoint: the README's "@ checkpoint N" never appeared).
func TestForkAtACheckpoint(t *testing.T) {
	t.Parallel()
	var id string
	h := resumeHarness(t, func(h *harness) string {
		s, err := h.db.CreateSession(context.Background(), store.NewSession{Title: "three tasks", WorkDir: h.work})
		if err != nil {
			t.Fatal(err)
		}
		seedTurns(t, h.db, s.ID, "first task", "second task", "third task")
		id = s.ID
		return id
	})
	h.waitFor("third task")
	h.focus(h.c.timeline)
	h.waitUntil("checkpoint 1 selected", func() bool {
		for i := 0; i < h.c.timeline.Len(); i++ {
			h.c.timeline.Select(i)
			if it, ok := h.c.timeline.SelectedItem(); ok && it.Kind == views.TimelineCheckpoint && it.Checkpoint.ID == 1 {
				return true
			}
		}
		return false
	})
	h.typeText("f", false)
	h.waitFor("Fork the conversation before checkpoint 1")
	h.typeText("f", false)
	waitForSentence(h, "Forked session "+shortID(id)+" at checkpoint 1 into")
	h.waitUntil("the workspace on the fork", func() bool { return h.c.SessionID() != id && h.idle() })
	fork, err := h.db.GetSession(context.Background(), h.sessionID())
	if err != nil || fork.ForkOf != id || fork.ForkCheckpoint != 1 || fork.Messages != 2 {
		t.Fatalf("fork %+v %v, want the 2 messages before checkpoint 1 of %s", fork, err, id)
	}
	h.waitFor("▶fork of three", "⑂ fork @1")
	h.waitUntil("the fork's row titled with its checkpoint", func() bool {
		for _, r := range h.c.sessions.Visible() {
			if r.ID == fork.ID {
				return r.Title == "fork of three tasks @ checkpoint 1"
			}
		}
		return false
	})
	if strings.Contains(h.text(), "second task") {
		t.Errorf("the fork shows the turn after its checkpoint:\n%s", h.text())
	}
}

// The generation diff shows an answer's text, not its markdown syntax (it
// showed raw "##" and "**"); what it compares is unchanged.
func TestGenerationDiffShowsAnswersWithoutMarkdownSyntax(t *testing.T) {
	t.Parallel()
	body, err := json.Marshal(message.NewText("assistant", "## The plan\n\nFirst **fix** the parser, then `go test`."))
	if err != nil {
		t.Fatal(err)
	}
	msgs := diffMessages(store.View{Records: []store.Record{{Kind: store.KindMessage, Role: "assistant", Body: body}}})
	if len(msgs) != 1 {
		t.Fatalf("%d messages", len(msgs))
	}
	got := msgs[0].text
	for _, syntax := range []string{"##", "**", "`"} {
		if strings.Contains(got, syntax) {
			t.Errorf("the diff shows %q: %q", syntax, got)
		}
	}
	if !strings.Contains(got, "The plan") || !strings.Contains(got, "First fix the parser, then go test.") {
		t.Errorf("the diff lost the answer's words: %q", got)
	}
}
