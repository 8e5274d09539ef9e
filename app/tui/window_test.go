package tui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/views"
)

// longRecords is a long session's records: turns of a checkpoint, the
// prompt "prompt N", an answer with one Shell call, its result and a usage
// record (five records a turn).
func longRecords(turns int) []store.Record {
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
		call := fmt.Sprintf("call_%d", i)
		asst := message.NewText("assistant", fmt.Sprintf("answer %d", i))
		asst.ToolCalls = []message.ToolCall{{ID: call, Name: "Shell", Args: fmt.Sprintf(`{"command":"echo %d"}`, i)}}
		out = append(out,
			store.Record{Kind: store.KindCheckpoint, CheckpointID: i, CreatedAt: at},
			store.Record{Kind: store.KindMessage, Role: "user", Body: body(message.NewText("user", fmt.Sprintf("prompt %d", i))), CreatedAt: at},
			store.Record{Kind: store.KindMessage, Role: "assistant", Body: body(asst), CreatedAt: at},
			store.Record{Kind: store.KindMessage, Role: "tool", Body: body(message.Message{Role: "tool", ToolCallID: call,
				Content: message.TextContent(fmt.Sprintf("output %d", i))}), CreatedAt: at},
			store.Record{Kind: store.KindUsage, TokenCount: 100 * (i + 1), CreatedAt: at},
		)
	}
	return out
}

// longSessionHarness resumes a session of 400 turns (2,000 records, 1,200
// messages), read in shortWindow's pages of 100 records: 20 pages.
func longSessionHarness(t *testing.T) *harness {
	h, _ := fixtureHarness(t, long400, hopts{w: 180, h: 44}, true)
	return h
}

// TestLongSessionOpensAtItsTail: a 2,000-record session opens showing its
// newest turns only (one page of records), with the count of the earlier
// messages; reaching the top of the conversation loads the page before,
// keeping the rows on screen, until the first prompt is there; the
// timeline grows with what is loaded.
func TestLongSessionOpensAtItsTail(t *testing.T) {
	t.Parallel()
	h := longSessionHarness(t)
	h.waitFor("prompt 399", "answer 399")
	var n, earlier, checkpoints int
	h.c.onUIThread(func() {
		n, earlier, checkpoints = h.c.conv.Len(), h.c.pg.win.earlier, len(h.c.timeline.Model().Checkpoints)
	})
	// 100 records, aligned to a turn: 20 turns of a prompt, an answer and its call
	if n != 60 || earlier != 1200-60 || checkpoints != 20 {
		t.Fatalf("opened with %d items, %d earlier messages, %d timeline checkpoints; want 60, 1140, 20", n, earlier, checkpoints)
	}
	if first, _ := h.c.conv.Item(0); first.Text != "prompt 380" {
		t.Fatalf("the first item loaded is %+v, want prompt 380", first)
	}

	// To the top: the marker shows, the page before loads in front.
	h.focus(h.c.conv)
	h.typeText("g", false)
	h.waitUntil("the earlier page to load", func() bool { return h.c.conv.Len() == 120 && !h.c.pg.win.loading })
	h.c.onUIThread(func() {
		earlier = h.c.pg.win.earlier
		if first, _ := h.c.conv.Item(0); first.Text != "prompt 360" {
			t.Errorf("after one page the first item is %+v, want prompt 360", first)
		}
		if it, _ := h.c.conv.Item(h.c.conv.Selected()); it.Text != "prompt 380" {
			t.Errorf("the selection moved to %+v, want it kept on prompt 380", it)
		}
		if got := len(h.c.timeline.Model().Checkpoints); got != 40 {
			t.Errorf("timeline has %d checkpoints after a page, want 40", got)
		}
	})
	if earlier != 1200-120 {
		t.Fatalf("%d earlier messages after a page, want 1080", earlier)
	}
	txt := h.waitFor("prompt 380")
	if strings.Contains(txt, "earlier messages") {
		t.Errorf("the marker shows while the loaded page is above it:\n%s", txt)
	}

	// Keep going up to the start: the marker goes, prompt 0 is first.
	for range 20 {
		var before int
		h.c.onUIThread(func() { before = h.c.pg.win.earlier })
		if before == 0 {
			break
		}
		h.typeText("g", false)
		h.waitUntil("a page to load", func() bool { return h.c.pg.win.earlier < before && !h.c.pg.win.loading })
	}
	h.typeText("g", false) // the first item, now that it is loaded
	h.waitFor("prompt 0", "answer 0")
	h.c.onUIThread(func() {
		if h.c.pg.win.earlier != 0 || h.c.conv.Len() != 1200 {
			t.Errorf("at the start: %d earlier, %d items", h.c.pg.win.earlier, h.c.conv.Len())
		}
	})
	if txt := h.text(); strings.Contains(txt, "earlier messages") {
		t.Errorf("the marker shows with everything loaded:\n%s", txt)
	}
	// Each page made the timeline read again a turn of what it had, not
	// all of it (19 pages read 19,000 records again, quadratic in pages).
	if n := h.c.pollStats.prependReread.Load(); n > 19*10 {
		t.Errorf("the 19 earlier pages made the timeline read %d records again, want at most 10 each", n)
	}
}

