package tui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/app/timetravel"
	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/filecp"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// Time travel in the workspace, one feature controller: the
// timeline pane, the Esc Esc picker, /revert, /restore, /undo and their
// dialogs. Moving the selection over a checkpoint previews the conversation
// as it was there; over an archived generation it shows that generation
// read-only. Every operation is planned, shown, applied and undone by
// app/timetravel, so the choices (conversation / + files / files only /
// force) and the words are the CLI's. u (timeline) and /undo undo the last
// rewind, conversation and files. A revert into a region a compaction
// replaced is refused with an offer to restore the generation the
// compaction archived.

// escEscWindow is how quickly the second Esc must follow the first.
const escEscWindow = 600 * time.Millisecond

// timeTravel owns the time-travel state (UI goroutine only).
type timeTravel struct {
	c timeTravelDeps

	previewing bool
	what       string       // what the preview shows, e.g. "checkpoint 3"
	live       []views.Item // the live conversation saved when the preview began
	reqSeq     uint64       // preview requests; a stale result is dropped

	// A reload that arrived during the preview, applied when it ends.
	heldItems   []views.Item
	heldValid   bool
	heldBanners []views.Item
	// missedLive: a watched writer's live events (streamed text, tool
	// calls, banners) arrived during the preview and were left out of it;
	// leaving it reads the live conversation again.
	missedLive bool

	escAt time.Time // the first Esc of an Esc Esc
	diff  *views.DiffView

	// returned is the prompt a revert to a turn put back in the input; a
	// later rewind (its undo) takes it out again if it is still there.
	returned string

	// A D-Mail of the running run that discarded prompts of the user:
	// when the run ends, one key undoes it.
	dmail *soul.Backtrack
}

// timeTravelDeps is what time travel reaches: the database and the dirs
// app/timetravel plans over, the widgets it previews in and moves the focus
// between, the typing guard of its dialogs, the open session, runs
// (startOp) and reloads, the session lists and the watcher (as functions:
// both are built after it), workers, the status line and notices.
type timeTravelDeps struct {
	featureCommon
	timeTravelHost
	*stepItems                 // where the step attempt's items start (apply.go)
	workDir     string         // Options.WorkDir
	fileOptions filecp.Options // Options.FileOptions
	input       *views.Input
	conv        *views.Conversation
	timeline    *views.Timeline
	tg          *typingGuard
	pg          *pager       // the window: a preview hides it, its markers with it
	reader      *viewReader  // reads a preview's page as the window reads its own
	lists       sessionLists // the sessions pane, re-listed after a rewind
	watched     liveCatcher  // reads what a watched session gained while a preview held the conversation
}

// liveCatcher is the watcher as time travel sees it (followview.go).
type liveCatcher interface {
	onWorkerCatchUp(o *openSession, cu catchUp, step int) bool
}

type timeTravelHost interface {
	isQuitting() bool
	startOp(op string, f func(ctx context.Context) error)
	onUIReload(ev evReload)
	onWorkerReload(banner *views.Item)
	onUIForkInto(id string, gen, cp int, banner func(fork string) string, then func())
}

