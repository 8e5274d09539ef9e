package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

func TestStreamingTextAppearsAndIsStored(t *testing.T) {
	t.Parallel()
	answer := "Streaming works: the quick brown fox jumps over the lazy dog."
	h := newHarness(t, hopts{}, llmtest.Text(answer).WithRate(400).WithUsage(100, 20))
	h.submit("hello there")
	h.waitFor("hello there", "Streaming works: the quick brown fox")
	h.waitUntil("the run to end", h.idle)
	h.waitFor("over the lazy dog.")

	v, err := h.db.View(h.ctx, h.sessionID())
	if err != nil {
		t.Fatal(err)
	}
	msgs := v.Messages()
	last := msgs[len(msgs)-1]
	if last.Role != "assistant" || last.Content.PlainText() != answer {
		t.Fatalf("stored answer = %+v", last)
	}
	// The session title comes from the first prompt and reaches the status bar.
	h.waitUntil("the title in the status bar", func() bool { return h.c.status.Status().SessionTitle == "hello there" })
}

func TestToolCallStatusUpdates(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{},
		llmtest.Calls(
			llmtest.Call("c_ok", "ReadFile", map[string]any{"path": "present.txt"}),
			llmtest.Call("c_bad", "ReadFile", map[string]any{"path": "missing.txt"}),
		),
		llmtest.Text("Read one, the other is missing."))
	if err := os.WriteFile(filepath.Join(h.work, "present.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.submit("read the files")
	txt := h.waitFor("✓ ReadFile present.txt", "✗ ReadFile missing.txt", "Read one, the other is missing.")
	if strings.Contains(txt, "… ReadFile") {
		t.Fatalf("a tool call still shows as running:\n%s", txt)
	}
	// The tool output pane shows the selected call's output; select the
	// successful call (Tab to the conversation, then up).
	h.waitUntil("the run to end", h.idle)
	h.key(tcell.KeyTab)
	h.waitUntil("conversation focus", func() bool { return h.c.app.GetFocus() == h.c.conv })
	for i := 0; i < 2; i++ {
		h.key(tcell.KeyUp)
	}
	h.waitFor("alpha")
}

// TestEscInterruptKeepsThePartialAnswer: Esc during a stream keeps what
// streamed: on screen, dimmed and marked interrupted, and in an archived
// generation (cause interrupt) that `rewind show --generation` reads; the
// current view has none of it, so the model is never sent it.
func TestEscInterruptKeepsThePartialAnswer(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{}, llmtest.Hang(3).WithRate(200), llmtest.Text("after the interrupt"))
	h.submit("start something long")
	h.waitFor("an answe")
	h.key(tcell.KeyEsc)
	h.waitFor("Interrupted", "kept in archived generation 1", "⏸ interrupted")
	h.waitUntil("the run to end", h.idle)
	x, y, ok := h.findText("an answe")
	if !ok {
		t.Fatalf("the partial answer is gone from the screen:\n%s", h.text())
	}
	if fg, _, _ := h.cell(x, y).Style.Decompose(); fg != h.theme().Dim {
		t.Errorf("the partial answer is drawn in %v, want the dim colour %v", fg, h.theme().Dim)
	}
	v, err := h.db.View(h.ctx, h.sessionID())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range v.Messages() {
		if m.Role == "assistant" {
			t.Fatalf("interrupted step is in the current view: %+v", m)
		}
	}
	kept, err := h.db.GenerationView(h.ctx, h.sessionID(), 1)
	if err != nil || kept.Generation.Cause != store.CauseInterrupt {
		t.Fatalf("generation 1: %+v %v", kept.Generation, err)
	}
	msgs := kept.Messages()
	if last := msgs[len(msgs)-1]; last.Role != "assistant" || !strings.HasPrefix(last.Content.PlainText(), "an answe") {
		t.Fatalf("generation 1 does not end with the partial answer: %+v", last)
	}
	// The session stays usable, and the next request has no partial answer.
	h.submit("try again")
	h.waitFor("after the interrupt")
	reqs := h.srv.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "assistant" && strings.Contains(m.Content.PlainText(), "an answe") {
			t.Fatalf("the partial answer was sent to the model: %+v", m)
		}
	}
}

