package views

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

func TestStatusBar(t *testing.T) {
	t.Parallel()
	for _, sz := range sizes {
		t.Run(fmt.Sprint(sz.w), func(t *testing.T) {
			b := NewStatusBar()
			b.SetTheme(dark)
			b.SetStatus(Status{Model: "kimi-k2", SessionTitle: "fix \x1b[2Jparser", Step: 3, Elapsed: 65 * time.Second,
				Tokens: 12345, MaxContext: 128000, ContextPercent: 90, RunningTool: "Shell", Demo: true, Mode: "WATCH"})
			b.SetMessage("model error: rate limited", true)
			s := draw(t, b, sz.w, 1)
			wantBg(t, s, "DEMO", dark.Demo)
			mustFind(t, s, "WATCH")
			mustFind(t, s, "kimi-k2")
			wantFg(t, s, "rate limited", dark.Error)
			wantFg(t, s, "90%", dark.Error)
			mustFind(t, s, "12.3k tok") // the token count outlives the context bar
			if sz.w == 200 {
				mustFind(t, s, "step 3")
				mustFind(t, s, "fix parser")
				mustFind(t, s, "12.3k tok")
				mustFind(t, s, "1m05s")
				mustFind(t, s, "⚙ Shell")
				mustFind(t, s, "90%")
			}
			if bg(s, sz.w-1, 0) != dark.StatusBarBg {
				t.Error("status bar background")
			}
			assertNoControls(t, s)
		})
	}
	if ContextBar(50, 8) != "████░░░░" || FormatTokens(1500000) != "1.5M" || FormatTokens(999) != "999" {
		t.Fatal("formatting helpers")
	}
}

// In a run's first second the elapsed time (shown in whole seconds) is
// left out; it was an empty segment: "step 1 ·  · 23.1k tok".
func TestStatusBarLeavesOutAnElapsedTimeUnderASecond(t *testing.T) {
	t.Parallel()
	b := NewStatusBar()
	b.SetTheme(dark)
	b.SetStatus(Status{Model: "kimi-k2", Step: 1, Elapsed: 400 * time.Millisecond, Tokens: 23100, MaxContext: 128000})
	s := draw(t, b, 200, 1)
	mustFind(t, s, "step 1 · 23.1k tok")
}

// With no model to show, the field after the mode label starts without a
// separator: "READ-ONLY · no model  parser work", not "…  · parser work".
func TestStatusBarNoSeparatorAfterTheLabels(t *testing.T) {
	t.Parallel()
	b := NewStatusBar()
	b.SetTheme(dark)
	b.SetStatus(Status{Mode: "READ-ONLY · no model", SessionTitle: "parser work", Tokens: 900, MaxContext: 128000})
	s := draw(t, b, 120, 1)
	mustFind(t, s, "READ-ONLY · no model  parser work · 900 tok")
	b.SetStatus(Status{Mode: "WATCH", Model: "kimi-k2", SessionTitle: "parser work"})
	mustFind(t, draw(t, b, 120, 1), "WATCH  kimi-k2 · parser work")
}

