package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// reasoningEffort is what request i asked of the model.
func (h *harness) reasoningEffort(i int) string {
	h.t.Helper()
	reqs := h.srv.Requests()
	if len(reqs) <= i {
		h.t.Fatalf("%d requests, want request %d", len(reqs), i)
	}
	var b struct {
		ReasoningEffort string `json:"reasoning_effort"`
	}
	if err := json.Unmarshal(reqs[i].Body, &b); err != nil {
		h.t.Fatal(err)
	}
	return b.ReasoningEffort
}

// /thinking and Alt-T turn thinking on and off: the status bar shows the
// effort and the next request carries it.
func TestThinkingTogglesStatusAndRequest(t *testing.T) {
	t.Parallel()
	// The effort shows in the status bar once /thinking's message is gone.
	h := newHarness(t, hopts{w: 80, h: 24, messageTTL: shortMessages}, llmtest.Text("plain"), llmtest.Text("thought"), llmtest.Text("again"))
	h.typeText("one", true)
	h.waitFor("plain")
	if strings.Contains(h.rows()[h.h-1], "think") {
		t.Fatalf("status bar shows thinking while off: %q", h.rows()[h.h-1])
	}
	h.submit("/thinking medium")
	h.waitFor("think medium")
	h.typeText("two", true)
	h.waitFor("thought")
	h.waitUntil("the run ended", h.idle)
	h.post(tcell.NewEventKey(tcell.KeyRune, 't', tcell.ModAlt))
	h.waitFor("thinking off")
	h.waitGone("think medium")
	h.typeText("three", true)
	h.waitFor("again")
	if got := []string{h.reasoningEffort(0), h.reasoningEffort(1), h.reasoningEffort(2)}; got[0] != "" || got[1] != "medium" || got[2] != "" {
		t.Fatalf("reasoning_effort per request = %q, want [\"\" medium \"\"]", got)
	}
	// Alt-T again brings back the last effort, not a default.
	h.post(tcell.NewEventKey(tcell.KeyRune, 't', tcell.ModAlt))
	h.waitFor("think medium")
}

// A model declared without thinking keeps it off and says why in one line.
func TestThinkingRefusedForAModelWithoutIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{mutate: func(o *Options) {
		o.CheckThinking = func(model string, e llm.Effort) (llm.Effort, string) {
			if e.On() {
				return llm.EffortOff, "thinking stays off: model " + model + " is declared without \"thinking\""
			}
			return e, ""
		}
	}})
	h.submit("/thinking high")
	h.waitFor("declared without")
	if strings.Contains(h.rows()[h.h-1], "think high") {
		t.Fatal("status bar shows thinking the model cannot do")
	}
	if h.onUI(func() bool { return h.c.opts.Soul.Thinking.On() }) {
		t.Fatal("the effort is on, want off")
	}
}

// The configured effort shows from the first frame, and the first request
// carries it.
func TestConfiguredThinkingShowsAtStart(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 80, h: 24, mutate: func(o *Options) { o.Soul.Thinking = llm.EffortLow }}, llmtest.Text("low effort answer"))
	h.waitFor("think low")
	h.typeText("one", true)
	h.waitFor("low effort answer")
	if got := h.reasoningEffort(0); got != "low" {
		t.Fatalf("reasoning_effort = %q, want low", got)
	}
}