// initTimeTravel wires the timeline, the Esc Esc picker and the commands
// (New).
func (c *Controller) initTimeTravel() {
	deps := timeTravelDeps{featureCommon: c.common(), timeTravelHost: c, stepItems: c.step, workDir: c.opts.WorkDir, fileOptions: c.opts.FileOptions,
		input: c.input, conv: c.conv, timeline: c.timeline, tg: c.tg,
		pg: c.pg, reader: c.reader, lists: c.br, watched: c.watch}
	t := c.tt // allocated by initFeatures: the pager, built before it, names it
	*t = timeTravel{c: deps, diff: views.NewDiffView()}
	t.diff.SetOnClose(func() { c.pages.pop("gendiff") })
	c.timeline.SetOnSelect(t.onUITimelineSelect)
	c.timeline.SetOnActivate(t.onUITimelineActivate)
	c.timeline.SetOnDiff(t.onUIGenerationDiff)
	c.timeline.SetOnRestore(func(g views.GenerationRow) { t.onUIRequestRestore(g.Gen) })
	c.timeline.SetOnFork(t.onUIGenerationFork)
	c.timeline.SetOnForkAt(t.onUICheckpointFork)
	c.timeline.SetOnUndo(t.onUIRequestUndo)
	// Leaving the timeline for another pane ends the preview; the
	// conversation (reading the preview) and overlays (the confirm dialog)
	// keep it.
	for _, p := range []interface{ SetFocusFunc(func()) *tview.Box }{c.input, c.toolOut, c.sessions} {
		p.SetFocusFunc(t.onUIEndPreview)
	}
	c.timeline.SetFocusFunc(func() {
		if !t.previewing {
			if it, ok := c.timeline.SelectedItem(); ok {
				t.onUITimelineSelect(it)
			}
		}
	})
	c.keys = append(c.keys, globalBinding{
		KeyBinding: views.KeyBinding{Keys: []views.Key{views.K(tcell.KeyEsc)}, Description: "Esc Esc: rewind picker (go back to before one of your prompts); Esc leaves a preview", Handler: t.onUIEsc, Visible: true},
		When: func() bool {
			f := c.app.GetFocus()
			return f == c.input && !c.input.WantsTab() || t.previewing && (f == c.timeline || f == c.conv)
		},
		DisabledWhen: []rule{ruleRunActive},
	})
	c.AddCommand(Command{Name: "/revert", Args: "N", Description: "go back to before checkpoint N (asks first; later messages are archived, not deleted; files optional)",
		DisabledWhen: rewindRules, Run: t.cmdRevert})
	c.AddCommand(Command{Name: "/restore", Args: "G", Description: "make archived generation G current again (asks first; files optional)",
		DisabledWhen: rewindRules, Run: t.cmdRestore})
	c.AddCommand(Command{Name: "/undo", Description: "undo the last revert, restore or D-Mail: conversation and files come back",
		DisabledWhen: rewindRules, Run: func(string) { t.onUIRequestUndo() }})
}

// canRewind reports whether none of rewindRules holds now.
func (t *timeTravel) canRewind() bool {
	for _, r := range rewindRules {
		if t.c.holds(r) {
			return false
		}
	}
	return true
}

// rewindRules disable the rewinds of the open session: revert, restore,
// undo (and the previews' Enter and r).
var rewindRules = []rule{ruleRunActive, ruleReadOnly}

// previewKeys is the key hint of a preview of a row of kind: a revert or
// a restore only where the session can be rewound now (a session watched
// or opened without a model offered "Enter revert", which was refused).
func (t *timeTravel) previewKeys(kind views.TimelineKind) string {
	rewinds := t.canRewind()
	switch {
	case kind == views.TimelineGeneration && rewinds:
		return "d diff · r restore · f fork · Esc back"
	case kind == views.TimelineGeneration:
		return "d diff · f fork · Esc back"
	case rewinds:
		return "Enter revert · f fork · Esc back"
	}
	return "f fork · Esc back"
}

// onUIEsc: Esc leaves a preview; Esc Esc in the input opens the picker.
func (t *timeTravel) onUIEsc() {
	c := t.c
	if t.previewing && c.app.GetFocus() != c.input {
		t.onUIEndPreview()
		c.app.SetFocus(c.input)
		return
	}
	at := c.tg.keyAt
	if at.IsZero() {
		at = time.Now()
	}
	if !t.escAt.IsZero() && at.Sub(t.escAt) < escEscWindow {
		t.escAt = time.Time{}
		t.onUIRewindPicker()
		return
	}
	t.escAt = at
}

// onUIRewindPicker focuses the timeline on the last turn (Esc Esc), which
// previews the conversation just before its prompt; ↑/↓ pick another turn,
// → unfolds its steps, Enter asks to revert.
func (t *timeTravel) onUIRewindPicker() {
	c := t.c
	m := c.timeline.Model()
	if len(m.Checkpoints) == 0 {
		c.setMessage("nothing to rewind yet: no checkpoints in this conversation", false)
		return
	}
	target := m.Checkpoints[len(m.Checkpoints)-1].ID
	for i := len(m.Checkpoints) - 1; i >= 0; i-- {
		if m.Checkpoints[i].Step == 0 {
			target = m.Checkpoints[i].ID
			break
		}
	}
	c.app.SetFocus(c.timeline)
	c.timeline.SelectCheckpoint(target)
	if it, ok := c.timeline.SelectedItem(); ok {
		t.onUITimelineSelect(it) // SelectCheckpoint does not fire when already selected
	}
	hint := "↑/↓ pick a turn · → steps · Enter reverts · f forks · Esc cancels" // the preview banner shows the conversation
	if !t.canRewind() {
		hint = "↑/↓ pick a turn · → steps · f forks · Esc cancels (read-only: no revert here)"
	}
	c.setMessage(hint, false)
}

