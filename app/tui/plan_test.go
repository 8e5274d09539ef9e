package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

func (h *harness) statusBar() string {
	rows := h.rows()
	return rows[len(rows)-1]
}

// TestPlanModeOnTheSimulationScreen: Shift-Tab in the input turns plan
// mode on (PLAN in the status bar); the model's write is refused; its
// ExitPlanMode shows the plan whole in the approval dialog; y approves it,
// plan mode ends and the write runs.
func TestPlanModeOnTheSimulationScreen(t *testing.T) {
	t.Parallel()
	write := llmtest.Call("w1", "WriteFile", map[string]any{"path": "a.txt", "content": "hello\n"})
	h := newHarness(t, hopts{},
		llmtest.Calls(write),
		llmtest.Calls(llmtest.Call("p1", "ExitPlanMode", map[string]any{"plan": "## Plan\n\n1. write a.txt\n2. run the tests"})),
		llmtest.Calls(llmtest.Call("w2", "WriteFile", map[string]any{"path": "a.txt", "content": "hello\n"})),
		llmtest.Text("All done."),
	)
	h.waitFor("fake-model")
	if strings.Contains(h.statusBar(), "PLAN") {
		t.Fatal("PLAN before plan mode")
	}
	h.key(tcell.KeyBacktab)
	h.waitFor("plan mode on")
	if !strings.Contains(h.statusBar(), " PLAN ") {
		t.Fatalf("status bar without PLAN: %q", h.statusBar())
	}
	h.submit("add a feature")
	h.waitFor("Approve the plan", "1. write a.txt", "2. run the tests", "[y] approve plan", "[f] keep planning")
	if _, err := os.Stat(filepath.Join(h.work, "a.txt")); err == nil {
		t.Fatal("a.txt was written in plan mode")
	}
	if m, _ := h.srv.Requests()[1].Last("tool"); !strings.Contains(m.Content.PlainText(), "Plan mode is on: WriteFile was not run") {
		t.Errorf("the refused write's result: %q", m.Content.PlainText())
	}
	h.clock.advance(approvalGrace)
	h.typeText("y", false)
	// Out of plan mode the write asks as any write does.
	h.waitFor("Approve WriteFile")
	h.clock.advance(approvalGrace)
	h.typeText("y", false)
	h.waitFor("All done.")
	if _, err := os.Stat(filepath.Join(h.work, "a.txt")); err != nil {
		t.Fatalf("a.txt not written after the plan was approved: %v", err)
	}
	h.waitGone(" PLAN ")
}

// TestPlanFeedbackKeepsPlanning: f sends feedback; plan mode stays on and
// the model gets the feedback as the call's result.
func TestPlanFeedbackKeepsPlanning(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{mutate: func(o *Options) { o.Soul.Plan = true }},
		llmtest.Calls(llmtest.Call("p1", "ExitPlanMode", map[string]any{"plan": "1. rewrite everything"})),
		llmtest.Text("I will revise it."),
	)
	h.waitFor(" PLAN ")
	h.submit("plan the change")
	h.waitFor("Approve the plan", "1. rewrite everything")
	h.clock.advance(approvalGrace)
	h.typeText("f", false)
	h.waitFor("feedback:")
	h.typeText("smaller steps please", true)
	h.waitFor("I will revise it.")
	if m, _ := h.srv.Requests()[1].Last("tool"); !strings.Contains(m.Content.PlainText(), "smaller steps please") || !strings.Contains(m.Content.PlainText(), "plan mode stays on") {
		t.Errorf("the model got %q", m.Content.PlainText())
	}
	if !strings.Contains(h.statusBar(), " PLAN ") {
		t.Errorf("plan mode ended on feedback: %q", h.statusBar())
	}
	h.submit("/plan")
	h.waitGone(" PLAN ")
}
