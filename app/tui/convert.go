package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/rewind-agent/rewind/app/timetravel"
	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul/tools"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// This file converts store data and soul events into the views' plain view
// models. Nothing here touches a widget; every function is pure and may run
// on any goroutine.

// resultExcerpt is how many bytes of a tool result its conversation item keeps.
const resultExcerpt = 2000

// viewItems turns a generation's view into conversation items: user
// prompts, assistant text (reasoning folded), one line per tool call with
// its status from the matching result, and banners for what rewind itself
// injected (compaction summaries, D-Mails). Checkpoint markers are hidden.
func viewItems(v store.View) []views.Item { return viewItemsWith(v, pageNotes{}) }

// pageNotes is what a page's records do not say themselves but its
// generations do, read on a worker for the page.
type pageNotes struct {
	// interrupted are the partial answers of interrupted steps (after
	// record i), shown dimmed where they were cut off.
	interrupted map[int][]message.Message
	// backtracks are the banners of the D-Mails whose markers the page
	// holds, by the backtrack generation each started.
	backtracks map[int]soul.Backtrack
	// pending: calls without a result are still running (a followed
	// codex or Claude Code file: itemBuilder.pending).
	pending bool
}

// notesFor reads the pageNotes of page, a whole view or a loaded part of
// session id's view.
func notesFor(ctx context.Context, db *store.DB, page store.View, gens []store.Generation) pageNotes {
	return pageNotes{interrupted: interruptedIn(ctx, db, page, gens), backtracks: backtracksIn(ctx, db, page, gens)}
}

// viewItemsWith is viewItems with what notes add: interrupted answers
// dimmed, D-Mail banners whole.
func viewItemsWith(v store.View, notes pageNotes) []views.Item {
	b := itemBuilder{backtracks: notes.backtracks, pending: notes.pending}
	for i, r := range v.Records {
		b.addInterrupted(notes.interrupted[i-1])
		b.add(r)
	}
	b.addInterrupted(notes.interrupted[len(v.Records)-1])
	items, _ := b.take()
	return items
}

// itemBuilder converts records to conversation items as they come, so a
// watcher converts only what a followed view gained: take returns the
// items since the last take and the results that arrived for tool calls
// an earlier take returned (to update those items in place).
type itemBuilder struct {
	taken   int            // items returned by earlier takes
	items   []views.Item   // items since the last take
	calls   map[string]int // tool call id → index among all items
	results []toolResult   // results for calls of earlier takes
	// backtracks replace the D-Mail markers of these backtrack generations
	// by their whole banner.
	backtracks map[int]soul.Backtrack
	// pending: a call whose result has not arrived is still running (the
	// writer saves calls before their results), not cut off.
	pending bool
}

// toolResult is what a tool result changes in its call's item.
type toolResult struct {
	id     string
	result string
	status views.ToolStatus
	images []string
}

// seed starts the builder after items, which a whole view read made.
func (b *itemBuilder) seed(items []views.Item) {
	*b = itemBuilder{taken: len(items), calls: map[string]int{}}
	for i, it := range items {
		if it.Kind == views.ItemTool && it.ID != "" {
			b.calls[it.ID] = i
		}
	}
}

// addInterrupted adds partial answers cut off by an interrupt, dimmed.
func (b *itemBuilder) addInterrupted(ms []message.Message) {
	for _, m := range ms {
		if t := strings.TrimSpace(m.Content.PlainText()); t != "" {
			b.items = append(b.items, views.Item{Kind: views.ItemAssistant, Text: t, Interrupted: true})
		}
	}
}

