package soul

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/soul/tools"
)

func planCall(id, plan string) llmtest.ToolCall {
	return llmtest.Call(id, "ExitPlanMode", map[string]any{"plan": plan})
}

func toolResults(h *harness) map[string]ToolResult {
	out := map[string]ToolResult{}
	for _, e := range h.eventsOf("ToolResult") {
		r := e.(ToolResult)
		out[r.ID] = r
	}
	return out
}

// TestPlanModeRefusesAWrite: in plan mode a write is a tool error saying
// why and nothing is written, a read runs, and the model is reminded.
func TestPlanModeRefusesAWrite(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{Plan: true, Yolo: true}},
		llmtest.Calls(writeCall("w1", "a.txt"), llmtest.Call("r1", "ReadFile", map[string]any{"path": "notes.md"}),
			llmtest.Call("s1", "Shell", map[string]any{"command": "touch b.txt"})),
		llmtest.Text("I will plan first."),
	)
	if err := os.WriteFile(filepath.Join(h.work, "notes.md"), []byte("read me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !h.soul.Status().Plan {
		t.Fatal("Config.Plan did not start in plan mode")
	}
	h.mustRun("add a feature")
	res := toolResults(h)
	for _, id := range []string{"w1", "s1"} {
		if r := res[id]; !r.IsError || !strings.Contains(r.Output, "Plan mode is on") || !strings.Contains(r.Output, "ExitPlanMode") {
			t.Errorf("%s: %+v, want a refusal that says why", id, r)
		}
	}
	if r := res["r1"]; r.IsError || !strings.Contains(r.Output, "read me") {
		t.Errorf("ReadFile in plan mode: %+v", r)
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(h.work, f)); err == nil {
			t.Errorf("%s was written in plan mode", f)
		}
	}
	if last := lastText(h.srv.Requests()[0]); !strings.Contains(last, "Plan mode is on") {
		t.Errorf("the request does not remind the model of plan mode: %q", last)
	}
	for _, m := range h.messages() {
		if strings.Contains(m.Content.PlainText(), "<system>Plan mode is on") {
			t.Error("the plan reminder was stored in the session")
		}
	}
}

// TestExitPlanModeApproval: the plan reaches the user in the approval
// request even under yolo; feedback keeps planning; approval ends plan
// mode and the write then runs.
func TestExitPlanModeApproval(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{Yolo: true}},
		llmtest.Calls(llmtest.Call("e1", "EnterPlanMode", map[string]any{})),
		llmtest.Calls(writeCall("w1", "a.txt")),
		llmtest.Calls(planCall("p1", "1. write a.txt")),
		llmtest.Calls(planCall("p2", "1. write a.txt\n2. test it")),
		llmtest.Calls(writeCall("w2", "a.txt")),
		llmtest.Text("Done."),
	)
	var plans []*ApprovalRequest
	h.onEvent = func(e Event) {
		r, ok := e.(*ApprovalRequest)
		if !ok {
			return
		}
		plans = append(plans, r)
		if len(plans) == 1 {
			go r.Respond(RejectWithFeedback, "add a test step")
		} else {
			go r.Respond(ApproveForSession, "") // counts once: a plan is never approved for the session
		}
	}
	h.mustRun("add a feature")
	if len(plans) != 2 || plans[0].Plan != "1. write a.txt" || plans[0].Action != tools.ActionApprovePlan {
		t.Fatalf("approval requests = %+v, want the two plans", plans)
	}
	res := toolResults(h)
	if r := res["w1"]; !r.IsError || !strings.Contains(r.Output, "Plan mode is on") {
		t.Errorf("write after EnterPlanMode: %+v", r)
	}
	if r := res["p1"]; !strings.Contains(r.Output, "add a test step") || !strings.Contains(r.Output, "plan mode stays on") {
		t.Errorf("feedback: %+v", r)
	}
	if r := res["p2"]; r.IsError || !strings.Contains(r.Output, "approved") {
		t.Errorf("approval: %+v", r)
	}
	if r := res["w2"]; r.IsError {
		t.Errorf("write after approval: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(h.work, "a.txt")); err != nil {
		t.Errorf("a.txt not written after the plan was approved: %v", err)
	}
	if h.soul.Status().Plan {
		t.Error("still in plan mode after approval")
	}
	var sawPlan bool
	for _, e := range h.eventsOf("StatusUpdate") {
		sawPlan = sawPlan || e.(StatusUpdate).Plan
	}
	if !sawPlan {
		t.Error("no StatusUpdate said plan mode was on")
	}
}

// TestExitPlanModeRejectStopsTheRun: a rejected plan ends the run and plan
// mode stays on.
func TestExitPlanModeRejectStopsTheRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{Plan: true}}, llmtest.Calls(planCall("p1", "the plan")))
	h.onEvent = func(e Event) {
		if r, ok := e.(*ApprovalRequest); ok {
			go r.Respond(Reject, "")
		}
	}
	if err := h.run("plan it"); err == nil {
		t.Fatal("a rejected plan did not stop the run")
	}
	if !h.soul.InPlanMode() {
		t.Error("plan mode ended on a rejection")
	}
}

// TestPlanModeSubagents: only the explore and plan sub-agents run while
// planning (Agent, and its alias Task with subagent_name).
func TestPlanModeSubagents(t *testing.T) {
	t.Parallel()
	for args, allowed := range map[string]bool{
		`{"subagent_type":"explore"}`: true,
		`{"subagent_type":"plan"}`:    true,
		`{"subagent_type":"coder"}`:   false,
		`{}`:                          false, // coder, the default
	} {
		if got := planRefusal("Agent", []byte(args)) == ""; got != allowed {
			t.Errorf("Agent %s allowed = %t", args, got)
		}
	}
	if planRefusal("Task", []byte(`{"subagent_name":"explore"}`)) != "" || planRefusal("Task", []byte(`{"subagent_name":"coder"}`)) == "" {
		t.Error("Task's subagent_name is not read")
	}
	for _, name := range []string{"ReadFile", "Glob", "Grep", "ListDir", "FetchURL", "ExitPlanMode"} {
		if planRefusal(name, nil) != "" {
			t.Errorf("%s refused in plan mode", name)
		}
	}
	for _, name := range []string{"WriteFile", "StrReplaceFile", "Shell", "SendDMail", "mcp__gh__create_issue"} {
		if planRefusal(name, nil) == "" {
			t.Errorf("%s allowed in plan mode", name)
		}
	}
}
