package views

import (
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/themes"
)

// SetWelcome sanitises a copy of the keys: the caller's slice (the
// workspace passes one shared by every controller) is never written, so
// two workspaces setting it at once do not race.
func TestSetWelcomeLeavesTheCallersKeys(t *testing.T) {
	keys := []KeyHint{{Key: "\x1b[31mEnter", Description: "send"}}
	c := NewConversation()
	c.SetWelcome(Welcome{Keys: keys})
	if keys[0].Key != "\x1b[31mEnter" {
		t.Errorf("the caller's keys were rewritten: %q", keys[0].Key)
	}
	if got := c.Welcome().Keys[0].Key; got == keys[0].Key {
		t.Errorf("the shown key is not sanitised: %q", got)
	}
}

// TestWelcomeApprovalsWrapAtWords: a field too long for the pane wraps at
// words under its value (at 80 columns the conversation pane lost "(/yolo
// to stop asking)").
func TestWelcomeApprovalsWrapAtWords(t *testing.T) {
	t.Parallel()
	c := NewConversation()
	c.SetTheme(dark)
	c.SetWelcome(Welcome{WorkDir: "~/src/rewind", Model: "fake-model", Approval: "ask before edits and shell commands (/yolo to stop asking)"})
	s := draw(t, c, 46, 20)
	_, y := mustFind(t, s, "approvals ask before edits and shell")
	x, y1 := mustFind(t, s, "commands (/yolo to stop asking)")
	if y1 != y+1 {
		t.Errorf("the field's rows %d, %d, want one after the other", y, y1)
	}
	if vx, _ := mustFind(t, s, "ask before"); x != vx {
		t.Errorf("the wrapped row starts at column %d, want %d (under the value)", x, vx)
	}
}

// TestWelcomeFollowsItsChanges: the empty conversation, laid out once for
// its width, shows a new welcome, a new theme and a new width at the next
// draw, as a conversation given them from the start draws them.
func TestWelcomeFollowsItsChanges(t *testing.T) {
	t.Parallel()
	long := "ask before edits and shell commands (/yolo to stop asking)"
	other := dark
	other.Accent = tcell.ColorFuchsia
	c := NewConversation()
	c.SetTheme(dark)
	c.SetWelcome(Welcome{WorkDir: "~/src/rewind", Model: "fake-model", Approval: long})
	s := draw(t, c, 60, 20)
	same := func(what string, th themes.Theme, wl Welcome, w int) {
		t.Helper()
		fresh := NewConversation()
		fresh.SetTheme(th)
		fresh.SetWelcome(wl)
		want := draw(t, fresh, w, 20)
		got, _, _ := s.GetContents()
		cells, _, _ := want.GetContents()
		for i := range cells {
			if string(got[i].Runes) != string(cells[i].Runes) || got[i].Style != cells[i].Style {
				t.Fatalf("%s: the conversation draws\n%s\nwant\n%s", what, screenText(s), screenText(want))
			}
		}
	}
	same("at first", dark, Welcome{WorkDir: "~/src/rewind", Model: "fake-model", Approval: long}, 60)
	c.SetWelcome(Welcome{WorkDir: "~/src/rewind", Model: "other-model", Approval: long})
	redraw(s, c)
	same("a new welcome", dark, Welcome{WorkDir: "~/src/rewind", Model: "other-model", Approval: long}, 60)
	c.SetTheme(other)
	redraw(s, c)
	same("a new theme", other, Welcome{WorkDir: "~/src/rewind", Model: "other-model", Approval: long}, 60)
	s.SetSize(30, 20)
	c.SetRect(0, 0, 30, 20)
	redraw(s, c)
	same("a new width", other, Welcome{WorkDir: "~/src/rewind", Model: "other-model", Approval: long}, 30)
}
