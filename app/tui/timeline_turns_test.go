package tui

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/views"
)

// steppedRecords is a session of turns with one step each: turn i (from
// 0) has checkpoint 2i before its prompt and 2i+1 before its answer, so
// turn numbers and checkpoints differ; turn hit's answer is about the
// zeppelin.
func steppedRecords(turns, hit int) []store.Record {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	body := func(m message.Message) json.RawMessage {
		b, err := json.Marshal(m)
		if err != nil {
			panic(err)
		}
		return b
	}
	out := make([]store.Record, 0, 5*turns)
	for i := range turns {
		answer := fmt.Sprintf("answer %d", i)
		if i == hit {
			answer += " about the zeppelin"
		}
		out = append(out,
			store.Record{Kind: store.KindCheckpoint, CheckpointID: 2 * i, CreatedAt: at},
			store.Record{Kind: store.KindMessage, Role: "user", Body: body(message.NewText("user", fmt.Sprintf("prompt %d", i))), CreatedAt: at},
			store.Record{Kind: store.KindCheckpoint, CheckpointID: 2*i + 1, CreatedAt: at},
			store.Record{Kind: store.KindMessage, Role: "assistant", Body: body(message.NewText("assistant", answer)), CreatedAt: at},
			store.Record{Kind: store.KindUsage, TokenCount: 500, CreatedAt: at},
		)
	}
	return out
}

// TestSearchHitTimelineNumbersTurnsInTheWholeSession: opened at a search
// hit in turn 251 of a 300-turn session, the timeline's rows are
// numbered by turn in the whole session (#251, not #1 for the first row
// loaded), the selected row's detail names its checkpoint and the
// `rewind revert` command that takes it, and the page loaded before the
// window goes on numbering. Before, the rows showed checkpoints only.
func TestSearchHitTimelineNumbersTurnsInTheWholeSession(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			h, id := fixtureHitHarness(t, size[0], size[1], stepped300)
			h.waitFor("about the zeppelin")
			h.focus(h.c.timeline)
			h.waitFor("#251", "turn 251 · checkpoint 500", fmt.Sprintf("rewind revert %s 500", shortID(id)))
			var sel views.TimelineItem
			h.c.onUIThread(func() { sel, _ = h.c.timeline.SelectedItem() })
			if sel.Checkpoint.ID != 500 || sel.Checkpoint.TurnNo != 251 {
				t.Fatalf("selected %+v, want turn 251 at checkpoint 500", sel.Checkpoint)
			}
			// numbered checks the rows' numbers (on the UI goroutine).
			numbered := func(what string, m views.TimelineModel) int {
				turns := 0
				for _, r := range m.Checkpoints {
					if r.Step > 0 {
						continue
					}
					turns++
					if r.TurnNo != r.ID/2+1 {
						t.Errorf("%s: the row of checkpoint %d is turn %d, want %d", what, r.ID, r.TurnNo, r.ID/2+1)
						return -1
					}
				}
				return turns
			}
			var before int
			h.c.onUIThread(func() {
				before = numbered("the hit's window", h.c.timeline.Model())
				h.c.timeline.Select(0)
			})
			h.key(tcell.KeyUp)
			h.waitUntil("the page before", func() bool {
				return !h.c.pg.win.loading && numbered("with the page before", h.c.timeline.Model()) > before
			})
		})
	}
}