func TestToolOutput(t *testing.T) {
	t.Parallel()
	o := NewToolOutput()
	o.SetTheme(dark)
	o.SetTool(ToolCallInfo{ID: "c1", Name: "Shell", Args: "make test", Status: ToolRunning})
	o.AppendOutput("line 1\nline 2\n")
	o.AppendOutput("\x1b[32mgreen\x1b[0m part")
	o.AppendOutput("ial\nprogress 10%\rprogress 99%\n\x1b]0;pwned")
	o.AppendOutput("\x07tail")
	lines, _ := o.Lines()
	if got := strings.Join(lines, "|"); got != "line 1|line 2|green partial|progress 99%|tail" {
		t.Fatalf("lines = %q", got)
	}
	s := draw(t, o, 80, 24)
	mustFind(t, s, "Shell make test")
	wantFg(t, s, "…", dark.ToolRunning)
	mustFind(t, s, "green partial")
	assertNoControls(t, s)

	// cap memory, tail follow
	o.SetMaxLines(100)
	o.AppendOutput("\n")
	for i := 0; i < 1000; i++ {
		o.AppendOutput(fmt.Sprintf("out %d\n", i))
	}
	lines, dropped := o.Lines()
	if len(lines) != 100 || dropped != 905 {
		t.Fatalf("kept %d dropped %d", len(lines), dropped)
	}
	o.SetStatus(ToolFailed, 3*time.Second)
	s = draw(t, o, 80, 24)
	mustFind(t, s, "out 999")
	wantFg(t, s, "✗", dark.ToolError)
	send(o, key(tcell.KeyRune, 'g', 0))
	redraw(s, o)
	mustFind(t, s, "905 earlier lines dropped")
	send(o, key(tcell.KeyRune, 'G', 0))
	redraw(s, o)
	mustFind(t, s, "out 999")

	o.SetTool(ToolCallInfo{ID: "c2", Name: "ReadFile"})
	if l, d := o.Lines(); len(l) != 0 || d != 0 {
		t.Fatal("new tool call did not clear output")
	}
}

func TestInputKeys(t *testing.T) {
	t.Parallel()
	in := NewInput()
	in.SetTheme(dark)
	var sent []string
	in.SetOnSubmit(func(s string) { sent = append(sent, s) })
	in.SetCommands([]SlashCommand{{Name: "/compact", Description: "summarise the context"}, {Name: "/clear", Description: "start over"},
		{Name: "/revert", Args: "N", Description: "revert to checkpoint N"}, {Name: "/restore", Args: "G", Description: "restore generation G"}})

	send(in, runes("hello")...)
	send(in, key(tcell.KeyEnter, 0, tcell.ModAlt)) // Alt-Enter
	send(in, runes("world")...)
	send(in, key(tcell.KeyEnter, 0, tcell.ModShift)) // Shift-Enter (CSI-u terminals)
	send(in, key(tcell.KeyCtrlJ, 0, tcell.ModCtrl))  // Ctrl-J
	send(in, runes("!")...)
	if in.Text() != "hello\nworld\n\n!" {
		t.Fatalf("text %q", in.Text())
	}
	send(in, key(tcell.KeyEnter, 0, 0))
	if len(sent) != 1 || sent[0] != "hello\nworld\n\n!" || in.Text() != "" {
		t.Fatalf("submit: %q, text %q", sent, in.Text())
	}
	send(in, key(tcell.KeyEnter, 0, 0)) // empty: nothing sent
	send(in, runes("second")...)
	send(in, key(tcell.KeyEnter, 0, 0))
	send(in, runes("draft")...)
	send(in, key(tcell.KeyUp, 0, 0))
	if in.Text() != "second" {
		t.Fatalf("history up: %q", in.Text())
	}
	send(in, key(tcell.KeyUp, 0, 0))
	if in.Text() != "hello\nworld\n\n!" {
		t.Fatalf("history up 2: %q", in.Text())
	}
	send(in, key(tcell.KeyUp, 0, 0)) // moves within the multi-line entry
	send(in, key(tcell.KeyDown, 0, 0), key(tcell.KeyDown, 0, 0))
	if in.Text() != "second" {
		t.Fatalf("history down: %q", in.Text())
	}
	send(in, key(tcell.KeyDown, 0, 0))
	if in.Text() != "draft" {
		t.Fatalf("draft restored: %q", in.Text())
	}
	send(in, key(tcell.KeyCtrlU, 0, tcell.ModCtrl))
	// completion
	send(in, runes("/c")...)
	if !in.WantsTab() || len(in.Matches()) != 2 {
		t.Fatalf("matches %v", in.Matches())
	}
	s := draw(t, in, 80, in.Height(80))
	mustFind(t, s, "/compact")
	mustFind(t, s, "summarise the context")
	mustFind(t, s, "start over")
	send(in, runes("o")...)
	send(in, key(tcell.KeyTab, 0, 0))
	if in.Text() != "/compact" {
		t.Fatalf("completed %q", in.Text())
	}
	in.SetText("/rev")
	send(in, key(tcell.KeyTab, 0, 0))
	if in.Text() != "/revert " || in.WantsTab() {
		t.Fatalf("completed %q", in.Text())
	}
	in.SetText("/re")
	send(in, key(tcell.KeyTab, 0, 0))
	if in.Text() != "/re" || len(in.Matches()) != 2 {
		t.Fatalf("common prefix: %q", in.Text())
	}
	// backspace joins lines, paste keeps newlines but strips escapes
	in.SetText("ab\ncd")
	send(in, key(tcell.KeyHome, 0, 0), key(tcell.KeyBackspace, 0, 0))
	if in.Text() != "abcd" {
		t.Fatalf("join: %q", in.Text())
	}
	in.SetText("")
	in.PasteHandler()("x\x1b[2Jy\nz", func(tview.Primitive) {})
	if in.Text() != "xy\nz" {
		t.Fatalf("paste: %q", in.Text())
	}
}