// add converts one record: user prompts, assistant text (reasoning
// folded), one item per tool call, its status from the matching result,
// and banners for what rewind itself injected; checkpoints are hidden.
func (b *itemBuilder) add(r store.Record) {
	if r.Kind != store.KindMessage {
		return
	}
	m, err := r.Message()
	if err != nil {
		return
	}
	switch m.Role {
	case "user":
		if bt, ok := b.backtracks[r.Gen]; ok && isDMail(m) {
			b.items = append(b.items, backtrackItem(bt, false))
		} else if it, ok := userItem(m); ok {
			b.items = append(b.items, it)
		}
	case "assistant":
		if th := strings.TrimSpace(m.Content.Reasoning()); th != "" {
			b.items = append(b.items, views.Item{Kind: views.ItemReasoning, Text: th})
		}
		if t := strings.TrimSpace(m.Content.PlainText()); t != "" {
			b.items = append(b.items, views.Item{Kind: views.ItemAssistant, Text: t})
		}
		for _, c := range m.ToolCalls {
			if b.calls == nil {
				b.calls = map[string]int{}
			}
			b.calls[c.ID] = b.taken + len(b.items)
			b.items = append(b.items, toolItem(c.ID, c.Name, c.Args))
		}
	case "tool":
		i, ok := b.calls[m.ToolCallID]
		if !ok {
			return
		}
		res := toolResult{id: m.ToolCallID, result: excerpt(m.Content.Prose()), status: views.ToolOK, images: imageLabels(m.Content.Images())}
		if k, _ := message.MarkerOf(m); k == message.MarkerToolError {
			res.status = views.ToolFailed
		}
		if i < b.taken {
			b.results = append(b.results, res)
			return
		}
		res.apply(&b.items[i-b.taken])
	case "system":
		// The system prompt is not part of a view; an imported one is not shown.
	}
}

// take returns the items since the last take — a call whose result has
// not arrived shows as failed, as it would in a view read now (a later
// result updates it), unless pending — and the results for calls of
// earlier takes.
func (b *itemBuilder) take() ([]views.Item, []toolResult) {
	items, results := b.items, b.results
	for i := range items {
		if items[i].Kind == views.ItemTool && items[i].Status == views.ToolRunning && !b.pending {
			items[i].Status = views.ToolFailed
			items[i].Result = "no result: the call did not complete"
		}
	}
	b.taken += len(items)
	b.items, b.results = nil, nil
	return items, results
}

// userItem converts a user message; false for checkpoint markers. What the
// soul wrote itself is recognised by its marker, never by its wording.
func userItem(m message.Message) (views.Item, bool) {
	kind, payload := message.MarkerOf(m)
	switch kind {
	case message.MarkerCheckpoint:
		return views.Item{}, false
	case message.MarkerTruncation:
		return views.Item{Kind: views.ItemBanner, Banner: views.BannerCompact, Text: payload}, true
	case message.MarkerCompaction:
		return views.Item{Kind: views.ItemBanner, Banner: views.BannerCompact,
			Text: "Compacted context — the earlier conversation (kept in an archived generation) is summarised:\n" + payload}, true
	case message.MarkerDMail:
		return views.Item{Kind: views.ItemBanner, Banner: views.BannerBacktrack, Text: "D-Mail from the future: " + payload}, true
	case message.MarkerSystemNote:
		return views.Item{Kind: views.ItemBanner, Banner: views.BannerInfo, Text: payload}, true
	}
	text := strings.TrimSpace(m.Content.Prose())
	imgs := imageLabels(m.Content.Images())
	if text == "" && len(imgs) == 0 {
		return views.Item{}, false
	}
	return views.Item{Kind: views.ItemUser, Text: text, Images: imgs}, true
}

// imageLabels are the conversation's lines for images: never their bytes.
func imageLabels(imgs []message.ImageInfo) []string {
	if len(imgs) == 0 {
		return nil
	}
	out := make([]string, len(imgs))
	for i, im := range imgs {
		out[i] = im.Label()
	}
	return out
}

// toolItem is the running one-liner of a tool call.
func toolItem(id, name, args string) views.Item {
	return views.Item{Kind: views.ItemTool, ID: id, ToolName: name, KeyArg: oneLine(tools.CallLabel(name, args), 80), Args: prettyArgs(args), Status: views.ToolRunning}
}