// onUITimelineSelect previews the selected checkpoint or generation.
func (t *timeTravel) onUITimelineSelect(it views.TimelineItem) {
	c := t.c
	o := c.cur()
	if o == nil || c.app.GetFocus() != c.timeline {
		return
	}
	if c.refuse("the preview", ruleRunActive) {
		return
	}
	t.reqSeq++
	req := t.reqSeq
	id := o.sess.ID
	win := c.pg.win
	c.onWorker(func() {
		items, banner, err := t.onWorkerLoadPreview(id, it, win)
		c.onUIThreadAsync(func() {
			if req != t.reqSeq || c.app.GetFocus() != c.timeline && c.app.GetFocus() != c.conv && c.pages.top() == "" {
				return
			}
			if err != nil {
				c.setMessage("preview: "+err.Error(), true)
				return
			}
			t.onUIShowPreview(items, banner+" · "+t.previewKeys(it.Kind))
		})
	})
}

// onWorkerLoadPreview loads what a timeline row shows. A checkpoint in the
// loaded part of a long view (win) is previewed from it, without reading
// the whole view.
func (t *timeTravel) onWorkerLoadPreview(id string, it views.TimelineItem, win window) ([]views.Item, string, error) {
	c := t.c
	ctx := c.ctx
	if it.Kind == views.TimelineGeneration {
		v, err := c.db.GenerationView(ctx, id, it.Generation.Gen)
		if err != nil {
			return nil, "", err
		}
		items := viewItems(v)
		return items, generationPreview(it.Generation, items), nil
	}
	cp := it.Checkpoint.ID
	if win.session == id && (win.earlier > 0 || win.later > 0) {
		loaded := store.View{SessionID: id, Records: win.records}
		if i := timetravel.CheckpointIndex(loaded, cp); i >= 0 {
			loaded.Records = win.records[:i]
			// the later messages: the window's from the checkpoint on, and the view's after it
			return viewItems(loaded), previewBanner(cp, messagesIn(win.records[i:])+win.later), nil
		}
	}
	at, err := c.db.FindCheckpoint(ctx, id, -1, cp)
	if errors.Is(err, store.ErrCheckpointNotFound) {
		return nil, "", fmt.Errorf("checkpoint %d is no longer in the view", cp)
	}
	if err != nil {
		return nil, "", err
	}
	// the page before the checkpoint, as the window shows a view's tail
	v, err := c.db.ViewBefore(ctx, id, at.Generation.Gen, at.Pos, c.reader.sizes.tail)
	if err != nil {
		return nil, "", err
	}
	return viewItems(alignPage(v)), previewBanner(cp, at.Generation.Messages-at.MessagesBefore), nil
}

// generationPreview is the banner of generation g's preview, whose items
// it marks where a D-Mail was delivered.
func generationPreview(g views.GenerationRow, items []views.Item) string {
	what := fmt.Sprintf("ARCHIVED generation %d · %s", g.Gen, g.Cause)
	if g.ArchivedBy != "" {
		what += fmt.Sprintf(" · archived by %s in gen %d", g.ArchivedBy, g.ArchivedIn)
	}
	if g.ArchivedNote != "" {
		what += ": " + oneLine(g.ArchivedNote, 60)
	}
	if same := g.SameAsText(); same != "" {
		what += " · " + same
	}
	if !g.Archived || g.Current {
		what = fmt.Sprintf("generation %d (current)", g.Gen)
	}
	if g.ArchivedBy == string(store.CauseBacktrack) {
		markDMailDelivered(items, g.ArchivedIn)
	}
	return what + fmt.Sprintf(" · %d msgs · read-only", g.Messages) // and previewKeys
}