func TestInputOnApplication(t *testing.T) {
	t.Parallel()
	// The real path: tcell events through a tview.Application on a
	// simulation screen.
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	s.SetSize(80, 24)
	app := tview.NewApplication().SetScreen(s)
	in := NewInput()
	got := make(chan string, 1)
	in.SetOnSubmit(func(text string) { got <- text })
	app.SetRoot(in, true).SetFocus(in)
	done := make(chan error, 1)
	go func() { done <- app.Run() }()
	for _, r := range "hi" {
		s.InjectKey(tcell.KeyRune, r, tcell.ModNone)
	}
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModAlt)
	s.InjectKey(tcell.KeyRune, 'x', tcell.ModNone)
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	select {
	case text := <-got:
		if text != "hi\nx" {
			t.Errorf("submitted %q", text)
		}
	case <-time.After(5 * time.Second):
		t.Error("no submit")
	}
	app.Stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// At 80 columns a watcher's bar keeps the session title (shortened) and
// the token count ahead of a long info message, which takes what is left;
// it showed only "WATCH · live · pid 20244   watching live…".
func TestStatusBarPutsTitleAndTokensBeforeALongMessage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		demo bool
		tool string
	}{{false, ""}, {true, ""}, {true, "WriteFile"}} {
		b := NewStatusBar()
		b.SetTheme(dark)
		b.SetStatus(Status{Model: "rewind-demo", SessionTitle: "demo: a scripted tour of rewind", Step: 3, Elapsed: 4 * time.Second,
			Tokens: 1000, MaxContext: 32000, ContextPercent: 3, Demo: c.demo, Mode: "WATCH · live · pid 20244", RunningTool: c.tool})
		b.SetMessage("watching live: the writer is pid 20244 (idle)", false)
		s := draw(t, b, 80, 1)
		mustFind(t, s, "WATCH · live · pid 20244")
		mustFind(t, s, "1.0k tok")
		mustFind(t, s, "· demo: a")
		if c.tool == "" {
			mustFind(t, s, "watching")
		}
	}
}

// A session larger than the model's context shows how many times over it
// is, not a share in the tens of thousands ("ctx ████████ 75031%").
func TestStatusBarContextOverTheModelsContext(t *testing.T) {
	t.Parallel()
	b := NewStatusBar()
	b.SetTheme(dark)
	b.SetStatus(Status{Model: "rewind-demo", Tokens: 24_010_000, MaxContext: 32000, ContextPercent: 75031})
	s := draw(t, b, 160, 1)
	mustFind(t, s, "ctx ████████ over ×750")
	if strings.Contains(screenText(s), "75031") {
		t.Errorf("the share is shown raw: %q", screenText(s))
	}
	b.SetStatus(Status{Model: "m", Tokens: 150000, MaxContext: 128000, ContextPercent: 117.2})
	mustFind(t, draw(t, b, 160, 1), "ctx ████████ over ×1.2")
	b.SetStatus(Status{Model: "m", Tokens: 64000, MaxContext: 128000, ContextPercent: 50})
	mustFind(t, draw(t, b, 160, 1), "ctx ████░░░░ 50%")
}
