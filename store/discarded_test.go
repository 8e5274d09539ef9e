package store

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store/message"
)

// TestDiscardedAt: the counts and the prompt returned to, read in pages,
// agree with counting the whole archived view, also when what follows the
// checkpoint spans several pages and when no prompt follows it.
func TestDiscardedAt(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	sid := newSession(t, db, "t", "/w").ID
	turn(t, db, sid, "first   prompt\nsecond line", 10) // checkpoint 0
	cp := turn(t, db, sid, "fix the bug", 20)           // checkpoint 1
	for i := 0; i < discardedPage; i++ {                // steps enough for two pages
		must[[]Record](t)(db.CommitStep(bg, sid, Step{Assistant: message.NewText("assistant", fmt.Sprint("step ", i)), TokenCount: 30}))
	}
	turn(t, db, sid, "then this", 40) // checkpoint 2

	d := must[Discarded](t)(db.DiscardedAt(bg, sid, -1, cp))
	full := must[View](t)(db.View(bg, sid))
	want, after := 0, false
	for _, r := range full.Records {
		after = after || r.Kind == KindCheckpoint && r.CheckpointID == cp
		if after && r.Kind == KindMessage {
			want++
		}
	}
	if d.Messages != want || d.Prompts != 2 || d.ReturnedTo != "fix the bug" || d.Gen != 0 {
		t.Fatalf("DiscardedAt(1) = %+v, want %d messages, 2 prompts, returned to the checkpoint's prompt", d, want)
	}

	// Checkpoint 2 is followed by its marker and prompt; a checkpoint after
	// the last prompt returns to the one before it.
	last := must[int](t)(db.Checkpoint(bg, sid, false))
	d = must[Discarded](t)(db.DiscardedAt(bg, sid, -1, last))
	if d.Messages != 0 || d.Prompts != 0 || d.ReturnedTo != "then this" {
		t.Fatalf("DiscardedAt(last) = %+v", d)
	}

	// An archived generation is read as it was.
	must[Generation](t)(db.RevertTo(bg, sid, cp, CauseBacktrack, "note"))
	if d = must[Discarded](t)(db.DiscardedAt(bg, sid, 0, 0)); d.Prompts != 3 || !strings.HasPrefix(d.ReturnedTo, "first prompt second line") {
		t.Fatalf("DiscardedAt(gen 0, 0) = %+v", d)
	}
	if _, err := db.DiscardedAt(bg, sid, -1, 7); err == nil {
		t.Fatal("a checkpoint the view lacks is an error")
	}
}
