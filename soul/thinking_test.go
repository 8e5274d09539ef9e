package soul

import (
	"encoding/json"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// The effort the soul starts with goes out with the first request, and
// SetThinking changes the next one; the status says which is on.
func TestThinkingEffortReachesTheRequest(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{Thinking: llm.EffortHigh}}, llmtest.Text("one"), llmtest.Text("two"))
	h.mustRun("first")
	if got := h.soul.Status().Thinking; got != "high" {
		t.Fatalf("status thinking = %q, want high", got)
	}
	h.soul.SetThinking(llm.EffortOff)
	h.mustRun("second")
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	efforts := make([]string, 2)
	for i, r := range reqs {
		var b struct {
			ReasoningEffort string `json:"reasoning_effort"`
		}
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatal(err)
		}
		efforts[i] = b.ReasoningEffort
	}
	if efforts[0] != "high" || efforts[1] != "" {
		t.Fatalf("reasoning_effort per request = %q, want [high \"\"]", efforts)
	}
	if got := h.soul.Status().Thinking; got != "off" {
		t.Fatalf("status thinking after SetThinking(off) = %q", got)
	}
}

// Reasoning streamed with a tool call goes back to the model as
// reasoning_content on that assistant message (Kimi and DeepSeek thinking
// models refuse a tool-call turn without it).
func TestReasoningRoundTripsWithToolCalls(t *testing.T) {
	t.Parallel()
	think := llmtest.Reply{Reasoning: "I should look first.", ToolCalls: []llmtest.ToolCall{thinkCall("c1")}}
	h := newHarness(t, hopts{cfg: Config{Thinking: llm.EffortMedium}}, think, llmtest.Text("done"))
	h.mustRun("go")
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	var b struct {
		Messages []struct {
			Role             string          `json:"role"`
			ReasoningContent string          `json:"reasoning_content"`
			ToolCalls        json.RawMessage `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[1].Body, &b); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range b.Messages {
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			found = true
			if m.ReasoningContent != "I should look first." {
				t.Fatalf("assistant tool-call message reasoning_content = %q", m.ReasoningContent)
			}
		}
	}
	if !found {
		t.Fatal("second request has no assistant tool-call message")
	}
}