// onWorkerArchivedHit shows archived generation at.gen of session id
// around a search hit's record, the hit marked, as the timeline's preview
// of the generation (its row selected there, so d / r / f act on it): the
// pages around the hit only (store.ViewAround), not the whole generation.
// The current view is loaded first (onWorkerReloadAt), so Esc goes back
// to it.
func (t *timeTravel) onWorkerArchivedHit(id string, at hitAt) {
	c := t.c
	v, err := c.db.ViewAround(c.ctx, id, at.gen, at.pos, c.reader.sizes.hit, c.reader.sizes.hit)
	if err != nil {
		c.post(evNote{text: "cannot show the search hit: " + err.Error(), isErr: true})
		return
	}
	v, i := alignAround(v, at.pos)
	items := viewItems(v)
	mark := -1
	if i >= 0 {
		mark = hitItem(v.Records, i, items)
	}
	w := windowOf(v)
	c.post(evFunc{f: func() { // after the current view's reload: the timeline has the generation's row
		o := c.cur()
		if o == nil || o.sess.ID != id {
			return
		}
		g := views.GenerationRow{Gen: at.gen, Archived: true} // until the timeline names its cause
		for _, r := range c.timeline.Model().Generations {
			if r.Gen == at.gen {
				g = r
			}
		}
		banner := generationPreview(g, items)
		if n := w.earlier + w.later; n > 0 {
			banner = fmt.Sprintf("%s · at the search hit: %s other %s not shown", banner, words.Thousands(n), words.Plural(n, "message", "messages"))
		}
		banner += " · " + t.previewKeys(views.TimelineGeneration)
		c.pages.focusWorkspace(c.conv)
		c.timeline.SelectGeneration(at.gen)
		t.onUIShowPreview(items, banner)
		c.conv.Mark(mark)
		c.setMessage(fmt.Sprintf("search hit in archived generation %d (read-only) · Esc: the current conversation · Tab: the timeline for d / r / f", at.gen), false)
	}})
}

// previewBanner is the banner of the preview before checkpoint cp, with
// later messages after it (previewKeys follows it).
func previewBanner(cp, later int) string {
	return fmt.Sprintf("PREVIEW · before checkpoint %d · %s later %s not shown", cp, words.Thousands(later), words.Plural(later, "message", "messages"))
}

// onUIShowPreview puts a preview in the conversation pane, saving the live
// conversation the first time.
func (t *timeTravel) onUIShowPreview(items []views.Item, banner string) {
	c := t.c
	if !t.previewing {
		t.live = convItems(c.conv, c.conv.Len())
		t.previewing = true
		t.heldValid, t.heldItems, t.heldBanners = false, nil, nil
	}
	t.what = banner
	c.conv.SetItems(items)
	c.pg.showWindowMarker()
	c.conv.SetPreview(banner)
	c.conv.ScrollToEnd()
}

// onUIEndPreview gives the conversation pane back to the live view (and
// applies what a reload brought meanwhile).
func (t *timeTravel) onUIEndPreview() {
	c := t.c
	t.reqSeq++ // drop previews still loading
	if !t.previewing {
		return
	}
	t.previewing = false
	c.pg.showWindowMarker()
	c.conv.SetPreview("")
	if t.heldValid {
		c.conv.SetItems(t.heldItems)
	} else {
		c.conv.SetItems(t.live)
	}
	c.conv.Append(t.heldBanners...)
	c.markStepStart()
	t.live, t.heldItems, t.heldBanners, t.heldValid = nil, nil, nil, false
	c.conv.ScrollToEnd()
	if t.missedLive {
		t.missedLive = false
		if o := c.cur(); o != nil {
			c.onWorker(func() { c.watched.onWorkerCatchUp(o, catchUp{conv: true, force: true}, -1) })
		}
	}
}

// frozen reports whether a live event must stay out of the conversation
// because a preview shows there (a watcher previews while its writer
// runs), or the records around a search hit that stop short of the end
// (window.go): the preview stays as it was and its end reads the live
// view; the window's last page brings the committed records.
func (t *timeTravel) frozen(e soul.Event) bool {
	if !t.previewing && t.c.pg.win.later == 0 {
		return false
	}
	switch e.(type) {
	case soul.ContentPart, soul.ReasoningPart, soul.ToolCall, soul.CompactionBegin,
		soul.StepInterrupted, soul.Error, soul.LoopWarning:
		if t.previewing {
			t.missedLive = true
		}
		return true
	}
	return false
}

// liveItems is the conversation a preview hides: what a reload brought
// meanwhile, else the one saved when it began.
func (t *timeTravel) liveItems() []views.Item {
	if t.heldValid {
		return t.heldItems
	}
	return t.live
}

// holdDuringPreview keeps a reload's conversation part for later while a
// preview is shown (onUIReload calls it first); the timeline and status
// still update.
func (t *timeTravel) holdDuringPreview(ev evReload) evReload {
	if !t.previewing {
		return ev
	}
	if !ev.keepConv {
		t.heldItems, t.heldValid, t.heldBanners = ev.items, true, nil
	}
	if ev.banner != nil {
		t.heldBanners = append(t.heldBanners, *ev.banner)
	}
	ev.keepConv, ev.items, ev.banner = true, nil, nil
	return ev
}

