package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/app/tui"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/soul/shellenv"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// The scenes open the real workspace (tui.New, as `rewind --session`
// does) on a simulated terminal, over a database seeded through the store
// and a scripted model served in-process on the real HTTP path, and play
// them as a user would: by keystrokes, waiting for what the screen shows.

// sceneNames are the scenes playScenes renders, one PNG each.
var sceneNames = []string{"workspace", "approval", "timeline", "diff", "browser"}

// waitLimit bounds every wait for the screen. Waits return as soon as a
// frame shows what they wait for; the limit only turns a scene that went
// wrong into an error.
const waitLimit = 30 * time.Second

// approvalGrace is how long the workspace ignores answers after the
// approval modal appears (app/tui: keys typed for the input must not answer
// it); a user waits as long before answering.
const approvalGrace = 300 * time.Millisecond

// prompt is what the scenes type; the scripted model answers it with an
// edit, then runs the tests.
const prompt = "a trailing comma right before the closing paren still breaks args(): fix it and run the tests"

// playScenes seeds a database under dir, opens the workspace on it at w×h
// cells and hands each scene's frame to shot.
func playScenes(ctx context.Context, dir string, w, h int, shot func(name string, f frame) error) (err error) {
	db, err := store.Open(ctx, filepath.Join(dir, "screenshots.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	work, bin := filepath.Join(dir, "parser"), filepath.Join(dir, "bin")
	if err := seedFiles(work, bin); err != nil {
		return fmt.Errorf("seed the work dir: %w", err)
	}
	id, err := seedScenes(ctx, db, work)
	if err != nil {
		return fmt.Errorf("seed the database: %w", err)
	}
	srv := llmtest.NewServer(nil)
	defer srv.Close()
	srv.Handle(reply)
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "none", Model: "kimi-k2-turbo", Stream: true})
	if err != nil {
		return err
	}
	// The Shell call finds bin's go first: the scripted test run.
	shell := &tools.Shell{Environ: shellenv.Environ(shellenv.Policy{Set: map[string]string{"PATH": bin + string(os.PathListSeparator) + os.Getenv("PATH")}})}
	set := tools.NewSet(append([]tools.Tool{shell}, tools.Default().Without(shell.Name()).All()...)...)
	scr := newScreen(w, h)
	c, err := tui.New(ctx, tui.Options{DB: db, Mode: tui.ModeResume, SessionID: id, WorkDir: work, Client: client,
		Soul: soul.Config{MaxContextSize: 128000}, Tools: set, Home: dir, Notify: "off", Screen: scr})
	if err != nil {
		return err
	}
	runCtx, quit := context.WithCancel(ctx)
	p := &player{s: scr, shot: shot, ended: make(chan struct{})}
	go func() {
		p.runErr = c.Run(runCtx)
		close(p.ended)
	}()
	defer func() {
		quit()
		<-p.ended
		if err == nil && p.runErr != nil {
			err = p.runErr
		}
	}()
	return p.play()
}

// reply is the scripted model: the prompt gets an edit, the edit's result
// a Shell call running the tests, anything else a short answer. It reports
// the usage of a conversation this long would have with a real model.
func reply(req llmtest.Request) llmtest.Reply {
	var last message.Message // skipping the checkpoints the soul writes after the prompt
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if k, _ := message.MarkerOf(req.Messages[i]); k == message.NoMarker {
			last = req.Messages[i]
			break
		}
	}
	var r llmtest.Reply
	switch {
	case last.Role == "user" && strings.Contains(last.Content.PlainText(), prompt):
		r = llmtest.Calls(llmtest.Call("call_edit", "StrReplaceFile", map[string]string{"path": "parser/lookahead.go",
			"old": "if p.peek() == ','", "new": "if p.peek() == ',' && p.peekN(2) != ')'"}))
		r.Content = "`args()` takes the comma and then expects another argument. Checking one token further for `)`:"
	case last.Role == "tool" && last.ToolCallID == "call_edit":
		r = llmtest.Calls(llmtest.Call("call_tests", "Shell", map[string]string{"command": "go test ./parser/... -run TestLookahead -count=20"}))
		r.Content = "The lookahead fix is in. Running the parser tests to check the **flaky** case:"
	default:
		r = llmtest.Text("Done.")
	}
	return r.WithUsage(23700, 117)
}

// player presses keys and waits for frames.
type player struct {
	s      *screen
	shot   func(string, frame) error
	ended  chan struct{} // closed when the workspace's Run returned
	runErr error
}

