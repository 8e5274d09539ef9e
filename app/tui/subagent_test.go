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
	"github.com/rewind-agent/rewind/store/message"
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

// TestStoredAgentRowReplaysTheChild: in a reopened parent (its run was
// another process's), selecting the Agent row shows the child's
// conversation in the tool output pane, read from the child's session:
// its text and tool calls, as the pane shows a running child.
func TestStoredAgentRowReplaysTheChild(t *testing.T) {
	t.Parallel()
	var parent string
	h := newHarness(t, hopts{w: 160, h: 48, before: func(h *harness) {
		parent = seedAgentCall(t, h.db, h.work)
	}, mutate: func(o *Options) { o.Mode, o.SessionID = ModeResume, parent }})
	h.waitFor("The sub-agent counted three lines.")
	at := -1
	h.c.onUIThread(func() {
		for i := 0; i < h.c.conv.Len(); i++ {
			if it, _ := h.c.conv.Item(i); it.Kind == views.ItemTool && it.ID == "call_agent" {
				at = i
			}
		}
		h.c.conv.Select(at)
	})
	if at < 0 {
		t.Fatal("no Agent row")
	}
	h.waitFor("▸ Shell printf 'three lines'", "a.txt has three lines")
}

// seedAgentCall writes a parent session whose step called Agent, and the
// coder child that ran: a Shell call and its answer. It returns the
// parent's id.
func seedAgentCall(t *testing.T, db *store.DB, work string) string {
	t.Helper()
	ctx := context.Background()
	p, err := db.CreateSession(ctx, store.NewSession{WorkDir: work, Model: "fake-model"})
	if err != nil {
		t.Fatal(err)
	}
	child, err := db.CreateSession(ctx, store.NewSession{Title: "count the lines", WorkDir: work, Model: "fake-model",
		Subagent: store.SubagentOrigin{Of: p.ID, CallID: "call_agent", Type: "coder"}})
	if err != nil {
		t.Fatal(err)
	}
	call := func(id, name, args string) message.Message {
		return message.Message{Role: "assistant", ToolCalls: []message.ToolCall{{ID: id, Type: "function", Name: name, Args: args}}}
	}
	result := func(id, text string) message.Message {
		return message.Message{Role: "tool", ToolCallID: id, Content: message.TextContent(text)}
	}
	steps := []struct {
		sess, prompt string
		steps        []store.Step
	}{
		{child.ID, "count the lines of a.txt", []store.Step{
			{Assistant: call("call_wc", "Shell", `{"command":"printf 'three lines'"}`), ToolResults: []message.Message{result("call_wc", "three lines")}},
			{Assistant: message.NewText("assistant", "a.txt has three lines")},
		}},
		{p.ID, "delegate the count", []store.Step{
			{Assistant: call("call_agent", "Agent", `{"description":"count the lines","prompt":"count the lines of a.txt","subagent_type":"coder"}`),
				ToolResults: []message.Message{result("call_agent", "agent_id: "+child.ID+"\nstatus: completed\n\n[summary]\na.txt has three lines")}},
			{Assistant: message.NewText("assistant", "The sub-agent counted three lines.")},
		}},
	}
	for _, s := range steps {
		if _, err := db.StartTurn(ctx, s.sess, false, message.NewText("user", s.prompt)); err != nil {
			t.Fatal(err)
		}
		for _, st := range s.steps {
			if _, err := db.CommitStep(ctx, s.sess, st); err != nil {
				t.Fatal(err)
			}
		}
	}
	return p.ID
}