// onUITimelineActivate: Enter on a checkpoint asks to revert; on a
// generation it moves to the conversation to read it.
func (t *timeTravel) onUITimelineActivate(it views.TimelineItem) {
	c := t.c
	if it.Kind == views.TimelineGeneration {
		if t.previewing {
			c.app.SetFocus(c.conv)
			c.setMessage(fmt.Sprintf("reading generation %d · Tab back to the timeline for d / r / f", it.Generation.Gen), false)
		}
		return
	}
	t.onUIRequestRevert(it.Checkpoint.ID)
}

// cmdRevert is /revert N: the same dialog as the timeline.
func (t *timeTravel) cmdRevert(arg string) {
	n, err := strconv.Atoi(strings.TrimSpace(arg))
	if err != nil || n < 0 {
		t.c.setMessage("usage: /revert N — N is a checkpoint number from the timeline", true)
		return
	}
	t.onUIRequestRevert(n)
}

// cmdRestore is /restore G: the same dialog as r in the timeline.
func (t *timeTravel) cmdRestore(arg string) {
	n, err := strconv.Atoi(strings.TrimSpace(arg))
	if err != nil || n < 0 {
		t.c.setMessage("usage: /restore G — G is a generation number from the timeline", true)
		return
	}
	t.onUIRequestRestore(n)
}

// env is where the open session's rewinds run: the same file options (the
// file size cap) as the agent's tracker.
func (t *timeTravel) env(o *openSession) timetravel.Env {
	return timetravel.Env{DB: t.c.db, Session: o.sess, WorkDir: t.c.workDir, Files: t.c.fileOptions}
}

// writable returns the open session when it can be rewound, or says why
// not.
func (t *timeTravel) writable(what string) (*openSession, bool) {
	c := t.c
	o := c.cur()
	switch {
	case o == nil:
		c.setMessage("nothing to "+what+" yet: the session is empty", false)
	case c.refuse(what, ruleReadOnly, ruleRunActive):
	case o.soul == nil: // read-only: refused above
	default:
		return o, true
	}
	return nil, false
}

// onUIRequestRevert plans a revert to checkpoint n on a worker and asks; a
// checkpoint in a compacted region is refused with an offer to restore.
func (t *timeTravel) onUIRequestRevert(n int) {
	c := t.c
	o, ok := t.writable("revert")
	if !ok {
		return
	}
	c.onWorker(func() {
		ctx := c.ctx
		p, err := timetravel.PlanRevert(ctx, t.env(o), n, timetravel.Check{Files: true, Diffs: true})
		var compacted *timetravel.CompactedError
		if errors.As(err, &compacted) {
			c.onUIThreadAsync(func() { t.onUIRefuseCompacted(n, compacted.Source) })
			return
		}
		if errors.Is(err, store.ErrCheckpointNotFound) {
			c.post(evNote{text: fmt.Sprintf("checkpoint %d is not in this conversation (the timeline lists them)", n), isErr: true})
			return
		}
		if err != nil {
			c.post(evNote{text: "revert: " + err.Error(), isErr: true})
			return
		}
		c.onUIThreadAsync(func() { t.onUIConfirm(o, p) })
	})
}

// onUIRequestRestore plans making generation gen current again and asks.
func (t *timeTravel) onUIRequestRestore(gen int) {
	c := t.c
	wanted := c.tg.stillWanted() // r typed in a word: no dialog
	o, ok := t.writable("restore")
	if !ok {
		return
	}
	c.onWorker(func() {
		p, err := timetravel.PlanRestore(c.ctx, t.env(o), gen, timetravel.Check{Files: true, Diffs: true})
		switch {
		case errors.Is(err, store.ErrGenerationNotFound):
			c.post(evNote{text: fmt.Sprintf("generation %d does not exist (the timeline lists them)", gen), isErr: true})
		case err != nil:
			c.post(evNote{text: "restore: " + err.Error(), isErr: true})
		case p.Nothing != "":
			c.post(evNote{text: p.Nothing})
		default:
			c.onUIThreadAsync(func() {
				if wanted() {
					t.onUIConfirm(o, p)
				}
			})
		}
	})
}

