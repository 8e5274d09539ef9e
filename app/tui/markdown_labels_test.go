package tui

import (
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// The timeline labels a step by its answer's text, without markdown syntax.
func TestTimelineLabelsHaveNoMarkdown(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48}, llmtest.Text("**Fixed**: the `flaky` test passes now."))
	h.submit("fix it")
	h.waitUntil("the run to end", h.idle)
	txt := h.waitFor("answer: Fixed: the flaky test")
	for _, row := range strings.Split(txt, "\n") {
		if strings.Contains(row, "answer:") && strings.Contains(row, "**") {
			t.Fatalf("markdown in a timeline label: %q", row)
		}
	}
}
