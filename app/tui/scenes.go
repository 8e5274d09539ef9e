package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// Scenes drive the real controller on a simulation screen through a
// scripted session and hand each finished frame to shot: the README's
// screenshots (cmd/screenshots) and their test. The session is built
// through the store (turns, tool calls, a revert, a D-Mail backtrack) and
// the run in progress is played as the soul's own events, so every pixel
// comes from the views and the controller as a user sees them.

// SceneNames are the scenes Scenes renders, in order.
var SceneNames = []string{"workspace", "approval", "timeline", "diff", "browser"}

// Scenes renders every scene at w×h cells into a temporary database under
// dir and calls shot with the scene's name once its frame is drawn.
func Scenes(ctx context.Context, dir string, w, h int, shot func(name string, s tcell.SimulationScreen) error) error {
	db, err := store.Open(ctx, filepath.Join(dir, "screenshots.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	work := filepath.Join(dir, "parser")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	id, err := seedScenes(ctx, db, work)
	if err != nil {
		return fmt.Errorf("screenshots: seed: %w", err)
	}
	client, err := llm.New(llm.Config{BaseURL: "http://127.0.0.1:9/v1", APIKey: "none", Model: "kimi-k2-turbo", Stream: true})
	if err != nil {
		return err
	}
	screen := tcell.NewSimulationScreen("UTF-8")
	c, err := New(ctx, Options{DB: db, Mode: ModeResume, SessionID: id, WorkDir: work, Client: client, Screen: screen, Home: dir})
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	defer func() {
		c.onUIThread(c.onUIQuit)
		<-done
	}()
	for start := time.Now(); !c.ui.running.Load(); time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			return errors.New("screenshots: the UI did not start")
		}
	}
	c.onUIThread(func() { screen.SetSize(w, h) })
	sc := &sceneRunner{c: c, s: screen, shot: shot}
	sc.wait(func() bool { return c.timeline.Len() > 0 && len(c.sessions.Visible()) > 0 })

	// 1. Mid-run: a step streaming, a Shell call with live output.
	sc.do(func() {
		c.busy, c.runStart = "run", time.Now().Add(-47*time.Second)
		c.input.SetPlaceholder("a run is active · Esc interrupts")
	})
	for _, e := range []soul.Event{
		soul.StatusUpdate{Model: "kimi-k2-turbo", Step: 3, Tokens: 23817, MaxContext: 128000, ContextPercent: 18.6, Generation: 2},
		soul.StepBegin{N: 3, Checkpoint: 6},
		soul.ContentPart{Text: "The lookahead fix is in. Running the parser tests to check the **flaky** case:"},
		soul.ToolCall{ID: "call_run", Name: "Shell", Arguments: `{"command":"go test ./parser/... -run TestLookahead -count=20"}`},
		soul.ToolOutput{ID: "call_run", Text: "=== RUN   TestLookahead\n=== RUN   TestLookahead/nested_generics\n=== RUN   TestLookahead/trailing_comma\n--- PASS: TestLookahead (0.02s)\n    --- PASS: TestLookahead/nested_generics (0.00s)\n    --- PASS: TestLookahead/trailing_comma (0.00s)\n=== RUN   TestLookahead\n"},
	} {
		c.post(e)
	}
	sc.waitText("TestLookahead/trailing_comma")
	if err := sc.snap("workspace"); err != nil {
		return err
	}

	// 2. An approval: an edit with its diff.
	c.post(&soul.ApprovalRequest{ToolCallID: "call_edit", Tool: "StrReplaceFile", Action: "edit file",
		Description: "Edit parser/lookahead.go", Arguments: `{"path":"parser/lookahead.go","old":"if p.peek() == ','","new":"if p.peek() == ',' && p.peekN(2) != ')'"}`,
		Diff: "--- a/parser/lookahead.go\n+++ b/parser/lookahead.go\n@@ -41,7 +41,7 @@ func (p *Parser) args() []Expr {\n \tfor {\n \t\targs = append(args, p.expr())\n-\t\tif p.peek() == ',' {\n+\t\tif p.peek() == ',' && p.peekN(2) != ')' {\n \t\t\tp.next()\n \t\t\tcontinue\n \t\t}\n"})
	sc.waitText("Edit parser/lookahead.go")
	if err := sc.snap("approval"); err != nil {
		return err
	}
	sc.do(func() {
		c.ap.onUIRejectPending()
		c.post(soul.ToolResult{ID: "call_run", Name: "Shell", Output: "ok  \tparser\t0.412s"})
		c.post(evOpDone{op: "run"})
	})
	sc.wait(func() bool { return c.busy == "" })
	sc.do(func() { c.input.SetPlaceholder("Ask anything · / for commands · Alt-Enter for a newline") })

	// 3. The timeline: branches, a checkpoint previewed.
	sc.do(func() {
		c.app.SetFocus(c.timeline)
		c.timeline.SelectCheckpoint(2)
		if it, ok := c.timeline.SelectedItem(); ok {
			c.tt.onUITimelineSelect(it)
		}
	})
	sc.waitText("PREVIEW · before checkpoint 2")
	if err := sc.snap("timeline"); err != nil {
		return err
	}

	// 4. The diff of the backtracked generation against the current view.
	var branch views.GenerationRow
	sc.do(func() {
		for _, g := range c.timeline.Model().Generations {
			if g.Archived && g.Cause == string(store.CauseBacktrack) {
				branch = g
			}
		}
		if branch.Gen == 0 && len(c.timeline.Model().Generations) > 0 {
			branch = c.timeline.Model().Generations[0]
		}
		c.tt.onUIEndPreview()
		c.app.SetFocus(c.input)
		c.tt.onUIGenerationDiff(branch)
	})
	sc.waitText("Diff: generation")
	if err := sc.snap("diff"); err != nil {
		return err
	}
	sc.do(func() { c.pages.pop("gendiff") })

	// 5. The session browser with a full-text search.
	sc.do(c.br.onUIOpen)
	sc.wait(func() bool { return len(c.br.list.Visible()) > 3 })
	sc.do(func() { c.br.list.SetFilter("/lookahead") })
	sc.wait(func() bool { return len(c.br.list.Hits()) > 0 })
	sc.do(func() { c.br.list.Select(1) })
	sc.waitText("«lookahead»")
	return sc.snap("browser")
}

