package soul

import (
	"errors"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// When the summary fails and everything already fits the truncation
// budget, nothing is dropped: no generation is made (it said "The 0 oldest
// messages were dropped" and archived an identical view), and the error
// says why, once.
func TestFailedSummaryWithNothingToDropKeepsTheContext(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{maxRetries: -1},
		llmtest.Text("answer one"), llmtest.Text("answer two"), llmtest.Text("answer three"),
		llmtest.HTTPError(400, "context too long"),
	)
	h.mustRun("question one")
	h.mustRun("question two")
	h.mustRun("question three")
	before := h.view().Generation.Gen
	err := h.soul.Compact(h.ctx)
	if err == nil || !errors.Is(err, ErrNothingToDrop) {
		t.Fatalf("Compact = %v, want ErrNothingToDrop", err)
	}
	if msg := err.Error(); strings.Count(msg, "summary failed") > 1 || !strings.Contains(msg, "context too long") {
		t.Errorf("error %q", msg)
	}
	if after := h.view().Generation.Gen; after != before {
		t.Fatalf("a generation was made: %d -> %d", before, after)
	}
	if ends := h.eventsOf("CompactionEnd"); len(ends) != 0 {
		t.Fatalf("CompactionEnd events: %+v", ends)
	}
}

// A truncation that drops messages says how many, in words that fit the
// number, and the reason carries no "summary failed:" of its own (the
// front ends say it).
func TestTruncationSaysWhatItDropped(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("words and more words ", 1000)
	h := newHarness(t, hopts{maxRetries: -1, cfg: Config{MaxContextSize: 20000, ReservedTokens: 100}},
		llmtest.Text("answer one "+long), llmtest.Text("answer two "+long), llmtest.Text("answer three"),
		llmtest.HTTPError(400, "context too long"),
	)
	h.mustRun("question one")
	h.mustRun("question two")
	h.mustRun("question three")
	if err := h.soul.Compact(h.ctx); err != nil {
		t.Fatalf("Compact: %v", err)
	}
	ends := h.eventsOf("CompactionEnd")
	if len(ends) != 1 {
		t.Fatalf("events = %v", h.types())
	}
	end := ends[0].(CompactionEnd)
	if !end.Truncated || strings.Contains(end.Reason, "summary failed") || !strings.Contains(end.Reason, "context too long") {
		t.Errorf("CompactionEnd = %+v", end)
	}
	note := h.messages()[0].Content.PlainText()
	if strings.Contains(note, " 0 oldest") || !strings.Contains(note, "oldest") {
		t.Errorf("truncation note = %q", note)
	}
}
