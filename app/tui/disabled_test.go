package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// waitDimmed waits until the screen shows text whose first cell is
// drawn in the theme's dim colour.
func (h *harness) waitDimmed(text string) {
	h.t.Helper()
	dim := h.theme().Dim
	h.waitUntil(text+" dimmed", func() bool {
		cells, w, _ := h.screen.GetContents()
		for y, row := range h.rowsOf(cells, w) {
			if x := strings.Index(row, text); x >= 0 {
				fg, _, _ := cells[y*w+len([]rune(row[:x]))].Style.Decompose()
				if fg == dim {
					return true
				}
			}
		}
		return false
	})
}

// rowsOf is the screen's rows as text (UI goroutine).
func (h *harness) rowsOf(cells []tcell.SimCell, w int) []string {
	var rows []string
	for y := 0; y*w < len(cells); y++ {
		var b strings.Builder
		for _, c := range cells[y*w : (y+1)*w] {
			if len(c.Runes) == 0 {
				b.WriteRune(' ')
				continue
			}
			b.WriteRune(c.Runes[0])
		}
		rows = append(rows, b.String())
	}
	return rows
}

// TestDisabledReasonsWhileRunning: during a run the slash menu and help
// show, dimmed, why the commands that change the context are disabled, and
// running one says so in the rule's one line; the reasons go with the run.
func TestDisabledReasonsWhileRunning(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48}, llmtest.Hang(3).WithRate(100))
	h.submit("long run")
	h.waitFor("an answe")

	h.typeText("/comp", false)
	h.waitFor("/compact", "(a run is active) summarise the context")
	h.waitDimmed("(a run is active)")
	h.inject(tcell.KeyEnter, 0)
	h.waitFor("/compact is not available: a run is active: wait for it or press Esc to stop it")

	h.key(tcell.KeyF1)
	h.waitFor("Help — Esc closes")
	for range 4 { // the slash commands come last
		h.key(tcell.KeyPgDn)
	}
	h.waitFor("Slash commands")
	h.waitDimmed("/clear")
	h.waitUntil("Esc Esc's reason", func() bool {
		for _, b := range h.c.help.visibleGlobalBindings() {
			if strings.HasPrefix(b.Description, "Esc Esc") {
				return b.DisabledReason != nil && b.DisabledReason() == "a run is active"
			}
		}
		return false
	})
	if txt := h.text(); strings.Contains(txt, "show keys and slash commands (") {
		t.Errorf("/help is never disabled, but help gives it a reason:\n%s", txt)
	}
	h.key(tcell.KeyEsc) // closes help
	h.waitGone("Slash commands")

	h.key(tcell.KeyEsc) // interrupts
	h.waitUntil("the run to end", h.idle)
	h.typeText("/comp", false)
	h.waitFor("/compact", "summarise the context")
	if txt := h.text(); strings.Contains(txt, "(a run is active)") {
		t.Errorf("the reason stayed after the run:\n%s", txt)
	}
}

// TestDisabledReasonsReadOnly: watching, the commands that write the
// session show "read-only session" in the slash menu, and one run says why
// in the watcher's words; a prompt is refused the same way and kept.
func TestDisabledReasonsReadOnly(t *testing.T) {
	t.Parallel()
	var id string
	h := newHarness(t, hopts{
		before: func(h *harness) {
			s, _ := h.db.CreateSession(h.ctx, store.NewSession{Title: "watched", WorkDir: h.work})
			id = s.ID
			h.db.AppendMessage(h.ctx, id, message.NewText("user", "first prompt"))
		},
		mutate: func(o *Options) { o.Mode, o.SessionID = ModeWatch, id },
	})
	h.waitFor("WATCH · no writer", "first prompt")
	h.typeText("/yol", false)
	h.waitFor("(read-only session) toggle approving")
	h.waitDimmed("(read-only session)")
	h.inject(tcell.KeyEnter, 0)
	// The notices, not the status bar: a watch status that changes may
	// put its own message over it on a loaded machine.
	h.waitUntil("the refusal", func() bool {
		for _, n := range h.c.msg.notices {
			if n.isErr && n.text == "/yolo is not available: read-only: no process writes it now · /continue writes it here" {
				return true
			}
		}
		return false
	})
}

// TestNoModelRefusal: on the setup screen (no model) a prompt and a
// command that writes say "no model" and what to set.
func TestNoModelRefusal(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{mutate: func(o *Options) { o.Client, o.ReadOnly, o.Setup = nil, true, "Connect a model first." }})
	h.waitFor("Connect a model")
	h.key(tcell.KeyEsc) // the setup screen's choice: the session browser
	h.waitUntil("the browser to open", func() bool { return h.c.pages.top() == browserPage })
	h.key(tcell.KeyEsc)
	h.waitUntil("the browser to close", func() bool { return h.c.pages.top() == "" })
	h.typeText("/comp", false)
	h.waitFor("(no model) summarise")
	h.inject(tcell.KeyEnter, 0)
	h.waitFor("/compact is not available: " + setupRefusal)
	h.typeText("hello", true)
	h.waitFor(setupRefusal + " (your text stays in the input)")
}

// TestReadOnlyPreviewOffersWhatWorks: the timeline's previews of a
// session watched read-only, or opened without a model, offer no revert
// (Enter is refused there) and no restore (r is); fork, diff and Esc work
// there and stay.
func TestReadOnlyPreviewOffersWhatWorks(t *testing.T) {
	t.Parallel()
	for _, noModel := range []bool{false, true} {
		t.Run(fmt.Sprint("no model ", noModel), func(t *testing.T) {
			t.Parallel()
			var id string
			h := newHarness(t, hopts{
				w: 180, h: 44,
				before: func(h *harness) { id = branchedSession(t, h.db, h.work) },
				mutate: func(o *Options) {
					o.Mode, o.SessionID = ModeWatch, id
					if noModel {
						o.Client, o.ReadOnly, o.Setup = nil, true, "Connect a model first."
					}
				},
			})
			if noModel {
				h.waitFor("Connect a model")
				h.key(tcell.KeyEsc) // the setup screen's choice: the session browser
				h.waitUntil("the browser to open", func() bool { return h.c.pages.top() == browserPage })
				h.key(tcell.KeyEsc)
				h.waitUntil("the browser to close", func() bool { return h.c.pages.top() == "" })
			}
			h.waitFor("second task, take two ← here")
			h.focus(h.c.timeline)
			txt := h.waitFor("PREVIEW · before checkpoint 1 · 2 later messages not shown")
			if strings.Contains(txt, "Enter revert") {
				t.Errorf("the preview of a read-only session offers a revert:\n%s", txt)
			}
			h.waitFor("f fork · Esc back")
			h.c.onUIThread(func() { h.c.timeline.SelectGeneration(0) })
			txt = h.waitFor("ARCHIVED generation 0", "d diff", "f fork · Esc back")
			if strings.Contains(txt, "r restore") {
				t.Errorf("the preview of a read-only session's generation offers a restore:\n%s", txt)
			}
		})
	}
}