// sceneRunner runs steps on the UI goroutine and waits for frames.
type sceneRunner struct {
	c    *Controller
	s    tcell.SimulationScreen
	shot func(string, tcell.SimulationScreen) error
}

func (r *sceneRunner) do(f func()) { r.c.onUIThread(f) }

// wait polls cond on the UI goroutine (up to 10 s).
func (r *sceneRunner) wait(cond func() bool) {
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(10 * time.Millisecond) {
		ok := false
		r.c.onUIThread(func() { ok = cond() })
		if ok {
			return
		}
	}
}

// waitText waits until the screen shows sub, then for one more frame.
func (r *sceneRunner) waitText(sub string) {
	r.wait(func() bool {
		cells, w, _ := r.s.GetContents()
		var b strings.Builder
		for i, c := range cells {
			if i%w == 0 {
				b.WriteByte('\n')
			}
			if len(c.Runes) > 0 {
				b.WriteString(string(c.Runes))
			}
		}
		return strings.Contains(b.String(), sub)
	})
}

// snap draws a settled frame and hands it to shot.
func (r *sceneRunner) snap(name string) error {
	time.Sleep(2 * FlushInterval) // let batched events land
	var err error
	r.c.onUIThread(func() {
		r.c.app.ForceDraw()
		err = r.shot(name, r.s)
	})
	return err
}

