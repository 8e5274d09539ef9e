package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// testSubagentHost opens sub-agent sessions in the store as app's host
// does (without a live channel).
type testSubagentHost struct{ db *store.DB }

func (h testSubagentHost) StartSubagent(ctx context.Context, r soul.SubagentStart) (soul.SubagentRun, error) {
	s, err := h.db.CreateSession(ctx, store.NewSession{Title: r.Description, WorkDir: r.WorkDir, Model: r.Model,
		Subagent: store.SubagentOrigin{Of: r.Parent, CallID: r.CallID, Type: r.Type}})
	if err != nil {
		return soul.SubagentRun{}, err
	}
	lease, err := h.db.AcquireLease(ctx, s.ID)
	if err != nil {
		return soul.SubagentRun{}, err
	}
	return soul.SubagentRun{SessionID: s.ID, Type: r.Type, ArchivedWith: -1, Close: func() { lease.Release(context.Background()) }}, nil
}

// TestSubagentInTheWorkspace: a sub-agent's Shell call is approved in the
// parent's dialog, titled "coder · Shell"; the Agent row says the child's
// type, task and state; the tool output pane shows the child's tool calls
// and output; the session browser folds the child under its parent and
// → unfolds it as "↳ coder · count the lines".
func TestSubagentInTheWorkspace(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48, mutate: func(o *Options) {
		o.Tools = tools.Default()
		o.Soul.Subagents = &soul.Subagents{Host: testSubagentHost{db: o.DB}}
	}},
		llmtest.Calls(llmtest.Call("call_agent", "Agent", map[string]any{"description": "count the lines", "prompt": "count the lines of a.txt", "subagent_type": "coder"})),
		llmtest.Calls(llmtest.Call("call_wc", "Shell", map[string]any{"command": "printf 'three lines'"})),
		llmtest.Text("a.txt has three lines"),
		llmtest.Text("The sub-agent counted three lines."),
	)
	h.waitFor("fake-model")
	h.submit("delegate the count")
	h.waitFor("Approve coder · Shell", "printf 'three lines'")
	h.clock.advance(approvalGrace)
	h.typeText("y", false)
	h.waitFor("The sub-agent counted three lines.")
	h.waitFor("Agent coder · count the lines · done in 2 steps")

	// The Agent row selected: the pane shows the child's work.
	h.c.onUIThread(func() { h.c.tp.onUISelect(views.Item{Kind: views.ItemTool, ID: "call_agent", ToolName: "Agent"}) })
	h.waitFor("▸ Shell printf 'three lines'", "three lines")

	h.key(tcell.KeyCtrlO)
	h.waitFor("Sessions · F1 help", "▸ 1 ↳") // the browser, not the side pane
	h.waitUntil("the browser to take the keys", func() bool { return h.c.app.GetFocus() == h.c.br.list })
	if strings.Contains(h.text(), "↳ coder · count the lines") {
		t.Fatal("the child is listed before its parent is unfolded")
	}
	h.key(tcell.KeyRight)
	h.waitFor("↳ coder · count the lines", "▾ 1 ↳")
	h.key(tcell.KeyLeft)
	h.waitGone("↳ coder · count the lines")
}