func TestApprovalModalYApproves(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{},
		llmtest.Calls(llmtest.Call("w1", "WriteFile", map[string]any{"path": "notes.txt", "content": "approved content\n"})),
		llmtest.Text("Wrote notes.txt."))
	h.submit("write notes")
	h.waitFor("Approve WriteFile", "+ approved content", "[y] approve")
	h.expectGraceSwallows('y')
	h.clock.advance(approvalGrace)
	h.typeText("y", false)
	h.waitFor("✓ WriteFile notes.txt", "Wrote notes.txt.")
	h.waitGone("[y] approve")
	b, err := os.ReadFile(filepath.Join(h.work, "notes.txt"))
	if err != nil || string(b) != "approved content\n" {
		t.Fatalf("file = %q, %v", b, err)
	}
}

func TestApprovalRejectStopsRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{},
		llmtest.Calls(llmtest.Call("w1", "WriteFile", map[string]any{"path": "nope.txt", "content": "x"})))
	h.submit("write nope")
	h.waitFor("Approve WriteFile")
	h.expectGraceSwallows('n')
	h.clock.advance(approvalGrace)
	h.typeText("n", false)
	h.waitFor("✗ WriteFile nope.txt", "tool call rejected")
	if _, err := os.Stat(filepath.Join(h.work, "nope.txt")); err == nil {
		t.Fatal("rejected write happened")
	}
}

// TestApprovalFeedbackContinuesRun: `f`, a line of feedback and Enter hand
// the feedback to the model, and the run goes on to its next answer.
func TestApprovalFeedbackContinuesRun(t *testing.T) {
	h := newHarness(t, hopts{},
		llmtest.Calls(llmtest.Call("w1", "WriteFile", map[string]any{"path": "nope.txt", "content": "x"})),
		llmtest.Text("Understood: no file, here is the text instead."))
	h.submit("write nope")
	h.waitFor("Approve WriteFile")
	h.clock.advance(approvalGrace)
	h.typeText("f", false)
	h.typeText("just print it", true)
	h.waitFor("Understood: no file, here is the text instead.")
	h.waitUntil("the run to end", h.idle)
	reqs := h.srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "just print it") {
		t.Fatalf("%d requests; the feedback did not reach the model", len(reqs))
	}
	if _, err := os.Stat(filepath.Join(h.work, "nope.txt")); err == nil {
		t.Fatal("rejected write happened")
	}
}

func TestCompactShowsBannerAndNewGeneration(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{},
		llmtest.Text("first answer"),
		llmtest.Text("second answer"),
		llmtest.Text("third answer"),
		llmtest.Text("SUMMARY: the user said hello three times."))
	for _, p := range []string{"one", "two", "three"} {
		h.submit(p)
		h.waitUntil("the run to end", h.idle)
	}
	h.waitFor("third answer")
	h.submit("/compact")
	h.waitFor("Context compacted into generation 1", "generation 0 archived", "SUMMARY: the user said hello")
	h.waitUntil("compaction to end", h.idle)
	gens, err := h.db.Generations(h.ctx, h.sessionID())
	if err != nil {
		t.Fatal(err)
	}
	if len(gens) != 2 || gens[1].Cause != store.CauseCompact || !gens[0].Archived() {
		t.Fatalf("generations = %+v", gens)
	}
}

// TestCompactOfAShortContextSaysSo: the "nothing to compact yet" note is
// news, not progress: the compaction's end used to clear it in the same
// frame it was set, so /compact on a short session showed nothing at all.
func TestCompactOfAShortContextSaysSo(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{}, llmtest.Text("first answer"))
	h.submit("one")
	h.waitFor("first answer")
	h.waitUntil("the run to end", h.idle)
	h.submit("/compact")
	h.waitUntil("compaction to end", func() bool { return h.c.run.op == "" && len(h.c.msg.noticeLog()) > 0 })
	h.waitFor("nothing to compact yet")
}

func TestUnknownSlashCommandSendsNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{}, llmtest.Text("should never be asked"))
	h.submit("/frobnicate now")
	h.waitFor("unknown command /frobnicate")
	// The command is refused on the UI goroutine before any run starts, so
	// an idle controller has sent nothing and never will.
	h.waitUntil("the controller to be idle", h.idle)
	if n := len(h.srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached the model", n)
	}
	if h.sessionID() != "" {
		t.Fatal("an unknown command created a session")
	}
}

func TestContextCommandsRefusedWhileRunning(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{}, llmtest.Hang(3).WithRate(100))
	h.submit("long run")
	h.waitFor("an answe")
	h.submit("/clear")
	h.waitFor("/clear is not available: a run is active")
	// A prompt typed during the run is refused but kept in the input.
	h.typeText("next question", true)
	h.waitFor("a run is active")
	h.waitUntil("the prompt kept in the input", func() bool { return h.c.input.Text() == "next question" })
	h.key(tcell.KeyEsc)
	h.waitUntil("the run to end", h.idle)
	// The interrupt kept the partial answer (generations 1 and 2); /clear
	// made none.
	gens, _ := h.db.Generations(h.ctx, h.sessionID())
	for _, g := range gens {
		if g.Cause == store.CauseClear {
			t.Fatalf("a refused /clear cleared: %+v", gens)
		}
	}
}