// dmailDelivered is what a delivered D-Mail's call shows instead of its
// own result. SendDMail answers "If you see this message, the D-Mail was
// not delivered" (kimi-cli's trick: the backtrack archives the call, so
// the model reads that only when it did not happen), which is false where
// a person reads it: the generation the backtrack archived, or the tool
// output pane of the run that sent it.
func dmailDelivered(newGen int) string {
	return fmt.Sprintf("Delivered: the conversation went back to the checkpoint and continues in generation %d, where the model read the D-Mail. "+
		"(This call's own result, which the model sees only when a D-Mail is not delivered, was: %s)", newGen, tools.DMailNotDelivered)
}

// markDMailDelivered rewrites the result of the last SendDMail call in
// items, the one a backtrack to generation newGen delivered.
func markDMailDelivered(items []views.Item, newGen int) {
	for i := len(items) - 1; i >= 0; i-- {
		if it := items[i]; it.Kind == views.ItemTool && it.ToolName == "SendDMail" {
			if it.Result == tools.DMailNotDelivered {
				items[i].Result = dmailDelivered(newGen)
			}
			return
		}
	}
}

// prettyArgs indents JSON arguments for the expanded tool call and the
// approval modal. Keys keep the model's order, and strings are decoded as
// far as JSON allows (`&&` stays `&&`, a "\u2800" escape becomes the
// character the modal names): the user reads what the tool will get.
// Anything but one JSON value is returned as it is.
func prettyArgs(args string) string {
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	var b strings.Builder
	if err := writeJSON(&b, dec, ""); err != nil {
		return args
	}
	if _, err := dec.Token(); err != io.EOF {
		return args
	}
	return b.String()
}

// writeJSON writes the next value of dec to b, indented by two spaces a
// level.
func writeJSON(b *strings.Builder, dec *json.Decoder, indent string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		closing := "}"
		if v == '[' {
			closing = "]"
		}
		b.WriteRune(rune(v))
		n := 0
		for ; dec.More(); n++ {
			if n > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n" + indent + "  ")
			if v == '{' {
				key, err := dec.Token()
				if err != nil {
					return err
				}
				writeJSONString(b, key.(string))
				b.WriteString(": ")
			}
			if err := writeJSON(b, dec, indent+"  "); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return err
		}
		if n > 0 {
			b.WriteString("\n" + indent)
		}
		b.WriteString(closing)
	case string:
		writeJSONString(b, v)
	case json.Number:
		b.WriteString(v.String())
	case bool:
		fmt.Fprint(b, v)
	case nil:
		b.WriteString("null")
	}
	return nil
}

// writeJSONString quotes s as JSON without HTML escapes.
func writeJSONString(b *strings.Builder, s string) {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Write(bytes.TrimSuffix(out.Bytes(), []byte("\n")))
}

func excerpt(s string) string {
	if len(s) <= resultExcerpt {
		return s
	}
	cut := resultExcerpt
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "\n…"
}