// onUIRequestUndo plans undoing the last rewind and asks (u, /undo).
func (t *timeTravel) onUIRequestUndo() {
	c := t.c
	wanted := c.tg.stillWanted() // u typed in a word: no dialog
	o, ok := t.writable("undo")
	if !ok {
		return
	}
	c.onWorker(func() {
		p, err := timetravel.PlanUndo(c.ctx, t.env(o), timetravel.Check{Files: true, Diffs: true})
		switch {
		case err != nil:
			c.post(evNote{text: "undo: " + err.Error(), isErr: true})
		case p.Nothing != "":
			c.post(evNote{text: p.Nothing})
		default:
			c.onUIThreadAsync(func() {
				if wanted() {
					t.onUIConfirm(o, p)
				}
			})
		}
	})
}

// The dialog's choices; the same keys for every operation.
var (
	choiceConversation = views.Choice{Label: "Conversation only", Key: 'c'}
	choiceBoth         = views.Choice{Label: "Conversation + files", Key: 'b'}
	choiceFiles        = views.Choice{Label: "Files only", Key: 'f'}
	choiceForce        = views.Choice{Label: "Force: overwrite conflicting files", Key: 'F', Dangerous: true}
	choiceDiffs        = views.Choice{Label: "Show file diffs", Key: 'd'}
	choiceCancel       = views.Choice{Label: "Cancel", Key: 'n'}
)

// choicesFor lists what the dialog offers for p: files only when a file
// would change, force only when a file conflicts.
func choicesFor(p timetravel.Plan) []views.Choice {
	var out []views.Choice
	conv := p.MovesConversation()
	if conv {
		out = append(out, choiceConversation)
	}
	if p.FilesChange() {
		if conv {
			out = append(out, choiceBoth)
		}
		out = append(out, choiceFiles)
		if len(p.Files.Conflicts) > 0 {
			out = append(out, choiceForce)
		}
		if len(p.Files.Diffs) > 0 {
			out = append(out, choiceDiffs)
		}
	}
	if conv && p.FilesChange() {
		// Every operation moves both by default (Enter), as Claude Code's
		// rewind offers code and conversation first: a conversation moved
		// without its files leaves the agent believing edits that are not
		// on disk (or missing ones that are). Files first in the list.
		out[0], out[1] = out[1], out[0]
	}
	return append(out, choiceCancel)
}

// onUIConfirm shows the plan and its choices.
func (t *timeTravel) onUIConfirm(o *openSession, p timetravel.Plan) {
	c := t.c
	choices := choicesFor(p)
	q := p.Question(8)
	if p.Kind == timetravel.Revert && p.ReturnTo != "" && strings.TrimSpace(c.input.Text()) != "" && c.input.Text() != t.returned {
		q += "\nThe prompt replaces your draft in the input; ↑ there brings the draft back."
	}
	c.showConfirm(p.Title(), q, choices, 0, func(i int) {
		if i < 0 || i >= len(choices) {
			return
		}
		var ch timetravel.Choice
		switch choices[i].Key {
		case 'c':
			ch = timetravel.ConversationOnly
		case 'b':
			ch = timetravel.ConversationAndFiles
		case 'f':
			ch = timetravel.FilesOnly
		case 'F':
			ch = timetravel.Choice{Conversation: p.MovesConversation(), Files: true, Force: true}
		case 'd':
			t.onUIShowFileDiffs(o, p)
			return
		default:
			return
		}
		t.onUIApply(o, p, ch)
	})
}

// onUIShowFileDiffs shows what the files half would write; closing it
// returns to the dialog.
func (t *timeTravel) onUIShowFileDiffs(o *openSession, p timetravel.Plan) {
	c := t.c
	t.diff.SetTheme(c.currentTheme())
	t.diff.SetDiff(fmt.Sprintf("Files: now → %s · Esc returns to the question", strings.TrimPrefix(p.FilesTitle(false), "files to ")), views.ParseUnifiedDiff(timetravel.Diffs(*p.Files)))
	c.pages.push(Page{Name: "gendiff", Primitive: t.diff, Stop: func() {
		// After the pop has restored the focus, reopen the question.
		c.onUIThreadAsync(func() { t.onUIConfirm(o, p) })
	}})
}