// TestAgentRowOpensTheRunningChild: Enter on the Agent call's row while
// the parent runs opens the child's session read-only over the workspace,
// following it live (what it streams after the open, its committed
// steps); Esc goes back to the parent, whose run went on meanwhile.
func TestAgentRowOpensTheRunningChild(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	h := newHarness(t, hopts{w: 160, h: 48, mutate: func(o *Options) {
		o.Tools = tools.Default()
		o.Soul.Subagents = &soul.Subagents{Host: testSubagentHost{db: o.DB}}
	}},
		llmtest.Calls(llmtest.Call("call_agent", "Agent", map[string]any{"description": "find the notes", "prompt": "find the notes files", "subagent_type": "explore"})),
		llmtest.Calls(llmtest.Call("call_glob", "Glob", map[string]any{"pattern": "*.md"})),
		llmtest.Text("The notes are nowhere to be found, said the explorer at last.").WithHold(3, release),
		llmtest.Text("The parent is done."),
	)
	h.waitFor("fake-model")
	h.submit("find the notes")
	h.waitFor("▸ Glob *.md") // the child's second step streams
	h.c.onUIThread(func() { h.c.app.SetFocus(h.c.toolOut) })
	h.key(tcell.KeyEnter)
	h.waitFor("↳ explore · find the notes", "read-only", "find the notes files", "Glob")
	close(release)
	h.waitFor("said the explorer at last")
	h.waitFor("done in 2 steps")
	h.key(tcell.KeyEscape)
	h.waitFor("The parent is done.")
	h.waitGone("read-only")
}

// TestWelcomeAndStatusNameTheAgent: the empty conversation's welcome and
// /status name the agent the session runs.
func TestWelcomeAndStatusNameTheAgent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48})
	h.waitFor("agent", "default (built-in)")
	h.submit("/status")
	h.waitFor("agent      default (built-in)")
}

// TestAgentRowOpensAFinishedChildWithoutAWriter: Enter on a finished
// Agent call's row in a reopened parent visits the child read-only; no
// process writes the child, so the visit's notice must not say another
// process is its writer (the input says nobody writes it).
func TestAgentRowOpensAFinishedChildWithoutAWriter(t *testing.T) {
	t.Parallel()
	var parent string
	h := newHarness(t, hopts{w: 160, h: 48, before: func(h *harness) {
		parent = seedAgentCall(t, h.db, h.work)
	}, mutate: func(o *Options) { o.Mode, o.SessionID = ModeResume, parent }})
	h.waitFor("The sub-agent counted three lines.")
	h.c.onUIThread(func() {
		for i := 0; i < h.c.conv.Len(); i++ {
			if it, _ := h.c.conv.Item(i); it.Kind == views.ItemTool && it.ID == "call_agent" {
				h.c.conv.Select(i)
			}
		}
	})
	h.waitFor("▸ Shell printf 'three lines'")
	h.c.onUIThread(func() { h.c.app.SetFocus(h.c.toolOut) })
	h.key(tcell.KeyEnter)
	txt := h.waitFor("nobody writes this session now", "Esc: back · watching")
	if strings.Contains(txt, "other process is the writer") {
		t.Fatalf("a finished child's visit says another process writes it:\n%s", txt)
	}
	h.key(tcell.KeyEscape)
	h.waitFor("The sub-agent counted three lines.", "back to your session")
}

// TestConversationEnterOnAgentRowOpensTheChild: Enter on the Agent call's
// row in the conversation opens the child's session as Enter in the tool
// output pane does (it only folded the call's arguments); another tool
// row still folds.
func TestConversationEnterOnAgentRowOpensTheChild(t *testing.T) {
	t.Parallel()
	var parent string
	h := newHarness(t, hopts{w: 160, h: 48, before: func(h *harness) {
		parent = seedAgentCall(t, h.db, h.work)
	}, mutate: func(o *Options) { o.Mode, o.SessionID = ModeResume, parent }})
	h.waitFor("The sub-agent counted three lines.")
	h.c.onUIThread(func() {
		for i := 0; i < h.c.conv.Len(); i++ {
			if it, _ := h.c.conv.Item(i); it.Kind == views.ItemTool && it.ID == "call_agent" {
				h.c.conv.Select(i)
			}
		}
		h.c.app.SetFocus(h.c.conv)
	})
	h.waitFor("▸ Shell printf 'three lines'")
	h.key(tcell.KeyEnter)
	h.waitFor("nobody writes this session now", "Esc: back · watching")
	h.key(tcell.KeyEscape)
	h.waitFor("The sub-agent counted three lines.", "back to your session")
}
