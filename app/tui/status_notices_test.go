package tui

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// /status lists the notices whole, however long: the status bar cuts them
// to its width, and the notices were cut before they were kept (QA: "…not
// a regular file; rewind re…" at 80 and 160 columns).
func TestStatusListsALongNoticeWhole(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48, before: func(h *harness) {
		if err := syscall.Mkfifo(filepath.Join(h.work, "AGENTS.md"), 0o600); err != nil {
			t.Fatal(err)
		}
	}}, llmtest.Text("answered"))
	h.typeText("hello", true)
	h.waitFor("answered")
	h.submit("/status")
	screen := h.waitFor("Status", "notices")
	flat := strings.Join(strings.Fields(screen), " ")
	for _, want := range []string{"not a regular file", "could block it forever"} {
		if !strings.Contains(strings.ReplaceAll(flat, "│ ", ""), want) && !strings.Contains(flat, want) {
			t.Fatalf("/status lacks %q:\n%s", want, screen)
		}
	}
}