// TestLongSessionMarkerAtTheTop: scrolled to the top of the loaded part,
// the conversation shows how many messages come before it.
func TestLongSessionMarkerAtTheTop(t *testing.T) {
	t.Parallel()
	h := longSessionHarness(t)
	h.waitFor("prompt 399")
	h.c.onUIThread(func() { h.c.pg.win.loading = true }) // hold the load: the marker stays on screen
	h.focus(h.c.conv)
	h.typeText("g", false)
	h.waitFor("↑ 1,140 earlier messages", "prompt 380")
}

// TestLongSessionRevertsToAnUnloadedCheckpoint: /revert to a checkpoint
// far before the loaded tail works, and the reverted view (short) is shown
// whole.
func TestLongSessionRevertsToAnUnloadedCheckpoint(t *testing.T) {
	t.Parallel()
	h := longSessionHarness(t)
	h.waitFor("prompt 399")
	h.submit("/revert 3")
	h.waitFor("Revert to checkpoint 3?")
	h.typeText("c", false)
	h.waitFor("Reverted to checkpoint 3", "prompt 2", "answer 2")
	h.waitUntil("the revert to end", h.idle)
	h.c.onUIThread(func() {
		if h.c.pg.win.earlier != 0 || h.c.conv.Len() != 3*3+1 {
			t.Errorf("after the revert: %d earlier, %d items (want 3 turns and the banner)", h.c.pg.win.earlier, h.c.conv.Len())
		}
	})
	if txt := h.text(); strings.Contains(txt, "prompt 399") {
		t.Errorf("the reverted conversation still shows the old tail:\n%s", txt)
	}
}

// TestLongSessionPreviewsALoadedCheckpoint: selecting a checkpoint of the
// loaded part in the timeline previews the conversation before it, with
// the count of the later messages, and Esc gives the tail back.
func TestLongSessionPreviewsALoadedCheckpoint(t *testing.T) {
	t.Parallel()
	h := longSessionHarness(t)
	h.waitFor("prompt 399")
	h.focus(h.c.timeline)
	h.typeText("k", false)
	txt := h.waitFor("PREVIEW · before checkpoint 398 · 6 later messages not shown", "prompt 397")
	if strings.Contains(txt, "▌ prompt 398") || strings.Contains(txt, "earlier messages") {
		t.Errorf("the preview shows what follows the checkpoint, or the marker:\n%s", txt)
	}
	h.key(tcell.KeyEsc)
	h.waitGone("PREVIEW")
	h.waitFor("prompt 399")
}