// onUIApply carries out a confirmed plan on a worker (the conversation
// through the soul, so its state follows) and reloads with a banner that
// says what happened and that u undoes it. A revert to a turn puts its
// prompt back in the input.
func (t *timeTravel) onUIApply(o *openSession, p timetravel.Plan, ch timetravel.Choice) {
	c := t.c
	if o.soul == nil || c.holds(ruleRunActive) {
		return
	}
	t.onUIEndPreview()
	input := c.input
	prev := c.statusModel().Generation
	c.startOp(strings.ToLower(p.Title()), func(ctx context.Context) error {
		res, err := timetravel.Apply(ctx, t.env(o), o.soul, p, ch)
		var conflict *timetravel.ConflictError
		switch {
		case errors.As(err, &conflict):
			return errors.New(conflict.Text("choose Force to overwrite"))
		case errors.Is(err, store.ErrCompactedRegion):
			return fmt.Errorf("checkpoint %d lies before a compaction; restore the generation before it instead", p.Checkpoint)
		case err != nil:
			return err
		}
		banner := &views.Item{Kind: views.ItemBanner, Banner: views.BannerBacktrack, Text: resultText(res)}
		if res.Gen == nil {
			// The timeline is a widget: read its model on the UI goroutine.
			c.onUIThreadAsync(func() {
				c.onUIReload(evReload{keepConv: true, banner: banner, timeline: c.timeline.Model(), gen: prev})
			})
			return nil
		}
		c.onWorkerReload(banner)
		c.onUIThreadAsync(func() {
			if t.returned != "" && input.Text() == t.returned {
				input.SetText("") // the undo of the revert that put it there
			}
			t.returned = ""
			if p.Kind == timetravel.Revert && p.ReturnTo != "" {
				input.Stash() // a draft goes to the input history, as the dialog said
				input.SetText(p.ReturnTo)
				t.returned = p.ReturnTo
			}
		})
		return nil
	})
	c.app.SetFocus(c.input)
}

// resultText is the banner after a rewind: the CLI's lines joined, with
// the workspace's way to undo.
func resultText(res timetravel.Result) string {
	lines := res.Lines("u in the timeline or /undo")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	s := strings.Join(lines, " · ")
	return strings.ToUpper(s[:1]) + s[1:]
}

// onUIRefuseCompacted explains why checkpoint n cannot be reverted to and
// offers to restore the generation the compaction archived.
func (t *timeTravel) onUIRefuseCompacted(n, src int) {
	msg := fmt.Sprintf("Checkpoint %d lies in the part of the conversation that compaction replaced with a summary: the model's context no longer holds it, so it cannot be reverted to.\n\nThe original conversation is kept as archived generation %d. Restore it instead (the current, compacted conversation is archived in turn; nothing is lost)?", n, src)
	t.c.showConfirm("Cannot revert into a compacted region", msg, []views.Choice{
		{Label: fmt.Sprintf("Restore generation %d", src), Key: 'r'},
		choiceCancel,
	}, 0, func(i int) {
		if i == 0 {
			t.onUIRequestRestore(src)
		}
	})
}

// onUIGenerationDiff shows the messages added and removed between an
// archived generation and the current view.
func (t *timeTravel) onUIGenerationDiff(g views.GenerationRow) {
	c := t.c
	o := c.cur()
	if o == nil {
		return
	}
	wanted := c.tg.stillWanted() // d typed in a word: no diff
	id := o.sess.ID
	c.onWorker(func() {
		ctx := c.ctx
		old, err := c.db.GenerationView(ctx, id, g.Gen)
		if err != nil {
			c.post(evNote{text: "diff: " + err.Error(), isErr: true})
			return
		}
		cur, err := c.db.View(ctx, id)
		if err != nil {
			c.post(evNote{text: "diff: " + err.Error(), isErr: true})
			return
		}
		lines := genDiff(diffMessages(old), diffMessages(cur))
		title := fmt.Sprintf("Diff: generation %d (%s) → current generation %d · − only in %d · + only in the current view", g.Gen, g.Cause, cur.Generation.Gen, g.Gen)
		c.onUIThreadAsync(func() {
			if wanted() {
				t.onUIShowDiff(title, lines)
			}
		})
	})
}

// onUIShowDiff opens the diff overlay.
func (t *timeTravel) onUIShowDiff(title string, lines []views.DiffLine) {
	c := t.c
	t.diff.SetTheme(c.currentTheme())
	t.diff.SetDiff(title, lines)
	c.pages.push(Page{Name: "gendiff", Primitive: t.diff})
}

// onUIGenerationFork asks, then forks an archived generation into a new
// session and switches the workspace to it: f typed in a word (fix…) must
// not fork, and the question's grace tells typing from a choice.
func (t *timeTravel) onUIGenerationFork(g views.GenerationRow) {
	t.c.showConfirm("Fork generation", fmt.Sprintf("Fork generation %d into a new session and switch to it? This session stays as it is.", g.Gen), []views.Choice{
		{Label: "Fork into a new session", Key: 'f'},
		choiceCancel,
	}, 0, func(i int) {
		if i == 0 {
			t.onUIForkNow(g)
		}
	})
}

