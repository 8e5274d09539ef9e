package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/app/timetravel"
	"github.com/rewind-agent/rewind/soul/filecp"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// fileSession is a session whose second turn ("write the file") wrote
// notes.txt in two steps: a Shell step, then WriteFile, then an answer.
func fileSession(t *testing.T, h *harness) (string, *filecp.Tracker) {
	t.Helper()
	ctx := context.Background()
	s, err := h.db.CreateSession(ctx, store.NewSession{Title: "files", WorkDir: h.work})
	if err != nil {
		t.Fatal(err)
	}
	seedTurns(t, h.db, s.ID, "make notes")
	if _, err := h.db.Checkpoint(ctx, s.ID, false); err != nil { // checkpoint 1: the turn
		t.Fatal(err)
	}
	if _, err := h.db.AppendMessage(ctx, s.ID, message.NewText("user", "write the file")); err != nil {
		t.Fatal(err)
	}
	tr, err := filecp.New(h.db, s.ID, h.work, filecp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	step := func(call message.ToolCall, write string) {
		if _, err := h.db.Checkpoint(ctx, s.ID, false); err != nil {
			t.Fatal(err)
		}
		if write != "" {
			p := filepath.Join(h.work, "notes.txt")
			if _, err := tr.BeforeWrite(ctx, []string{p}); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(write), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := tr.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
		a := message.Message{Role: "assistant", ToolCalls: []message.ToolCall{call}}
		res := message.Message{Role: "tool", ToolCallID: call.ID, Content: message.Content{Parts: []message.Part{{Type: "text", Text: "ok"}}}}
		if _, err := h.db.CommitStep(ctx, s.ID, store.Step{Assistant: a, ToolResults: []message.Message{res}}); err != nil {
			t.Fatal(err)
		}
	}
	step(message.ToolCall{ID: "c1", Name: "Shell", Args: `{"command":"go test ./..."}`}, "")     // checkpoint 2
	step(message.ToolCall{ID: "c2", Name: "WriteFile", Args: `{"path":"notes.txt"}`}, "hello\n") // checkpoint 3
	if _, err := h.db.Checkpoint(ctx, s.ID, false); err != nil {                                 // checkpoint 4
		t.Fatal(err)
	}
	if _, err := h.db.CommitStep(ctx, s.ID, store.Step{Assistant: message.NewText("assistant", "wrote notes.txt")}); err != nil {
		t.Fatal(err)
	}
	return s.ID, tr
}

func fileHarness(t *testing.T) (*harness, string) {
	var id string
	var tr *filecp.Tracker
	h := newHarness(t, hopts{
		w: 180, h: 44,
		before: func(h *harness) { id, tr = fileSession(t, h) },
		mutate: func(o *Options) {
			o.Mode, o.SessionID = ModeResume, id
			o.Soul.Files = toolsTracker{tr}
		},
	})
	h.waitFor("wrote notes.txt")
	return h, id
}

func readNotes(t *testing.T, h *harness) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(h.work, "notes.txt"))
	if os.IsNotExist(err) {
		return "(none)"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestRestoreCommandOffersFilesAndUndo: /restore G asks with the same
// dialog as r in the timeline, files included; /restore of the current
// generation says there is nothing to restore; u undoes the last rewind,
// files included.
func TestRestoreCommandOffersFilesAndUndo(t *testing.T) {
	t.Parallel()
	h, id := fileHarness(t)
	h.submit("/revert 1")
	h.waitFor("Revert to checkpoint 1?", "Conversation + files")
	h.typeText("b", false)
	h.waitFor("Reverted to checkpoint 1: generation 1", "undo with u in the")
	h.waitUntil("the revert to end", h.idle)
	if got := readNotes(t, h); got != "(none)" {
		t.Fatalf("notes.txt after revert with files: %q", got)
	}
	h.key(tcell.KeyCtrlU) // the prompt came back into the input

	h.submit("/restore 1")
	h.waitFor("generation 1 is the current one: there is nothing to restore")

	h.submit("/restore 0")
	h.waitFor("Restore generation 0 (", "files to restore to the end of generation 0", "Conversation + files")
	h.key(tcell.KeyEsc)
	h.waitGone("Restore generation 0 (")

	// u in the timeline undoes the revert: conversation and files.
	h.focus(h.c.timeline)
	h.typeText("u", false)
	h.waitFor("Undo the last rewind (revert to checkpoint 1)?", "Conversation + files")
	h.typeText("b", false)
	h.waitFor("Restored generation 0 as generation 2", "wrote notes.txt")
	h.waitUntil("the undo to end", h.idle)
	if got := readNotes(t, h); got != "hello\n" {
		t.Fatalf("notes.txt after undo: %q", got)
	}
	v, err := h.db.View(context.Background(), id)
	if err != nil || v.Generation.Gen != 2 || v.Generation.Messages != 8 {
		t.Fatalf("after undo: %+v %v", v.Generation, err)
	}
}

// TestRevertToStepSaysWhatStays: reverting to a step checkpoint says what
// stays (the prompt and the steps before it), not the next prompt, and puts
// nothing in the input; 0 changed files offer no "+ files".
func TestRevertToStepSaysWhatStays(t *testing.T) {
	t.Parallel()
	h, _ := fileHarness(t)
	h.submit("/revert 3")
	txt := h.waitFor("Revert to checkpoint 3?", "You keep “write the file” and its step 1; step 2 · WriteFile notes.txt and")
	if strings.Contains(txt, "You return to") {
		t.Errorf("a step revert names a prompt to return to:\n%s", txt)
	}
	h.key(tcell.KeyEsc)
	h.submit("/revert 4")
	txt = h.waitFor("Revert to checkpoint 4?", "No file would change")
	if strings.Contains(txt, "Conversation + files") {
		t.Errorf("the dialog offers files when no file would change:\n%s", txt)
	}
	h.typeText("c", false)
	h.waitFor("Reverted to checkpoint 4")
	h.waitUntil("the revert to end", h.idle)
	if got := h.c.input.Text(); got != "" {
		t.Errorf("a step revert put %q in the input", got)
	}
}

// TestEscEscPicksATurn: Esc Esc lists the turns (one row per prompt) and
// starts on the last; picking the second of three returns to just before
// it, with its prompt back in the input.
func TestEscEscPicksATurn(t *testing.T) {
	t.Parallel()
	var id string
	h := resumeHarness(t, func(h *harness) string {
		s, err := h.db.CreateSession(context.Background(), store.NewSession{Title: "three", WorkDir: h.work})
		if err != nil {
			t.Fatal(err)
		}
		id = s.ID
		seedTurns(t, h.db, id, "first task", "second task", "third task")
		return id
	})
	h.waitFor("answer to third task")
	h.key(tcell.KeyEsc)
	h.escAgain()
	h.waitFor("↑/↓ pick a turn", "PREVIEW · before checkpoint 2")
	if n := h.c.timeline.Len(); n != 3 {
		t.Fatalf("the picker lists %d rows, want the 3 turns", n)
	}
	h.key(tcell.KeyUp)
	h.waitFor("PREVIEW · before checkpoint 1")
	h.key(tcell.KeyEnter)
	h.waitFor("Revert to checkpoint 1?", "You return to just before your prompt “second task”")
	h.typeText("c", false)
	h.waitFor("Reverted to checkpoint 1: generation 1")
	h.waitUntil("the prompt back in the input", func() bool { return h.c.input.Text() == "second task" })
	v, err := h.db.View(context.Background(), id)
	if err != nil || v.Generation.Messages != 2 {
		t.Fatalf("after the revert: %+v %v, want the first turn only", v.Generation, err)
	}
}

// TestDMailThatDiscardsPromptsCanBeUndone: a D-Mail back to checkpoint 0
// discards the user's prompts; the banner says how many messages went and
// the end of the run offers a one-key undo that brings them back.
func TestDMailThatDiscardsPromptsCanBeUndone(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48, mutate: func(o *Options) { o.Soul.Yolo = true }},
		llmtest.Text("Ready."),
		llmtest.Calls(llmtest.Call("d1", "SendDMail", map[string]any{"message": "start over", "checkpoint_id": 0})),
		llmtest.Text("Starting over."))
	h.submit("hello")
	h.waitUntil("run 1", h.idle)
	h.submit("now something else")
	h.waitFor("D-Mail discarded your prompts", "2 of them your prompts", "[u] Undo the D-Mail")
	h.waitFor("Backtracked to checkpoint 0", "undoes it")
	h.typeText("u", false)
	h.waitFor("Restored generation 0 as generation 2")
	h.waitUntil("the undo to end", h.idle)
	v, err := h.db.View(context.Background(), h.sessionID())
	if err != nil {
		t.Fatal(err)
	}
	var prompts []string
	for _, m := range v.Messages() {
		if m.Role == "user" && !message.IsCheckpoint(m) {
			prompts = append(prompts, m.Content.PlainText())
		}
	}
	if strings.Join(prompts, "|") != "hello|now something else" {
		t.Fatalf("prompts after the undo: %q", prompts)
	}
}

