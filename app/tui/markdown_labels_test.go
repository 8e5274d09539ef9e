package tui

import (
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/views"
)

// The timeline labels a turn by its prompt and a step by its tools, without
// markdown syntax.
func TestTimelineLabelsHaveNoMarkdown(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48, mutate: func(o *Options) { o.Soul.Yolo = true }},
		llmtest.Calls(llmtest.Call("c1", "Shell", map[string]any{"command": "go test"})),
		llmtest.Text("**Fixed**: the `flaky` test passes now."))
	h.submit("**fix** the `flaky` test")
	h.waitUntil("the run to end", h.idle)
	h.waitFor("▸ fix the flaky test")
	var rows []views.CheckpointRow
	h.c.onUIThread(func() { rows = h.c.timeline.Model().Checkpoints }) // the pollers set it
	for _, c := range rows {
		if strings.ContainsAny(c.Label, "*`") {
			t.Fatalf("markdown in a timeline label: %q", c.Label)
		}
	}
}
