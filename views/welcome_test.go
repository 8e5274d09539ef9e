package views

import "testing"

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
