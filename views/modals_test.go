package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

const sampleDiff = `--- a/main.go
+++ b/main.go
@@ -1,3 +1,3 @@
 package main
-func old() {}
+func new() {}
`

func TestApprovalModal(t *testing.T) {
	t.Parallel()
	for _, sz := range sizes {
		t.Run(fmt.Sprint(sz.w), func(t *testing.T) {
			m := NewApprovalModal()
			m.SetTheme(dark)
			m.SetRequest(ApprovalRequest{Tool: "StrReplaceFile", Action: "edit file", Description: "main.go", Diff: sampleDiff})
			s := draw(t, m, sz.w, sz.h)
			mustFind(t, s, "Approve StrReplaceFile — edit file")
			wantFg(t, s, "+ func new() {}", dark.DiffAdd)
			wantFg(t, s, "- func old() {}", dark.DiffRemove)
			wantFg(t, s, "@@ -1,3 +1,3 @@", dark.DiffHeader)
			mustFind(t, s, "[y] approve")
			mustFind(t, s, "[a] approve for session")
		})
	}
	type dec struct {
		d ApprovalDecision
		f string
	}
	var got []dec
	m := NewApprovalModal()
	m.SetOnDecision(func(d ApprovalDecision, f string) { got = append(got, dec{d, f}) })
	m.SetRequest(ApprovalRequest{Tool: "Shell", Command: "rm -rf build\x1b]0;x\x07"})
	s := draw(t, m, 80, 24)
	mustFind(t, s, "$ rm -rf build")
	assertNoControls(t, s)
	send(m, key(tcell.KeyRune, 'y', 0))
	send(m, key(tcell.KeyEnter, 0, 0))
	send(m, key(tcell.KeyRune, 'a', 0))
	send(m, key(tcell.KeyRune, 'n', 0))
	send(m, key(tcell.KeyRune, 'r', 0))
	send(m, key(tcell.KeyRune, 'f', 0))
	send(m, runes("use make")...)
	redraw(s, m)
	mustFind(t, s, "feedback: use make")
	send(m, key(tcell.KeyEnter, 0, 0))
	want := []dec{{ApproveOnce, ""}, {ApproveOnce, ""}, {ApproveForSession, ""}, {Reject, ""}, {Reject, ""}, {Reject, "use make"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("decisions %v, want %v", got, want)
	}
	// Esc in feedback mode goes back without deciding
	m.SetRequest(ApprovalRequest{Tool: "WriteFile", Arguments: `{"path":"a"}`})
	send(m, key(tcell.KeyRune, 'f', 0), key(tcell.KeyRune, 'x', 0), key(tcell.KeyEsc, 0, 0))
	if len(got) != len(want) {
		t.Fatal("Esc in feedback mode decided")
	}
	redraw(s, m)
	mustFind(t, s, `{"path":"a"}`)
}

func TestConfirmAndPrompt(t *testing.T) {
	t.Parallel()
	d := NewConfirmDialog()
	d.SetTheme(dark)
	chosen := -2
	d.Show("Revert", "Revert to checkpoint 3? 12 messages will be archived (not deleted).",
		[]Choice{{Label: "conversation only", Key: 'c'}, {Label: "conversation + files", Key: 'b', Dangerous: true}, {Label: "files only", Key: 'f'}, {Label: "cancel", Key: 'q'}},
		0, func(i int) { chosen = i })
	for _, sz := range sizes {
		s := draw(t, d, sz.w, sz.h)
		mustFind(t, s, "Revert to checkpoint 3?")
		wantBg(t, s, "▶ [c] conversation only", dark.SelectionBg)
		wantFg(t, s, "[b] conversation + files", dark.Error)
	}
	send(d, key(tcell.KeyRight, 0, 0), key(tcell.KeyRight, 0, 0), key(tcell.KeyEnter, 0, 0))
	if chosen != 2 {
		t.Fatalf("chosen %d", chosen)
	}
	send(d, key(tcell.KeyRune, 'b', 0))
	if chosen != 1 {
		t.Fatalf("hotkey chose %d", chosen)
	}
	send(d, key(tcell.KeyEsc, 0, 0))
	if chosen != -1 {
		t.Fatalf("Esc chose %d", chosen)
	}

	p := NewPromptDialog()
	p.SetTheme(dark)
	var text string
	var ok bool
	p.Show("Rename session", "New title:", "old", func(s string, k bool) { text, ok = s, k })
	s := draw(t, p, 80, 24)
	mustFind(t, s, "Rename session")
	mustFind(t, s, "New title:")
	send(p, key(tcell.KeyBackspace, 0, 0), key(tcell.KeyBackspace, 0, 0), key(tcell.KeyBackspace, 0, 0))
	send(p, runes("new name")...)
	send(p, key(tcell.KeyEnter, 0, 0))
	if text != "new name" || !ok {
		t.Fatalf("prompt gave %q %v", text, ok)
	}
	send(p, key(tcell.KeyEsc, 0, 0))
	if ok {
		t.Fatal("Esc confirmed")
	}
}

func TestHelpOverlayListsBindings(t *testing.T) {
	t.Parallel()
	c := NewConversation()
	in := NewInput()
	tl := NewTimeline()
	h := NewHelpOverlay()
	h.SetTheme(dark)
	cmds := []SlashCommand{{Name: "/compact", Description: "summarise the context"}, {Name: "/revert", Args: "N", Description: "revert to checkpoint N"}}
	h.SetContent([]HelpSection{{"Conversation", c.Bindings()}, {"Input", in.Bindings()}, {"Timeline", tl.Bindings()}}, cmds)
	closed := false
	h.SetOnClose(func() { closed = true })
	s := draw(t, h, 200, 60)
	for _, want := range []string{"Conversation", "j/↓", "next item", "fold / unfold reasoning, a tool call", "Alt+Enter", "new line",
		"Slash commands", "/revert N", "revert to checkpoint N", "Timeline"} {
		mustFind(t, s, want)
	}
	// every visible binding of every section is listed
	text := screenText(s)
	for _, b := range append(Keymap(c.Bindings()).Visible(), Keymap(in.Bindings()).Visible()...) {
		if !strings.Contains(text, b.Description) {
			t.Errorf("help lacks %q", b.Description)
		}
	}
	// hidden bindings are not listed
	if strings.Contains(text, "cursor left") {
		t.Error("invisible binding listed")
	}
	// dangerous bindings are in the error colour
	wantFg(t, s, "restore this generation", dark.Error)
	s = draw(t, h, 80, 24)
	mustFind(t, s, "Help")
	mustFind(t, s, "↓ more")
	for i := 0; i < 100; i++ {
		send(h, key(tcell.KeyRune, 'j', 0))
	}
	redraw(s, h)
	mustFind(t, s, "/revert N")
	if _, _, ok := find(s, "↓ more"); ok {
		t.Error("more marker at the end")
	}
	send(h, key(tcell.KeyRune, '?', 0))
	if !closed {
		t.Fatal("? did not close")
	}
}

func TestDiffView(t *testing.T) {
	t.Parallel()
	d := NewDiffView()
	d.SetTheme(dark)
	d.SetDiff("generation 2 → current", []DiffLine{
		{DiffHeader, "checkpoint 3"},
		{DiffSame, "user: fix it"},
		{DiffRemove, "assistant: old answer\nsecond line"},
		{DiffAdd, "assistant: new answer"},
	})
	for _, sz := range sizes {
		s := draw(t, d, sz.w, sz.h)
		mustFind(t, s, "generation 2 → current")
		wantFg(t, s, "+1", dark.DiffAdd)
		wantFg(t, s, "+ assistant: new answer", dark.DiffAdd)
		wantFg(t, s, "- second line", dark.DiffRemove)
		mustFind(t, s, "  user: fix it")
	}
	lines := ParseUnifiedDiff(sampleDiff)
	if len(lines) != 6 || lines[4].Op != DiffRemove || lines[5].Op != DiffAdd || lines[3].Op != DiffSame {
		t.Fatalf("parsed %+v", lines)
	}
}

// A confirm dialog that takes no choice yet (its first 300 ms) says so: a
// key typed then was dropped without a sign.
func TestConfirmDialogShowsItIsArming(t *testing.T) {
	d := NewConfirmDialog()
	d.Show("Revert to checkpoint 1?", "Later messages are archived.", []Choice{{Label: "Conversation only", Key: 'c'}, {Label: "Cancel", Key: 'n'}}, 0, nil)
	d.SetArmed(false)
	s := draw(t, d, 80, 24)
	mustFind(t, s, "arming: keys count in a moment")
	d.SetArmed(true)
	s = draw(t, d, 80, 24)
	if _, _, ok := find(s, "arming"); ok {
		t.Fatalf("an armed dialog still says it is arming:\n%s", screenText(s))
	}
	mustFind(t, s, "[c] Conversation only")
}