// TestWatchedLongSessionFollowsAfterAnEarlierPage: a watcher of a long
// session that loaded an earlier page still appends what the writer
// commits after the items it has, keeping the page (the committed items
// are counted from after it).
func TestWatchedLongSessionFollowsAfterAnEarlierPage(t *testing.T) {
	t.Parallel()
	h, id := fixtureHarness(t, long400, hopts{
		w: 180, h: 44,
		mutate: func(o *Options) { o.Mode, o.SessionID, o.Client = ModeWatch, long400.id(), nil },
	}, false)
	h.waitFor("prompt 399")
	// Settled: the poll has seen the session and the writer check ran.
	st := &h.c.pollStats
	h.waitUntil("the first poll's read", func() bool { return st.viewReads.Load()+st.deltaReads.Load() >= 2 })
	checks := st.writerChecks.Load()
	h.waitUntil("a whole writer check", func() bool { return st.writerChecks.Load() >= checks+2 })
	h.focus(h.c.conv)
	h.typeText("g", false)
	h.waitUntil("the earlier page to load", func() bool { return h.c.conv.Len() == 120 && !h.c.pg.win.loading })

	seedTurns(t, h.db, id, "a new prompt")
	h.waitUntil("the new turn", func() bool {
		it, _ := h.c.conv.Item(h.c.conv.Len() - 1)
		return it.Text == "answer to a new prompt"
	})
	h.c.onUIThread(func() {
		first, _ := h.c.conv.Item(0)
		if n := h.c.conv.Len(); n != 122 || first.Text != "prompt 360" {
			t.Errorf("after the new turn: %d items from %q, want 122 from prompt 360", n, first.Text)
		}
	})
}

// TestLongSessionHitPreviewReadsAroundTheHit: the browser's preview of a
// search hit in the middle of a long session reads the records around the
// hit's only, and shows the hit's item first.
func TestLongSessionHitPreviewReadsAroundTheHit(t *testing.T) {
	t.Parallel()
	h := longSessionHarness(t)
	id := h.sessionID()
	full, err := h.db.View(h.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	hit := full.Records[5*200+1] // the prompt of turn 200
	k := views.PreviewKey{SessionID: id, Hit: true, Gen: full.Generation.Gen, Seq: hit.Seq}
	v, err := h.db.ViewAround(h.ctx, id, k.Gen, store.ViewPos{Seq: k.Seq}, previewBefore, previewRecords) // as onWorkerPreview reads it
	if err != nil {
		t.Fatal(err)
	}
	if n := len(v.Records); n != previewBefore+1+previewRecords || v.Records[previewBefore].Seq != hit.Seq {
		t.Fatalf("read %d records around the hit (hit at %d), want %d with the hit at %d", n,
			slices.IndexFunc(v.Records, func(r store.Record) bool { return r.Seq == hit.Seq }), previewBefore+1+previewRecords, previewBefore)
	}
	p := previewOf(v, k)
	if p.Focus < 0 || p.Items[p.Focus].Text != "prompt 200" {
		t.Fatalf("preview focus %d of %+v", p.Focus, p.Items)
	}
}

// TestLongSessionPreviewsAnUnloadedCheckpoint: the preview of a checkpoint
// outside the loaded part of a long view reads the page before it, not the
// whole view, and counts the later messages.
func TestLongSessionPreviewsAnUnloadedCheckpoint(t *testing.T) {
	t.Parallel()
	h := longSessionHarness(t)
	h.waitFor("prompt 399")
	it := views.TimelineItem{Kind: views.TimelineCheckpoint, Checkpoint: views.CheckpointRow{ID: 300}}
	items, banner, err := h.c.tt.onWorkerLoadPreview(h.sessionID(), it, window{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "PREVIEW · before checkpoint 300 · 300 later messages not shown"; !strings.HasPrefix(banner, want) {
		t.Errorf("banner %q, want %q…", banner, want)
	}
	// the page before it: 20 turns, up to answer 299
	if len(items) != 60 || items[0].Text != "prompt 280" || items[len(items)-1].Kind != views.ItemTool {
		t.Errorf("the preview has %d items from %+v to %+v, want the 60 of prompts 280–299", len(items), items[0], items[len(items)-1])
	}
}