// TestForceOverwritesConflictAndUndoBringsItBack: a file changed by the
// user since the agent wrote it conflicts; the dialog offers Force, and u
// undoes the forced revert, the user's edit included.
func TestForceOverwritesConflictAndUndoBringsItBack(t *testing.T) {
	t.Parallel()
	h, _ := fileHarness(t)
	if err := os.WriteFile(filepath.Join(h.work, "notes.txt"), []byte("the user's edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.submit("/revert 1")
	h.waitFor("Revert to checkpoint 1?", "conflict", "[F] Force: overwrite conflicting files")
	h.typeText("F", false)
	h.waitFor("Reverted to checkpoint 1", "overwritten")
	h.waitUntil("the revert to end", h.idle)
	if got := readNotes(t, h); got != "(none)" {
		t.Fatalf("notes.txt after a forced revert: %q", got)
	}
	h.key(tcell.KeyCtrlU)
	h.submit("/undo")
	h.waitFor("Undo the last rewind (revert to checkpoint 1)?", "create    notes.txt")
	h.typeText("b", false)
	h.waitFor("Restored generation 0 as generation 2")
	h.waitUntil("the undo to end", h.idle)
	if got := readNotes(t, h); got != "the user's edit\n" {
		t.Fatalf("notes.txt after undo: %q, want the user's edit back", got)
	}
}

// TestResumedSessionShowsInterruptedAnswer: a session reopened later still
// shows an interrupted step's partial answer where it was cut off, dimmed
// and marked interrupted, though the view (what the model is sent) has
// none of it.
func TestResumedSessionShowsInterruptedAnswer(t *testing.T) {
	t.Parallel()
	h := resumeHarness(t, func(h *harness) string {
		ctx := context.Background()
		s, err := h.db.CreateSession(ctx, store.NewSession{Title: "cut", WorkDir: h.work})
		if err != nil {
			t.Fatal(err)
		}
		seedTurns(t, h.db, s.ID, "first task")
		if _, err := h.db.Checkpoint(ctx, s.ID, false); err != nil {
			t.Fatal(err)
		}
		if _, err := h.db.AppendMessage(ctx, s.ID, message.NewText("user", "second task")); err != nil {
			t.Fatal(err)
		}
		if _, _, err := h.db.KeepInterrupted(ctx, s.ID, message.NewText("assistant", "half an answ")); err != nil {
			t.Fatal(err)
		}
		seedTurns(t, h.db, s.ID, "third task")
		return s.ID
	})
	h.waitFor("half an answ", "⏸ interrupted", "answer to third task")
	_, yHalf, _ := h.findText("half an answ")
	_, ySecond, _ := h.findText("second task")
	_, yThird, _ := h.findText("third task")
	if !(ySecond < yHalf && yHalf < yThird) {
		t.Errorf("the partial answer is at row %d, want between the second (%d) and third (%d) prompts:\n%s", yHalf, ySecond, yThird, h.text())
	}
}

// TestRevertDialogSaysWhyFilesCannotBeChecked: a session whose work dir is
// gone says so in the dialog (the tracker's error is not swallowed into
// "no file checkpoints").
func TestRevertDialogSaysWhyFilesCannotBeChecked(t *testing.T) {
	t.Parallel()
	gone := filepath.Join(t.TempDir(), "gone")
	if err := os.MkdirAll(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	var id string
	h := newHarness(t, hopts{w: 180, h: 44,
		before: func(h *harness) {
			s, err := h.db.CreateSession(context.Background(), store.NewSession{Title: "gone", WorkDir: gone})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
			seedTurns(t, h.db, s.ID, "first task", "second task")
		},
		mutate: func(o *Options) {
			o.Mode, o.SessionID = ModeResume, id
			o.Files = func(s store.Session) (tools.FileTracker, error) {
				return forTools(timetravel.Env{DB: o.DB, Session: s}.Tracker())
			}
		},
	})
	h.waitFor("answer to second task")
	// Missing when the session opens, it opens read-only (missing_dir.go):
	// here the dir goes while the session is open.
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	h.submit("/revert 1")
	h.waitFor("Revert to checkpoint 1?", "Only the conversation can move: the session's work dir", "machine (imported from elsewhere, or removed since)")
}

// At 80 columns the revert dialog's Force choice is whole ("[F] Force:
// also overwrite the conflicting fi" was cut).
func TestForceChoiceFitsAt80(t *testing.T) {
	t.Parallel()
	h, _ := fileHarness(t)
	h.resize(80, 24)
	if err := os.WriteFile(filepath.Join(h.work, "notes.txt"), []byte("the user's edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.submit("/revert 1")
	h.waitFor("Revert to checkpoint 1?", "[F] Force: overwrite conflicting files")
}

// TestEscEscCountsTheKeysTimes: Esc Esc is two Esc typed within the window,
// by when they were typed, not when the UI goroutine got to them. Two Esc
// typed a second apart do not open the picker however fast they are
// handled; two typed close together do, however late the second is
// handled (the test failed under load, when a busy UI took its time).
func TestEscEscCountsTheKeysTimes(t *testing.T) {
	t.Parallel()
	h := resumeHarness(t, func(h *harness) string {
		s, err := h.db.CreateSession(context.Background(), store.NewSession{Title: "two", WorkDir: h.work})
		if err != nil {
			t.Fatal(err)
		}
		seedTurns(t, h.db, s.ID, "first task", "second task")
		return s.ID
	})
	h.waitFor("answer to second task")
	h.key(tcell.KeyEsc)
	h.key(tcell.KeyEsc) // a second later, by the keys' clock
	h.c.onUIThread(func() {})
	if h.c.app.GetFocus() == h.c.timeline {
		t.Fatal("two Esc a second apart opened the picker")
	}
	h.key(tcell.KeyEsc)
	h.c.onUIThread(func() { time.Sleep(escEscWindow) }) // a busy UI goroutine: why the test cannot wait instead
	h.escAgain()
	h.waitFor("↑/↓ pick a turn")
}