// seedScenes writes the scripted history: a parser-fixing session with a
// revert and a D-Mail backtrack, plus other sessions for the browser.
func seedScenes(ctx context.Context, db *store.DB, work string) (string, error) {
	for i, s := range []struct{ title, dir, msg string }{
		{"migrate config loader to TOML", "/home/dev/rewind", "the config loader should accept toml and yaml"},
		{"flaky CI on arm64", "/home/dev/ci", "the lookahead test times out on arm64 runners"},
		{"write release notes for 0.4", "/home/dev/rewind", "summarise the changes since 0.3"},
		{"port the tokenizer to generics", "/home/dev/lexer", "make Token generic over the position type"},
		{"explain the WAL checkpoint stalls", "/home/dev/db", "why does the WAL grow during long reads"},
		{"kimi-cli session import", "/home/dev/rewind", "import a kimi-cli session directory"},
		{"benchmark fuzzy filter", "/home/dev/rewind", "filter 10k sessions per keystroke"},
	} {
		sess, err := db.CreateSession(ctx, store.NewSession{Title: s.title, WorkDir: s.dir, Model: "kimi-k2-turbo"})
		if err != nil {
			return "", err
		}
		for j := 0; j <= i%3; j++ {
			if err := turn(ctx, db, sess.ID, s.msg, "Done — see the diff above.", 4000*(j+1)); err != nil {
				return "", err
			}
		}
	}
	sess, err := db.CreateSession(ctx, store.NewSession{Title: "fix the flaky parser lookahead test", WorkDir: work, Model: "kimi-k2-turbo"})
	if err != nil {
		return "", err
	}
	id := sess.ID
	steps := []struct{ user, answer string }{
		{"TestLookahead fails about one run in ten — find out why", "It depends on map iteration order in `peekN`: the lookahead buffer is rebuilt from a map."},
		{"make the lookahead buffer deterministic", "Replaced the map with a ring buffer; `peekN` is now O(1) and ordered."},
		{"run the parser tests 20 times", "All 20 runs pass."},
		{"now handle trailing commas in argument lists", "Trailing commas are accepted; added two test cases."},
	}
	for i, s := range steps {
		if err := turn(ctx, db, id, s.user, s.answer, 6000+i*4200); err != nil {
			return "", err
		}
	}
	// Each turn takes two checkpoints (before the prompt and before the
	// answering step): revert to the trailing-commas turn (checkpoint 6)
	// and continue differently.
	if _, err := db.RevertTo(ctx, id, 6, store.CauseRevert, ""); err != nil {
		return "", err
	}
	if err := turn(ctx, db, id, "handle trailing commas, but only in call arguments", "Done: trailing commas are accepted in calls and rejected in type lists.", 17200); err != nil {
		return "", err
	}
	// A model-initiated backtrack (D-Mail) to checkpoint 8.
	if err := turn(ctx, db, id, "now make the error messages point at the comma", "Tried three formats for the caret; none matched the test fixtures.", 21800); err != nil {
		return "", err
	}
	if _, err := db.RevertTo(ctx, id, 8, store.CauseBacktrack, "the fixtures expect column numbers from 1, not 0"); err != nil {
		return "", err
	}
	if _, err := db.Checkpoint(ctx, id, false); err != nil {
		return "", err
	}
	if _, err := db.AppendMessage(ctx, id, message.DMail("the fixtures expect column numbers from 1, not 0")); err != nil {
		return "", err
	}
	call := message.NewText("assistant", "Columns are 1-based in the fixtures; fixing the caret position.")
	call.ToolCalls = []message.ToolCall{{ID: "call_fix", Type: "function", Name: "StrReplaceFile", Args: `{"path":"parser/errors.go","old":"col := pos.Offset","new":"col := pos.Offset + 1"}`}}
	if _, err := db.CommitStep(ctx, id, store.Step{Assistant: call, ToolResults: []message.Message{{Role: "tool", ToolCallID: "call_fix", Content: message.TextContent("Edited parser/errors.go (1 replacement)")}}, TokenCount: 23100}); err != nil {
		return "", err
	}
	return id, nil
}

// turn appends checkpoint, user message and a one-step answer with a Grep
// tool call in between.
func turn(ctx context.Context, db *store.DB, id, user, answer string, tokens int) error {
	if _, err := db.Checkpoint(ctx, id, false); err != nil {
		return err
	}
	if _, err := db.AppendMessage(ctx, id, message.NewText("user", user)); err != nil {
		return err
	}
	call := message.NewText("assistant", "")
	callID := fmt.Sprintf("call_%d", tokens)
	call.ToolCalls = []message.ToolCall{{ID: callID, Type: "function", Name: "Grep", Args: `{"pattern":"peekN","path":"parser"}`}}
	if _, err := db.CommitStep(ctx, id, store.Step{Assistant: call, ToolResults: []message.Message{{Role: "tool", ToolCallID: callID, Content: message.TextContent("parser/lookahead.go:12: func (p *Parser) peekN(n int) rune {")}}, TokenCount: tokens - 800}); err != nil {
		return err
	}
	if _, err := db.Checkpoint(ctx, id, false); err != nil {
		return err
	}
	_, err := db.CommitStep(ctx, id, store.Step{Assistant: message.NewText("assistant", answer), TokenCount: tokens})
	return err
}