// play runs the scenes. The workspace scene and the approval come last:
// their runs leave new turns that would change the timeline.
func (p *player) play() error {
	steps := []func() error{
		// The resumed session: its turns in the timeline, the other sessions.
		func() error { _, err := p.waitFor("D-Mail: the fixtures", "benchmark fuzzy filter"); return err },

		// The timeline (Tab three times from the input: Shift-Tab there
		// is plan mode), its first turn (Home), the next one (j) previewed.
		func() error {
			p.key(tcell.KeyTab)
			p.key(tcell.KeyTab)
			p.key(tcell.KeyTab)
			p.key(tcell.KeyHome)
			p.typeText("j")
			return p.snap("timeline", "PREVIEW · before checkpoint 2")
		},

		// Two rows down, the first generation, archived by the revert: d
		// diffs it with the current view; Esc closes the diff, G goes back
		// to the current position and Esc leaves the preview.
		func() error {
			p.typeText("jj")
			if _, err := p.waitFor("ARCHIVED generation 0"); err != nil {
				return err
			}
			p.typeText("d")
			if err := p.snap("diff", "Diff: generation 0", "shared messages"); err != nil {
				return err
			}
			p.key(tcell.KeyEsc)
			p.typeText("G")
			if _, err := p.waitFor("PREVIEW · before checkpoint 8"); err != nil {
				return err
			}
			p.key(tcell.KeyEsc)
			return p.waitGone("PREVIEW")
		},

		// The session browser (Ctrl-O), a full-text search; the first hit's
		// session previewed.
		func() error {
			p.ctrl(tcell.KeyCtrlO)
			if _, err := p.waitFor("F1 help", "benchmark fuzzy filter"); err != nil {
				return err
			}
			p.typeText("/lookahead")
			if err := p.snap("browser", "23 hits", "lookahead", "Grep"); err != nil {
				return err
			}
			p.key(tcell.KeyEsc)
			p.key(tcell.KeyEsc)
			return p.waitGone("F1 help")
		},

		// A run: the model edits a file; the approval shows its diff.
		// Approved (y), the model runs the tests; the Shell call, approved
		// too, prints its first lines and keeps running. Esc interrupts it.
		func() error {
			p.typeText(prompt)
			p.key(tcell.KeyEnter)
			if err := p.snap("approval", "Approve StrReplaceFile", "+++ b/parser/lookahead.go", "[y] approve"); err != nil {
				return err
			}
			if err := p.answer("Approve StrReplaceFile", 'y'); err != nil {
				return err
			}
			if err := p.answer("Approve Shell", 'y'); err != nil {
				return err
			}
			if err := p.snap("workspace", "--- PASS: TestLookahead (0.02s)", "TestLookahead/trailing_comma"); err != nil {
				return err
			}
			p.key(tcell.KeyEsc)
			_, err := p.waitFor("Interrupted")
			return err
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

func (p *player) key(k tcell.Key) { p.s.InjectKey(k, 0, tcell.ModNone) }

func (p *player) ctrl(k tcell.Key) { p.s.InjectKey(k, 0, tcell.ModCtrl) }

func (p *player) typeText(s string) {
	for _, r := range s {
		p.s.InjectKey(tcell.KeyRune, r, tcell.ModNone)
	}
}

// waitFor waits for a frame that shows every one of subs and returns it.
func (p *player) waitFor(subs ...string) (frame, error) {
	return p.waitUntil(fmt.Sprintf("show %q", subs), func(text string) bool {
		for _, s := range subs {
			if !strings.Contains(text, s) {
				return false
			}
		}
		return true
	})
}

// waitGone waits for a frame that no longer shows sub.
func (p *player) waitGone(sub string) error {
	_, err := p.waitUntil(fmt.Sprintf("stop showing %q", sub), func(text string) bool { return !strings.Contains(text, sub) })
	return err
}

// waitUntil waits for a frame whose text satisfies ok, frame by frame.
func (p *player) waitUntil(what string, ok func(text string) bool) (frame, error) {
	timeout := time.NewTimer(waitLimit)
	defer timeout.Stop()
	for {
		f, next := p.s.frame()
		text := f.text()
		if f.w > 0 && ok(text) {
			return f, nil
		}
		select {
		case <-next:
		case <-p.ended:
			return frame{}, fmt.Errorf("the workspace ended before the screen would %s: %v", what, p.runErr)
		case <-timeout.C:
			return frame{}, fmt.Errorf("the screen did not %s within %v; it shows:\n%s", what, waitLimit, text)
		}
	}
}

// snap waits for a frame showing subs and hands it to shot as scene name.
func (p *player) snap(name string, subs ...string) error {
	f, err := p.waitFor(subs...)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return p.shot(name, f)
}

// answer waits for the approval modal titled title, waits out the grace in
// which it ignores keys, answers with r and waits for it to close.
func (p *player) answer(title string, r rune) error {
	if _, err := p.waitFor(title, "[y] approve"); err != nil {
		return err
	}
	time.Sleep(approvalGrace)
	p.typeText(string(r))
	if err := p.waitGone(title); err != nil {
		return errors.Join(err, fmt.Errorf("%q did not answer the approval (is the workspace's grace longer than %v?)", r, approvalGrace))
	}
	return nil
}
