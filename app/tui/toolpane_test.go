package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/views"
)

// The tool output pane never shows a call of a view that was replaced:
// after /clear, after a revert and after opening another session it is
// empty again.
func TestToolPaneFollowsTheView(t *testing.T) {
	t.Parallel()
	readCall := func(id string) llmtest.Reply {
		return llmtest.Calls(llmtest.Call(id, "ReadFile", map[string]any{"path": "present.txt"}))
	}
	var other string
	h := newHarness(t, hopts{w: 160, h: 48, before: func(h *harness) {
		s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "another session", WorkDir: h.work})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.db.AppendMessage(h.ctx, s.ID, message.NewText("user", "something else entirely")); err != nil {
			t.Fatal(err)
		}
		other = s.ID
	}},
		readCall("c1"), llmtest.Text("read it"),
		readCall("c2"), llmtest.Text("read it again"),
		readCall("c3"), llmtest.Text("and once more"))
	if err := os.WriteFile(filepath.Join(h.work, "present.txt"), []byte("alpha-contents\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runRead := func(prompt, answer string) {
		t.Helper()
		h.submit(prompt)
		h.waitFor(answer, "alpha-contents")
		h.waitUntil("the run to end", h.idle)
	}

	runRead("read the file", "read it")
	h.submit("/clear")
	h.waitFor("Context cleared")
	h.waitGone("alpha-contents")
	h.waitFor("No tool call selected.")

	runRead("read it again", "read it again")
	h.typeText("/revert 0", true)
	h.waitFor("Revert to checkpoint 0?")
	h.key(tcell.KeyEnter)
	h.waitFor("Reverted to checkpoint 0")
	h.waitGone("alpha-contents")
	h.waitFor("No tool call selected.")
	// The revert gives the prompt back to the input after its banner shows
	// (a Ctrl-C before it cleared an empty input, and the prompt came
	// after: the next prompt was typed onto it).
	h.waitUntil("the prompt given back", func() bool { return h.c.input.Text() == "read it again" })
	h.key(tcell.KeyCtrlC)
	h.waitUntil("an empty input", func() bool { return h.c.input.Text() == "" })

	runRead("once more", "and once more")
	h.c.onUIThread(func() { h.c.onUIOpenSession(other) })
	h.waitFor("something else entirely")
	h.waitGone("alpha-contents")
	h.waitFor("No tool call selected.")
}

// TestToolPaneKeepsBoundedOutputs: the pane keeps the output of the last
// maxKeptCalls calls, each up to maxCallOutput bytes; selecting a call whose
// output was dropped shows the result stored in the view instead.
func TestToolPaneKeepsBoundedOutputs(t *testing.T) {
	t.Parallel()
	tp := newToolPane(views.NewToolOutput())
	id := func(i int) string { return fmt.Sprintf("c%d", i) }
	for i := range maxKeptCalls + 1 {
		tp.onUICall(soul.ToolCall{ID: id(i), Name: "Shell", Arguments: `{"command":"true"}`})
		tp.onUIOutput(soul.ToolOutput{ID: id(i), Text: "live output of " + id(i) + "\n"})
		tp.onUIResult(soul.ToolResult{ID: id(i), Name: "Shell", Output: "stored"}, views.ToolOK)
	}
	big := strings.Repeat("x", maxCallOutput)
	tp.onUIOutput(soul.ToolOutput{ID: id(maxKeptCalls), Text: big})
	if n := len(tp.outputs[id(maxKeptCalls)].text); n != maxCallOutput {
		t.Fatalf("kept %d bytes of output, want the bound %d", n, maxCallOutput)
	}
	if len(tp.outputs) != maxKeptCalls {
		t.Fatalf("kept the output of %d calls, want %d", len(tp.outputs), maxKeptCalls)
	}

	tp.onUISelect(views.Item{Kind: views.ItemTool, ID: id(1), ToolName: "Shell", Result: "the stored result"})
	if lines, _ := tp.pane.Lines(); len(lines) == 0 || lines[0] != "live output of c1" {
		t.Fatalf("a kept call shows %q, want its live output", lines)
	}
	tp.onUISelect(views.Item{Kind: views.ItemTool, ID: id(0), ToolName: "Shell", Result: "the stored result"})
	if lines, _ := tp.pane.Lines(); len(lines) == 0 || lines[0] != "the stored result" {
		t.Fatalf("the dropped call shows %q, want the view's result", lines)
	}
}
