package tui

import (
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// y copies the selected message and Y its code through the terminal's
// clipboard (OSC 52, which tcell writes for the screen); /copy copies the
// last answer; /mouse gives the mouse to the terminal and takes it back.
func TestCopyToTheClipboard(t *testing.T) {
	t.Parallel()
	answer := "Use this:\n\n```go\nfmt.Println(\"hi\")\n```\n\nor this:\n\n```sh\necho hi\n```\n"
	h := newHarness(t, hopts{w: 120, h: 40}, llmtest.Text(answer))
	h.submit("show me")
	h.waitUntil("the run to end", h.idle)
	clip := func() string { return string(h.screen.GetClipboardData()) } // waitUntil runs it on the UI goroutine
	h.key(tcell.KeyTab)
	h.waitUntil("conversation focus", func() bool { return h.c.app.GetFocus() == h.c.conv })
	h.typeText("y", false)
	h.waitUntil("the answer in the clipboard", func() bool { return clip() == answer })
	h.waitFor("copied the message (11 lines)")
	h.typeText("Y", false)
	h.waitUntil("the first block in the clipboard", func() bool { return clip() == `fmt.Println("hi")` })
	h.waitFor("copied code block 1 of 2")
	h.typeText("Y", false)
	h.waitUntil("the second block in the clipboard", func() bool { return clip() == "echo hi" })
	h.key(tcell.KeyUp) // the prompt
	h.typeText("y", false)
	h.waitUntil("the prompt in the clipboard", func() bool { return clip() == "show me" })

	h.typeText("i", false)
	h.waitUntil("input focus", func() bool { return h.c.app.GetFocus() == h.c.input })
	h.submit("/copy")
	h.waitUntil("the last answer in the clipboard", func() bool { return clip() == answer })
	h.submit("/mouse")
	h.waitFor("mouse released")
	h.waitUntil("the mouse released", func() bool { return h.c.cb.noMouse })
	h.submit("/mouse")
	h.waitFor("mouse captured again")
	h.key(tcell.KeyF12)
	h.waitUntil("F12 to release the mouse", func() bool { return h.c.cb.noMouse })
	h.key(tcell.KeyF12)
	h.waitUntil("F12 to take it back", func() bool { return !h.c.cb.noMouse })
}

// Copying takes the stored text, not the cells drawn: a tab in a Makefile
// or Go block stays a tab in the OSC 52 payload (y, Y and /copy), though
// the conversation draws it as spaces.
func TestCopyKeepsTabs(t *testing.T) {
	t.Parallel()
	answer := "Go:\n\n```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```\n\nmake:\n\n```make\nall:\n\tgo build ./...\n```\n"
	h := newHarness(t, hopts{w: 80, h: 24}, llmtest.Text(answer))
	h.submit("show me")
	h.waitUntil("the run to end", h.idle)
	h.waitFor("    fmt.Println(\"hi\")") // drawn with spaces
	clip := func() string { return string(h.screen.GetClipboardData()) }
	h.key(tcell.KeyTab)
	h.waitUntil("conversation focus", func() bool { return h.c.app.GetFocus() == h.c.conv })
	h.typeText("y", false)
	h.waitUntil("the answer with its tabs in the clipboard", func() bool { return clip() == answer })
	h.typeText("Y", false)
	h.waitUntil("the Go block with its tab", func() bool { return clip() == "func main() {\n\tfmt.Println(\"hi\")\n}" })
	h.typeText("Y", false)
	h.waitUntil("the make block with its tab", func() bool { return clip() == "all:\n\tgo build ./..." })
	h.typeText("i", false)
	h.waitUntil("input focus", func() bool { return h.c.app.GetFocus() == h.c.input })
	h.submit("/copy code")
	h.waitUntil("/copy code keeps the tabs", func() bool {
		return clip() == "func main() {\n\tfmt.Println(\"hi\")\n}\n\nall:\n\tgo build ./..."
	})
}