func TestHelpOverlayListsEverySlashCommand(t *testing.T) {
	t.Parallel()
	// Tall enough for the whole overlay (it needs 100 rows): no paging to
	// wait for. Not taller: each frame draws every cell (400 rows cost a
	// quarter of a second of CPU).
	h := newHarness(t, hopts{w: 200, h: 140})
	h.typeText("?", false)
	h.waitFor("Slash commands")
	seen := h.text()
	for _, c := range h.c.commands.slashCommands(h.c.disabledBy) {
		if !strings.Contains(seen, c.Name) {
			t.Errorf("help does not list %s", c.Name)
		}
		if !strings.Contains(seen, c.Description[:20]) {
			t.Errorf("help does not describe %s", c.Name)
		}
	}
	h.key(tcell.KeyEsc)
	h.waitGone("Slash commands")
	if h.c.app.GetFocus() != h.c.input {
		t.Error("focus did not return to the input")
	}
	// /help opens the same overlay.
	h.submit("/help")
	h.waitFor("Slash commands")
}

func TestSlashCompletionFromRegistry(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{})
	h.typeText("/re", false)
	h.waitFor("/revert", "/restore")
	h.key(tcell.KeyTab) // Tab completes instead of cycling panes
	if h.c.app.GetFocus() != h.c.input {
		t.Fatal("Tab left the input while completing")
	}
}

func TestLayouts(t *testing.T) {
	t.Parallel()
	for _, sz := range []struct{ w, h int }{{80, 24}, {200, 60}} {
		t.Run("", func(t *testing.T) {
			h := newHarness(t, hopts{w: sz.w, h: sz.h}, llmtest.Text("A visible answer."))
			h.submit("layout check")
			// Small terminals stack the side panes as tabs (the last focused one shown).
			side := []string{"Tool output", "Timeline", "Sessions"}
			if sz.h < 30 {
				side = []string{"Tools", "Timeline", "Sessions"}
			}
			txt := h.waitFor(append(side, "Conversation", "Input", "A visible answer.", "fake-model")...)
			rows := h.rows()
			if len(rows) != sz.h {
				t.Fatalf("rows = %d", len(rows))
			}
			if !strings.Contains(rows[sz.h-1], "fake-model") {
				t.Errorf("status bar not on the last row: %q", rows[sz.h-1])
			}
			// The input is under the conversation and at least 3 rows high.
			inputRow := -1
			for y, r := range rows {
				if strings.Contains(r, "Input") {
					inputRow = y
				}
			}
			if inputRow < sz.h/2 || inputRow > sz.h-4 {
				t.Errorf("input title on row %d of %d:\n%s", inputRow, sz.h, txt)
			}
			// Tab cycles every pane and marks the focused one.
			marks := []string{"▶ Conversation", "▶ Tool output", "▶ Timeline", "▶ Sessions", "▶ Input"}
			if sz.h < 30 {
				marks = []string{"▶ Conversation", "▶Tools", "▶Timeline", "▶Sessions", "▶ Input"}
			}
			for _, mark := range marks {
				h.key(tcell.KeyTab)
				h.waitFor(mark)
			}
		})
	}
}

func TestThemeSwitchChangesColours(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 100, h: 30})
	h.waitFor("fake-model")
	_, before, _ := h.cell(1, h.h-1).Style.Decompose()
	h.submit("/theme light")
	h.waitFor("theme light")
	h.waitUntil("the status bar's background to change after /theme light", func() bool {
		cells, w, _ := h.screen.GetContents()
		_, after, _ := cells[(h.h-1)*w+1].Style.Decompose()
		return after != before
	})
	// A malformed user theme: message, and the default theme is used.
	if err := os.MkdirAll(filepath.Join(h.dir, "themes"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.dir, "themes", "broken.yaml"), []byte("colours: [not: a map"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.submit("/theme broken")
	h.waitUntil("a message about the malformed theme", func() bool {
		m, isErr := h.c.status.Message()
		return isErr && strings.Contains(m, "malformed")
	})
	h.waitUntil("default theme", func() bool { return h.c.theme.current.Name == "dark" })
}

func TestCtrlCTwiceQuits(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{})
	h.waitFor("fake-model")
	h.key(tcell.KeyCtrlC)
	h.waitFor("press Ctrl-C again to quit")
	h.key(tcell.KeyCtrlC)
	h.waitQuit("second Ctrl-C did not quit")
}

