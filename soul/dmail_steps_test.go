package soul

import (
	"errors"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// A step that ends in a D-Mail backtrack does not use up one of the run's
// steps, as kimi-cli's BackToTheFuture retries: a D-Mail at the last step
// still gets an answer.
func TestDMailAtTheLastStepStillAnswers(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{Yolo: true, MaxStepsPerRun: 2}},
		llmtest.Calls(thinkCall("c1")),
		llmtest.Calls(llmtest.Call("c2", "SendDMail", map[string]any{"message": "skip the detour", "checkpoint_id": 1})),
		llmtest.Text("The answer, after the D-Mail."),
	)
	if err := h.run("question"); err != nil {
		t.Fatalf("run: %v (events %v)", err, h.types())
	}
	if got := lastText(h.srv.Requests()[2]); got == "" {
		t.Fatal("no third request")
	}
	msgs := h.messages()
	if last := msgs[len(msgs)-1]; last.Content.PlainText() != "The answer, after the D-Mail." {
		t.Fatalf("last message = %q", last.Content.PlainText())
	}
}

// Backtracks are bounded all the same: a model that only ever sends
// D-Mails ends with the max-steps error, not a loop.
func TestEndlessDMailsEndTheRun(t *testing.T) {
	t.Parallel()
	var replies []llmtest.Reply
	for i := 0; i < 8; i++ {
		replies = append(replies, llmtest.Calls(llmtest.Call("d", "SendDMail", map[string]any{"message": "again", "checkpoint_id": 1})))
	}
	h := newHarness(t, hopts{cfg: Config{Yolo: true, MaxStepsPerRun: 2}}, replies...)
	err := h.run("question")
	if !errors.Is(err, ErrMaxSteps) {
		t.Fatalf("run error = %v, want ErrMaxSteps", err)
	}
	if n := len(h.srv.Requests()); n > 4 {
		t.Fatalf("%d model calls for a 2-step limit, want at most 4", n)
	}
}

// The same test command after each edit is normal work: no loop warning.
// LoopWarnAfter sets how many in a row warn.
func TestLoopWarningOnlyForCallsInARow(t *testing.T) {
	t.Parallel()
	test := func(id string) llmtest.ToolCall {
		return llmtest.Call(id, "Shell", map[string]any{"command": "go test ./..."})
	}
	write := func(id, body string) llmtest.ToolCall {
		return llmtest.Call(id, "WriteFile", map[string]any{"path": "main.go", "content": body})
	}
	h := newHarness(t, hopts{cfg: Config{Yolo: true}},
		llmtest.Calls(test("t1")), llmtest.Calls(write("w1", "package main // one")),
		llmtest.Calls(test("t2")), llmtest.Calls(write("w2", "package main // two, longer")),
		llmtest.Calls(test("t3")), llmtest.Calls(write("w3", "package main\n\nfunc main() {}\n")),
		llmtest.Calls(test("t4")), llmtest.Text("done"),
	)
	h.mustRun("fix it")
	if ws := h.eventsOf("LoopWarning"); len(ws) != 0 {
		t.Fatalf("warned on calls apart: %+v", ws)
	}

	h2 := newHarness(t, hopts{cfg: Config{Yolo: true, LoopWarnAfter: 2}},
		llmtest.Calls(test("t1")), llmtest.Calls(test("t2")), llmtest.Text("stop"))
	h2.mustRun("fix it")
	if ws := h2.eventsOf("LoopWarning"); len(ws) != 1 || ws[0].(LoopWarning).Count != 2 {
		t.Fatalf("LoopWarnAfter 2: warnings %+v", ws)
	}
}
