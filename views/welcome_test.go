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