func TestQuitMidRunCancelsAndWaits(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{}, llmtest.Hang(3).WithRate(100))
	h.submit("never finishes")
	h.waitFor("an answe")
	id := h.sessionID()
	h.typeText("/exit", true)
	h.waitQuit("quit mid-run did not return")
	// Nothing half-written; the lease is released; the session resumes.
	v, err := h.db.View(h.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range v.Messages() {
		if m.Role == "assistant" {
			t.Fatalf("partial step committed: %+v", m)
		}
	}
	if _, alive, _ := h.db.LiveLease(h.ctx, id); alive {
		t.Fatal("lease still held after quit")
	}
}

func TestResumeShowsExistingView(t *testing.T) {
	t.Parallel()
	var id string
	h := newHarness(t, hopts{
		before: func(h *harness) {
			s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "old work", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
			if _, err := h.db.AppendMessage(h.ctx, id, message.NewText("user", "what was I doing")); err != nil {
				t.Fatal(err)
			}
			if _, err := h.db.AppendMessage(h.ctx, id, message.NewText("assistant", "You were **refactoring** the parser.")); err != nil {
				t.Fatal(err)
			}
		},
		mutate: func(o *Options) { o.Mode = ModeContinue },
	})
	h.waitFor("what was I doing", "You were refactoring the parser.", "old work")
	if h.sessionID() != id {
		t.Fatalf("continued %q, want %q", h.sessionID(), id)
	}
	if _, alive, _ := h.db.LiveLease(h.ctx, id); !alive {
		t.Fatal("no lease taken on the resumed session")
	}
}

func TestLeaseHeldOffersWatchOrFork(t *testing.T) {
	t.Parallel()
	h, id, _ := leasedElsewhere(t, llmtest.Text("answer in the fork"))
	h.waitFor("Session in use", "Watch read-only", "Fork into a new session")
	h.typeText("f", false)
	h.waitFor("Forked session")
	if h.sessionID() == id {
		t.Fatal("still on the leased session after fork")
	}
	h.submit("continue in the fork")
	h.waitFor("answer in the fork")
	v, _ := h.db.View(h.ctx, id)
	if n := len(v.Messages()); n != 1 {
		t.Fatalf("original session changed: %d messages", n)
	}
}

func TestWatchModeIsReadOnlyAndFollows(t *testing.T) {
	t.Parallel()
	var id string
	h := newHarness(t, hopts{
		before: func(h *harness) {
			s, _ := h.db.CreateSession(h.ctx, store.NewSession{Title: "watched", WorkDir: h.work})
			id = s.ID
			h.db.AppendMessage(h.ctx, id, message.NewText("user", "first prompt"))
		},
		mutate: func(o *Options) { o.Mode, o.SessionID, o.Client = ModeWatch, id, nil },
	})
	h.waitFor("WATCH · no writer", "first prompt") // watching needs no model
	h.typeText("may I write?", true)
	h.waitFor("read-only: no process writes it now")
	h.waitUntil("the refused prompt kept in the input", func() bool { return h.c.input.Text() == "may I write?" })
	h.key(tcell.KeyCtrlU)
	h.waitUntil("the input cleared", func() bool { return h.c.input.Text() == "" })
	// Another writer appends; the watcher follows.
	if _, err := h.db.AppendMessage(h.ctx, id, message.NewText("assistant", "written by someone else")); err != nil {
		t.Fatal(err)
	}
	h.waitFor("written by someone else")
	h.submit("/compact")
	h.waitFor("/compact is not available: read-only")
}

func TestRetryDiscardsPartialStep(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{})
	h.waitFor("fake-model")
	h.c.post(soul.StepBegin{N: 1})
	h.c.post(soul.ContentPart{Text: "doomed partial answer"})
	h.waitFor("doomed partial answer")
	h.c.post(soul.StepRetry{Attempt: 1, Max: 3, Wait: 1500 * time.Millisecond, Reason: "HTTP 503"})
	h.waitFor("retrying (retry 1 of 3 in 1.5s: HTTP 503)")
	h.waitGone("doomed partial answer")
	h.c.post(soul.ContentPart{Text: "fresh answer"})
	h.waitFor("fresh answer")
}

