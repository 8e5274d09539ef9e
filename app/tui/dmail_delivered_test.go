package tui

import (
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// A delivered D-Mail's call says it was delivered, in the tool output pane
// of the run that sent it and in the generation the backtrack archived;
// both showed the tool's own "If you see this message, the D-Mail was not
// delivered".
func TestDeliveredDMailSaysSo(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48, mutate: func(o *Options) { o.Soul.Yolo = true }},
		llmtest.Calls(llmtest.Call("d1", "SendDMail", map[string]any{"message": "skip the detour", "checkpoint_id": 1})),
		llmtest.Text("Went back."))
	h.submit("hello")
	h.waitFor("Backtracked to checkpoint 1", "Went back.")
	h.waitUntil("the run to end", h.idle)
	h.waitUntil("the pane's kept output to say delivered", func() bool {
		out := h.c.tp.outputs["d1"]
		return out != nil && strings.HasPrefix(string(out.text), "Delivered: the conversation went back")
	})
	var id string
	h.c.onUIThread(func() { id = h.c.SessionID() })
	gens, err := h.db.Generations(h.ctx, id)
	if err != nil || len(gens) != 2 || gens[1].Cause != store.CauseBacktrack {
		t.Fatalf("generations %+v %v", gens, err)
	}
	row := timelineModel(store.View{SessionID: id, Generation: gens[1]}, gens)
	row = h.c.reader.branches.withBranches(h.ctx, h.db, store.View{SessionID: id, Generation: gens[1]}, row)
	items, _, err := h.c.tt.onWorkerLoadPreview(id, views.TimelineItem{Kind: views.TimelineGeneration, Generation: row.Generations[0]}, window{})
	if err != nil {
		t.Fatal(err)
	}
	var result string
	for _, it := range items {
		if it.Kind == views.ItemTool && it.ToolName == "SendDMail" {
			result = it.Result
		}
	}
	if !strings.HasPrefix(result, "Delivered: the conversation went back to the checkpoint and continues in generation 1") {
		t.Errorf("the archived generation's SendDMail result: %q", result)
	}
}