func oneLine(s string, n int) string {
	s = flat(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// flat is s on one line, whole: what a status message keeps (the bar cuts
// it to its width, /status lists it in full).
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// backtrackBanner is the conversation banner after a D-Mail.
func backtrackBanner(b soul.Backtrack) views.Item { return backtrackItem(b, true) }

// compactBanner is the conversation banner after a compaction.
func compactBanner(e soul.CompactionEnd) views.Item {
	return views.Item{Kind: views.ItemBanner, Banner: views.BannerCompact, Text: compactionText(e)}
}

// Limits of a D-Mail banner's quotes, as kimi-cli's backtrack display.
const (
	returnedToLimit = 200
	dmailNoteLimit  = 300
)

// backtrackItem is a D-Mail's banner: the checkpoint, what was discarded
// and kept, the prompt it returned to and the note as markdown. The live
// banner (undoHint) says how to undo it; the same banner on a reopened
// session does not, as the rewind may no longer be the last one.
func backtrackItem(b soul.Backtrack, undoHint bool) views.Item {
	it := views.Item{Kind: views.ItemBanner, Banner: views.BannerBacktrack, Text: backtrackText(b, undoHint)}
	if b.ReturnedTo != "" {
		it.Sections = append(it.Sections, views.Section{Label: "Returned to:", Text: oneLine(b.ReturnedTo, returnedToLimit)})
	}
	if note := strings.TrimSpace(b.Note); note != "" {
		it.Sections = append(it.Sections, views.Section{Label: "Note from the future:", Text: clipRunes(note, dmailNoteLimit), Markdown: true})
	}
	return it
}

// backtrackText is the first line of a D-Mail's banner.
func backtrackText(b soul.Backtrack, undoHint bool) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Backtracked to checkpoint %d · discarded %d %s (archived in generation %d)", b.CheckpointID, b.Discarded, words.Plural(b.Discarded, "message", "messages"), b.ArchivedGen)
	if b.Prompts > 0 {
		fmt.Fprintf(&sb, ", %d of them your %s", b.Prompts, words.Plural(b.Prompts, "prompt", "prompts"))
	}
	if b.FilesReverted {
		sb.WriteString(" · files reverted")
	}
	if b.FilesError != "" {
		fmt.Fprintf(&sb, " · files not reverted: %s", b.FilesError)
	}
	if undoHint {
		sb.WriteString(" · u in the timeline or /undo undoes it")
	}
	return sb.String()
}

// clipRunes cuts s to n runes, marking the cut with an ellipsis; unlike
// oneLine it keeps the line breaks (a note is markdown).
func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// compactionText is the banner after a compaction.
func compactionText(e soul.CompactionEnd) string {
	if e.Truncated {
		return fmt.Sprintf("Compaction could not summarise (%s): fell back to truncation, keeping the newest %d messages · generation %d archived, nothing lost · now %s tokens",
			e.Reason, e.Kept, e.ArchivedGen, views.FormatTokens(e.Tokens))
	}
	return fmt.Sprintf("Context compacted into generation %d · generation %d archived (nothing lost) · kept the last %d %s · now %s tokens",
		e.NewGen, e.ArchivedGen, e.Kept, words.Plural(e.Kept, "message", "messages"), views.FormatTokens(e.Tokens))
}

// interruptText is the banner after an interrupted step: what became of
// what it had streamed.
func interruptText(ev soul.StepInterrupted, sessionID string) string {
	what := "Interrupted"
	if ev.Where != "" {
		what += " " + ev.Where
	} else if r := strings.TrimSpace(ev.Reason); r != "" {
		what += " (" + r + ")"
	}
	switch {
	case ev.KeptGeneration > 0:
		return fmt.Sprintf("%s · the partial answer is kept in archived generation %d (not sent to the model; rewind show %s --generation %d shows it) · the session stays usable",
			what, ev.KeptGeneration, sessionID, ev.KeptGeneration)
	case ev.KeptFile != "":
		return what + " · another process holds the database: the answer is saved in " + ev.KeptFile +
			" and kept in an archived generation once the database is free (or at the next start) · the session stays usable"
	case ev.KeepError != "":
		return what + " · the partial answer could not be kept (" + oneLine(ev.KeepError, 80) + ") · the session stays usable"
	}
	return what + " · the partial step was discarded, nothing of it was saved · the session stays usable"
}

// retryText is the status shown while a step is retried.
func retryText(e soul.StepRetry) string {
	return fmt.Sprintf("retrying (retry %d of %d in %s: %s)", e.Attempt, e.Max, e.Wait.Round(100*time.Millisecond), oneLine(e.Reason, 80))
}

// todosText renders the model's todo list.
func todosText(todos []soul.Todo) string {
	var sb strings.Builder
	sb.WriteString("Todo list")
	for _, t := range todos {
		mark := "☐"
		switch st := strings.ToLower(t.Status); {
		case todoDone(st):
			mark = "☑"
		case st == "in_progress" || st == "in progress" || st == "doing" || st == "active":
			mark = "◐"
		}
		fmt.Fprintf(&sb, "\n%s %s", mark, t.Title)
	}
	return sb.String()
}

// checkpointRows appends the timeline rows of turns to rows: one per turn
// (its prompt), its steps folded under it ("after step 2 · Shell go test").
// Turns are numbered on from the last numbered row of rows (1 for the
// first): numberTurns moves the numbers of a page of a long view to the
// whole view's.
func checkpointRows(rows []views.CheckpointRow, turns []timetravel.Turn) []views.CheckpointRow {
	n := 0
	for i := len(rows) - 1; i >= 0 && n == 0; i-- {
		n = rows[i].TurnNo
	}
	for _, t := range turns {
		if t.Checkpoint >= 0 {
			n++
			rows = append(rows, views.CheckpointRow{ID: t.Checkpoint, Label: t.Label(), Time: t.Time, Tokens: t.Tokens, TurnNo: n})
		}
		for i, st := range t.Steps {
			label := "after the prompt, before any step"
			if i > 0 {
				label = "after " + t.Steps[i-1].String()
			}
			row := views.CheckpointRow{ID: st.Checkpoint, Label: label, Time: st.Time, Tokens: st.Tokens, Step: st.N, Turn: t.Checkpoint}
			if t.Checkpoint < 0 {
				row.Step = 0 // no turn row to fold under
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// numberTurns numbers the turn rows of rows, a page of a view, from the
// turns before the page (store.TurnsBefore); before < 0 (not known)
// unnumbers them.
func numberTurns(rows []views.CheckpointRow, before int) {
	for i := range rows {
		switch {
		case before < 0:
			rows[i].TurnNo = 0
		case rows[i].TurnNo > 0:
			rows[i].TurnNo += before
		}
	}
}

// turnRows is how many timeline rows turns make (a turn without a
// checkpoint before its prompt has none).
func turnRows(turns []timetravel.Turn) int {
	n := 0
	for _, t := range turns {
		if t.Checkpoint >= 0 {
			n++
		}
	}
	return n
}

// todoDone reports whether a todo status means finished (the status bar's
// count and the list's ☑ agree).
func todoDone(status string) bool {
	switch strings.ToLower(status) {
	case "done", "completed", "complete":
		return true
	}
	return false
}

// timelineModel builds the timeline pane's model from a view and the
// session's generations: one row per turn (its prompt), its steps folded
// under it ("after step 2 · Shell go test").
func timelineModel(v store.View, gens []store.Generation) views.TimelineModel {
	return timelineOf(timetravel.Turns(v), v.Generation.Gen, gens)
}

// timelineOf is timelineModel from turns already read; cur is the current
// generation.
func timelineOf(turns []timetravel.Turn, cur int, gens []store.Generation) views.TimelineModel {
	var m views.TimelineModel
	m.Position = -1
	m.Checkpoints = checkpointRows(nil, turns)
	for _, g := range gens {
		row := views.GenerationRow{Gen: g.Gen, ParentGen: -1, ForkCheckpoint: -1, Cause: string(g.Cause), Note: g.Note,
			Messages: g.Messages, Archived: g.Archived(), Current: g.Gen == cur, Time: g.CreatedAt}
		if g.ParentGen != nil && g.ParentSession == "" {
			row.ParentGen = *g.ParentGen
		}
		m.Generations = append(m.Generations, row)
	}
	sort.SliceStable(m.Generations, func(i, j int) bool { return m.Generations[i].Gen < m.Generations[j].Gen })
	return m
}