// onUIForkNow forks generation g (onUIGenerationFork).
func (t *timeTravel) onUIForkNow(g views.GenerationRow) {
	c := t.c
	o := c.cur()
	if o == nil {
		return
	}
	if c.refuse("forking", ruleRunActive) {
		return
	}
	t.onUIEndPreview()
	src := o.sess.ID
	c.onUIForkInto(src, g.Gen, -1, func(fork string) string {
		return fmt.Sprintf("Forked generation %d of session %s into this new session %s: yours to continue; the original is unchanged.", g.Gen, shortID(src), shortID(fork))
	}, func() {
		c.onWorker(c.lists.onWorkerListPane)
		c.app.SetFocus(c.input)
	})
}

// onUICheckpointFork asks, then forks the current view as it was before
// checkpoint cp into a new session (titled "fork of <title> @ checkpoint
// N" in the lists) and switches the workspace to it: f on a checkpoint row.
func (t *timeTravel) onUICheckpointFork(cp views.CheckpointRow) {
	c := t.c
	o := c.cur()
	if o == nil {
		return
	}
	src := o.sess.ID
	c.showConfirm("Fork at a checkpoint", fmt.Sprintf("Fork the conversation before checkpoint %d into a new session and switch to it? This session stays as it is.", cp.ID), []views.Choice{
		{Label: "Fork into a new session", Key: 'f'},
		choiceCancel,
	}, 0, func(i int) {
		if i != 0 {
			return
		}
		if c.refuse("forking", ruleRunActive) {
			return
		}
		t.onUIEndPreview()
		c.onUIForkInto(src, -1, cp.ID, func(fork string) string {
			return fmt.Sprintf("Forked session %s at checkpoint %d into this new session %s: the conversation before it, yours to continue; the original is unchanged.", shortID(src), cp.ID, shortID(fork))
		}, func() {
			c.onWorker(c.lists.onWorkerListPane)
			c.app.SetFocus(c.input)
		})
	})
}

// noteBacktrack remembers a D-Mail that discarded prompts of the user, to
// offer its undo when the run ends (nothing can be undone during a run).
func (t *timeTravel) noteBacktrack(ev soul.Backtrack) {
	if ev.Prompts > 0 {
		t.dmail = &ev
	}
}

// onUIRunDone offers the one-key undo of a D-Mail that discarded prompts.
func (t *timeTravel) onUIRunDone() {
	ev := t.dmail
	t.dmail = nil
	if ev == nil || t.c.isQuitting() {
		return
	}
	msg := fmt.Sprintf("The model sent a D-Mail back to checkpoint %d: %d %s left the conversation, %d of them your %s (kept in archived generation %d).",
		ev.CheckpointID, ev.Discarded, words.Plural(ev.Discarded, "message", "messages"), ev.Prompts, words.Plural(ev.Prompts, "prompt", "prompts"), ev.ArchivedGen)
	if ev.ReturnedTo != "" {
		msg += "\nFirst prompt discarded: “" + oneLine(ev.ReturnedTo, 100) + "”"
	}
	msg += "\n\nUndo it to bring the conversation back (and the files, if the D-Mail moved them); u in the timeline or /undo does the same later."
	choices := []views.Choice{{Label: "Undo the D-Mail", Key: 'u'}, {Label: "Keep", Key: 'k'}}
	t.c.showConfirm("D-Mail discarded your prompts", msg, choices, 1, func(i int) {
		if i == 0 {
			t.onUIUndoNow()
		}
	})
}

// onUIUndoNow undoes the last rewind with everything it moved (the D-Mail
// offer: one key, no second question unless files conflict).
func (t *timeTravel) onUIUndoNow() {
	c := t.c
	o, ok := t.writable("undo")
	if !ok {
		return
	}
	c.onWorker(func() {
		p, err := timetravel.PlanUndo(c.ctx, t.env(o), timetravel.CheckFiles)
		switch {
		case err != nil:
			c.post(evNote{text: "undo: " + err.Error(), isErr: true})
		case p.Nothing != "":
			c.post(evNote{text: p.Nothing})
		case p.Files != nil && len(p.Files.Conflicts) > 0:
			c.onUIThreadAsync(func() { t.onUIConfirm(o, p) }) // ask about the conflicts
		default:
			c.onUIThreadAsync(func() { t.onUIApply(o, p, timetravel.Choice{Conversation: true, Files: p.FilesChange()}) })
		}
	})
}