func TestBannersFromEvents(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 240, h: 40})
	h.waitFor("fake-model")
	h.c.post(soul.Backtrack{CheckpointID: 2, Discarded: 4, ReturnedTo: "fix the bug", Note: "the test file is wrong, not the code", ArchivedGen: 0, NewGen: 1})
	bt := backtrackBanner(soul.Backtrack{CheckpointID: 2, Discarded: 4, ReturnedTo: "fix the bug", Note: "the test file is wrong, not the code"})
	h.c.post(evReload{keepConv: true, banner: &bt})
	h.waitFor("Backtracked to checkpoint 2 · discarded 4 messages", "Returned to:", "    fix the bug", "Note from the future:", "    the test file is wrong")
	h.c.post(soul.CompactionBegin{Tokens: 1200})
	h.waitFor("Compacting the context")
	cb := compactBanner(soul.CompactionEnd{NewGen: 3, ArchivedGen: 2, Truncated: true, Reason: "summary failed: HTTP 500", Kept: 5, Tokens: 900})
	h.c.post(evReload{keepConv: true, banner: &cb})
	h.waitFor("fell back to truncation", "HTTP 500")
	h.c.post(soul.ToolResult{ID: "t1", Name: "SetTodoList", Todos: []soul.Todo{{Title: "write tests", Status: "done"}, {Title: "ship", Status: "pending"}}})
	h.waitFor("☑ write tests", "☐ ship", "todos: 1/2 done")
	h.c.post(soul.Error{Message: "model call failed: HTTP 401 bad key"})
	h.waitFor("HTTP 401 bad key")
}

func TestShellOutputStreamsToToolPane(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{mutate: func(o *Options) { o.Soul.Yolo = true }},
		llmtest.Calls(llmtest.Call("sh1", "Shell", map[string]any{"command": "echo first-line; sleep 0.3; echo second-line"})),
		llmtest.Text("The command printed two lines."))
	h.waitFor("YOLO")
	h.submit("run it")
	h.waitFor("Shell echo first-line", "first-line")
	h.waitFor("✓ Shell", "second-line", "The command printed two lines.")
	h.waitUntil("the tool pane to show the call", func() bool { return h.c.toolOut.Tool().ID == "sh1" })
}

func TestRevertRestoreClearYoloCommands(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 200, h: 50}, llmtest.Text("answer one"), llmtest.Text("answer two"))
	h.submit("prompt one")
	h.waitUntil("run 1", h.idle)
	h.submit("prompt two")
	h.waitFor("answer two")
	h.waitUntil("run 2", h.idle)

	h.submit("/revert 2") // asks first (time travel's confirmation)
	h.waitFor("Conversation only")
	h.typeText("c", false)
	h.waitGone("answer two")
	h.waitUntil("the revert to end", h.idle)
	// The reverted prompt comes back into the input for editing; drop it.
	h.waitUntil("the prompt back in the input", func() bool { return h.c.input.Text() == "prompt two" })
	h.key(tcell.KeyCtrlU)
	h.submit("/restore 0") // the same dialog as r in the timeline
	h.waitFor("Restore generation 0 (", "Conversation only")
	h.typeText("c", false)
	h.waitFor("Restored generation 0 as generation 2", "answer two")
	h.submit("/clear")
	h.waitFor("Context cleared: generation 3 starts empty")
	h.waitUntil("an empty conversation", func() bool {
		for i := 0; i < h.c.conv.Len(); i++ {
			if it, _ := h.c.conv.Item(i); it.Kind != views.ItemBanner {
				return false
			}
		}
		return true
	})
	h.submit("/revert x")
	h.waitFor("usage: /revert N")
	h.submit("/restore 42")
	h.waitFor("generation 42 does not exist")

	causes := ""
	gens, _ := h.db.Generations(h.ctx, h.sessionID())
	for _, g := range gens {
		causes += string(g.Cause) + ","
	}
	if causes != "start,revert,restore,clear," {
		t.Fatalf("generations: %s", causes)
	}
	h.submit("/yolo")
	h.waitFor("YOLO", "yolo on")
	h.submit("/yolo")
	h.waitFor("yolo off")
	h.waitGone("YOLO")
}

// expectGraceSwallows checks that an answer key typed within approvalGrace
// of the modal appearing is swallowed and leaves the modal up.
func (h *harness) expectGraceSwallows(r rune) {
	h.t.Helper()
	var passed *tcell.EventKey
	var top string
	h.c.onUIThread(func() {
		passed = h.c.onUIKey(tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone))
		top = h.c.pages.top()
	})
	if passed != nil || top != "approval" {
		h.t.Fatalf("%q within the grace: passed on %v, top page %q", r, passed != nil, top)
	}
}
