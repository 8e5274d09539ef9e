package tui

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/soul/filecp"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// Time travel in the workspace (DESIGN §4): the timeline pane's
// interactions. Moving the selection over a checkpoint previews the
// conversation as it was there; over an archived generation it shows that
// generation read-only. Enter on a checkpoint asks to revert (conversation
// only, conversation + files, files only, with the files listed), Esc Esc in
// the input opens the same picker at the last user message, and d / r / f
// diff, restore and fork an archived generation. A revert into a region a
// compaction replaced is refused with an offer to restore the generation
// the compaction archived.

// escEscWindow is how quickly the second Esc must follow the first.
const escEscWindow = 600 * time.Millisecond

// timeTravel is the controller's time-travel state (UI goroutine only).
type timeTravel struct {
	previewing bool
	what       string       // what the preview shows, e.g. "checkpoint 3"
	live       []views.Item // the live conversation saved when the preview began
	reqSeq     uint64       // preview requests; a stale result is dropped

	// A reload that arrived during the preview, applied when it ends.
	heldItems   []views.Item
	heldValid   bool
	heldBanners []views.Item

	escAt time.Time // the first Esc of an Esc Esc
	diff  *views.DiffView
}

// initTimeTravel wires the timeline, the Esc Esc picker and /revert (New).
func (c *Controller) initTimeTravel() {
	c.tt.diff = views.NewDiffView()
	c.tt.diff.SetOnClose(func() { c.pages.pop("gendiff") })
	c.timeline.SetOnSelect(c.onUITimelineSelect)
	c.timeline.SetOnActivate(c.onUITimelineActivate)
	c.timeline.SetOnDiff(c.onUIGenerationDiff)
	c.timeline.SetOnRestore(c.onUIGenerationRestore)
	c.timeline.SetOnFork(c.onUIGenerationFork)
	// Leaving the timeline for another pane ends the preview; the
	// conversation (reading the preview) and overlays (the confirm dialog)
	// keep it.
	for _, p := range []interface{ SetFocusFunc(func()) *tview.Box }{c.input, c.toolOut, c.sessions} {
		p.SetFocusFunc(c.onUIEndPreview)
	}
	c.timeline.SetFocusFunc(func() {
		if !c.tt.previewing {
			if it, ok := c.timeline.SelectedItem(); ok {
				c.onUITimelineSelect(it)
			}
		}
	})
	c.keys = append(c.keys, globalBinding{
		KeyBinding: views.KeyBinding{Keys: []views.Key{views.K(tcell.KeyEsc)}, Description: "Esc Esc: rewind picker (revert to an earlier message); Esc leaves a preview", Handler: c.onUIEsc, Visible: true},
		When: func() bool {
			f := c.app.GetFocus()
			return c.busy == "" && (f == c.input && !c.input.WantsTab() || c.tt.previewing && (f == c.timeline || f == c.conv))
		},
	})
	c.AddCommand(Command{Name: "/revert", Args: "N", Description: "go back to before checkpoint N (asks first; later messages are archived, not deleted; files optional)",
		ChangesContext: true, Writes: true, Run: c.cmdRevertConfirm})
}

// onUIEsc: Esc leaves a preview; Esc Esc in the input opens the picker.
func (c *Controller) onUIEsc() {
	if c.tt.previewing && c.app.GetFocus() != c.input {
		c.onUIEndPreview()
		c.app.SetFocus(c.input)
		return
	}
	if !c.tt.escAt.IsZero() && time.Since(c.tt.escAt) < escEscWindow {
		c.tt.escAt = time.Time{}
		c.onUIRewindPicker()
		return
	}
	c.tt.escAt = time.Now()
}

// onUIRewindPicker focuses the timeline on the checkpoint before the last
// user message (Esc Esc), which previews it; Enter reverts.
func (c *Controller) onUIRewindPicker() {
	m := c.timeline.Model()
	if len(m.Checkpoints) == 0 {
		c.setMessage("nothing to rewind yet: no checkpoints in this conversation", false)
		return
	}
	target := m.Checkpoints[len(m.Checkpoints)-1].ID
	for i := len(m.Checkpoints) - 1; i >= 0; i-- {
		l := m.Checkpoints[i].Label
		if l != "" && !strings.HasPrefix(l, "step: ") && !strings.HasPrefix(l, "answer: ") {
			target = m.Checkpoints[i].ID
			break
		}
	}
	c.app.SetFocus(c.timeline)
	c.timeline.SelectCheckpoint(target)
	if it, ok := c.timeline.SelectedItem(); ok {
		c.onUITimelineSelect(it) // SelectCheckpoint does not fire when already selected
	}
	c.setMessage("rewind: ↑/↓ choose a checkpoint (the conversation shows it) · Enter reverts · Esc cancels", false)
}

// onUITimelineSelect previews the selected checkpoint or generation.
func (c *Controller) onUITimelineSelect(it views.TimelineItem) {
	o := c.cur()
	if o == nil || c.app.GetFocus() != c.timeline {
		return
	}
	if c.busy != "" {
		c.setMessage("the preview is available when the run has finished", false)
		return
	}
	c.tt.reqSeq++
	req := c.tt.reqSeq
	id := o.sess.ID
	c.onWorker(func() {
		items, banner, err := c.onWorkerLoadPreview(id, it)
		c.onUIThreadAsync(func() {
			if req != c.tt.reqSeq || c.app.GetFocus() != c.timeline && c.app.GetFocus() != c.conv && c.pages.top() == "" {
				return
			}
			if err != nil {
				c.setMessage("preview: "+err.Error(), true)
				return
			}
			c.onUIShowPreview(items, banner)
		})
	})
}

// onWorkerLoadPreview loads what a timeline row shows.
func (c *Controller) onWorkerLoadPreview(id string, it views.TimelineItem) ([]views.Item, string, error) {
	ctx := c.ctx
	if it.Kind == views.TimelineGeneration {
		g := it.Generation
		v, err := c.db.GenerationView(ctx, id, g.Gen)
		if err != nil {
			return nil, "", err
		}
		what := fmt.Sprintf("ARCHIVED generation %d · %s", g.Gen, g.Cause)
		if g.Note != "" {
			what += " · " + oneLine(g.Note, 60)
		}
		if !g.Archived || g.Current {
			what = fmt.Sprintf("generation %d (current)", g.Gen)
		}
		return viewItems(v), what + fmt.Sprintf(" · %d msgs · read-only · d diff · r restore · f fork · Esc back", g.Messages), nil
	}
	v, err := c.db.View(ctx, id)
	if err != nil {
		return nil, "", err
	}
	cp := it.Checkpoint.ID
	p, ok := planRevert(v, cp)
	if !ok {
		return nil, "", fmt.Errorf("checkpoint %d is no longer in the view", cp)
	}
	banner := fmt.Sprintf("PREVIEW · before checkpoint %d · %d later %s not shown · Enter revert · Esc back", cp, p.archived, plural(p.archived, "message", "messages"))
	return viewItems(viewBefore(v, cp)), banner, nil
}

// onUIShowPreview puts a preview in the conversation pane, saving the live
// conversation the first time.
func (c *Controller) onUIShowPreview(items []views.Item, banner string) {
	if !c.tt.previewing {
		c.tt.live = c.convItems(c.conv.Len())
		c.tt.previewing = true
		c.tt.heldValid, c.tt.heldItems, c.tt.heldBanners = false, nil, nil
	}
	c.tt.what = banner
	c.conv.SetItems(items)
	c.conv.SetPreview(banner)
	c.conv.ScrollToEnd()
}

// onUIEndPreview gives the conversation pane back to the live view (and
// applies what a reload brought meanwhile).
func (c *Controller) onUIEndPreview() {
	c.tt.reqSeq++ // drop previews still loading
	if !c.tt.previewing {
		return
	}
	c.tt.previewing = false
	c.conv.SetPreview("")
	if c.tt.heldValid {
		c.conv.SetItems(c.tt.heldItems)
	} else {
		c.conv.SetItems(c.tt.live)
	}
	c.conv.Append(c.tt.heldBanners...)
	c.stepStart = c.conv.Len()
	c.tt.live, c.tt.heldItems, c.tt.heldBanners, c.tt.heldValid = nil, nil, nil, false
	c.conv.ScrollToEnd()
}

// holdDuringPreview keeps a reload's conversation part for later while a
// preview is shown (onUIReload calls it first); the timeline and status
// still update.
func (c *Controller) holdDuringPreview(ev evReload) evReload {
	if !c.tt.previewing {
		return ev
	}
	if !ev.keepConv {
		c.tt.heldItems, c.tt.heldValid, c.tt.heldBanners = ev.items, true, nil
	}
	if ev.banner != nil {
		c.tt.heldBanners = append(c.tt.heldBanners, *ev.banner)
	}
	ev.keepConv, ev.items, ev.banner = true, nil, nil
	return ev
}

// onUITimelineActivate: Enter on a checkpoint asks to revert; on a
// generation it moves to the conversation to read it.
func (c *Controller) onUITimelineActivate(it views.TimelineItem) {
	if it.Kind == views.TimelineGeneration {
		if c.tt.previewing {
			c.app.SetFocus(c.conv)
			c.setMessage(fmt.Sprintf("reading generation %d · Tab back to the timeline for d / r / f", it.Generation.Gen), false)
		}
		return
	}
	c.onUIRequestRevert(it.Checkpoint.ID)
}

// cmdRevertConfirm is /revert N: the same confirmation as the timeline.
func (c *Controller) cmdRevertConfirm(arg string) {
	n, err := strconv.Atoi(strings.TrimSpace(arg))
	if err != nil || n < 0 {
		c.setMessage("usage: /revert N — N is a checkpoint number from the timeline", true)
		return
	}
	c.onUIRequestRevert(n)
}

// fileTracker returns the file checkpoints of session s, on its work dir
// (nil when the session has none). Trackers keep their state in the
// database, so this one and the soul's agree.
func (c *Controller) fileTracker(s store.Session) *filecp.Tracker {
	dir := workDirOf(s, c.opts.WorkDir)
	if dir == "" {
		return nil
	}
	t, err := filecp.New(c.db, s.ID, dir, filecp.Options{})
	if err != nil {
		return nil
	}
	return t
}

// onUIRequestRevert checks checkpoint n on a worker (messages archived,
// files that would change) and shows the confirmation, or the refusal when
// n lies in a compacted region.
func (c *Controller) onUIRequestRevert(n int) {
	o := c.cur()
	switch {
	case o == nil:
		c.setMessage("nothing to revert yet: the session is empty", false)
		return
	case c.readOnly || o.soul == nil:
		c.setMessage("read-only: this session is being written by another process, so it cannot be reverted here (fork it to change it)", true)
		return
	case c.busy != "":
		c.setMessage("a run is active: press Esc to stop it before reverting", true)
		return
	}
	c.onWorker(func() {
		ctx := c.ctx
		v, err := c.db.View(ctx, o.sess.ID)
		if err != nil {
			c.post(evNote{text: "revert: " + err.Error(), isErr: true})
			return
		}
		p, ok := planRevert(v, n)
		if !ok {
			gens, gerr := c.db.Generations(ctx, o.sess.ID)
			if src, compacted := compactedSource(gens, v.Generation.Gen); gerr == nil && compacted {
				if c.checkpointIn(ctx, o.sess.ID, src, n) {
					c.onUIThreadAsync(func() { c.onUIRefuseCompacted(n, src) })
					return
				}
			}
			c.post(evNote{text: fmt.Sprintf("checkpoint %d is not in this conversation (the timeline lists them)", n), isErr: true})
			return
		}
		var rep *filecp.Report
		var ferr error
		if t := c.fileTracker(o.sess); t != nil {
			r, err := t.RevertFiles(ctx, p.seq, filecp.RevertOptions{DryRun: true, Diffs: true})
			rep, ferr = &r, err
		}
		c.onUIThreadAsync(func() { c.onUIConfirmRevert(p, rep, ferr) })
	})
}

// checkpointIn reports whether generation gen's view has checkpoint n.
func (c *Controller) checkpointIn(ctx context.Context, id string, gen, n int) bool {
	v, err := c.db.GenerationView(ctx, id, gen)
	return err == nil && checkpointIndex(v, n) >= 0
}

// filesText lists a dry-run report for a dialog.
func filesText(rep filecp.Report, limit int) string {
	var lines []string
	add := func(kind string, paths []string) {
		for _, p := range paths {
			lines = append(lines, kind+p)
		}
	}
	add("  modified  ", rep.Modified)
	add("  restored  ", rep.Created)
	add("  deleted   ", rep.Deleted)
	for _, cf := range rep.Conflicts {
		lines = append(lines, "  left alone (changed by someone else: "+oneLine(cf.Reason, 40)+")  "+cf.Path)
	}
	if len(lines) > limit {
		n := len(lines) - limit
		lines = append(lines[:limit], fmt.Sprintf("  … and %d more", n))
	}
	return strings.Join(lines, "\n")
}

// onUIConfirmRevert shows "Revert to checkpoint N? K messages will be
// archived (not deleted)" with the file choices when files would change.
func (c *Controller) onUIConfirmRevert(p revertPlan, rep *filecp.Report, ferr error) {
	msg := fmt.Sprintf("Revert to checkpoint %d? %d %s will be archived (not deleted).", p.checkpoint, p.archived, plural(p.archived, "message", "messages"))
	if p.returnTo != "" {
		msg += "\nYou return to: " + oneLine(p.returnTo, 120)
	}
	files := rep != nil && ferr == nil && (rep.Changed() > 0 || len(rep.Conflicts) > 0)
	switch {
	case ferr != nil:
		msg += "\n\nFiles cannot be checked (" + oneLine(ferr.Error(), 100) + "): only the conversation can be reverted."
	case rep == nil:
		msg += "\n\nThis session has no file checkpoints: only the conversation is reverted."
	case !files:
		msg += fmt.Sprintf("\n\nNo file changes were recorded after checkpoint %d: the files stay as they are.", p.checkpoint)
	default:
		msg += fmt.Sprintf("\n\nFiles that will change (%d):\n%s", rep.Changed(), filesText(*rep, 8))
		if len(rep.Conflicts) > 0 {
			msg += "\nConflicting files are left alone (`rewind revert --files --force` overwrites them)."
		}
		msg += "\nA file revert can be undone: restore the archived generation with files."
	}
	choices := []views.Choice{{Label: "Conversation only", Key: 'c'}}
	if files {
		choices = append(choices, views.Choice{Label: "Conversation + files", Key: 'b'}, views.Choice{Label: "Files only", Key: 'f'})
		if len(rep.Diffs) > 0 {
			choices = append(choices, views.Choice{Label: "Show file diffs", Key: 'd'})
		}
	}
	choices = append(choices, views.Choice{Label: "Cancel", Key: 'n'})
	c.showConfirm("Revert", msg, choices, 0, func(i int) {
		if i < 0 || i >= len(choices) || choices[i].Key == 'n' {
			return
		}
		conv, fl := true, false
		switch choices[i].Key {
		case 'd':
			c.onUIShowFileDiffs(p, rep, ferr)
			return
		case 'b':
			fl = true
		case 'f':
			conv, fl = false, true
		}
		c.onUIRevert(p, conv, fl)
	})
}

// onUIShowFileDiffs shows what a file revert would write (current → the
// checkpoint's content); closing it returns to the revert confirmation.
func (c *Controller) onUIShowFileDiffs(p revertPlan, rep *filecp.Report, ferr error) {
	paths := make([]string, 0, len(rep.Diffs))
	for path := range rep.Diffs {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	var all strings.Builder
	for _, path := range paths {
		all.WriteString(rep.Diffs[path])
	}
	c.tt.diff.SetTheme(c.theme)
	c.tt.diff.SetDiff(fmt.Sprintf("Files: now → checkpoint %d (what a file revert writes) · Esc returns to the revert", p.checkpoint), views.ParseUnifiedDiff(all.String()))
	c.pages.push(Page{Name: "gendiff", Primitive: c.tt.diff, Stop: func() {
		// After the pop has restored the focus, reopen the question.
		c.onUIThreadAsync(func() { c.onUIConfirmRevert(p, rep, ferr) })
	}})
}

// onUIRevert performs a confirmed revert on a worker (through the soul, so
// its state follows) and reloads with a banner.
func (c *Controller) onUIRevert(p revertPlan, conv, files bool) {
	o := c.cur()
	if o == nil || o.soul == nil || c.busy != "" {
		return
	}
	c.onUIEndPreview()
	prev := c.statusM.Generation
	input := c.input
	c.startOp("revert", func(ctx context.Context) error {
		var parts []string
		if conv {
			g, err := o.soul.RevertTo(ctx, p.checkpoint)
			if errors.Is(err, store.ErrCompactedRegion) {
				return fmt.Errorf("checkpoint %d lies before a compaction; restore the generation before it instead", p.checkpoint)
			}
			if err != nil {
				return err
			}
			parts = append(parts, fmt.Sprintf("Reverted to checkpoint %d · generation %d · %d %s archived in generation %d (select it in the timeline, r restores)",
				p.checkpoint, g.Gen, p.archived, plural(p.archived, "message", "messages"), prev))
		}
		if files {
			t := c.fileTracker(o.sess)
			if t == nil {
				parts = append(parts, "files: this session has no file checkpoints")
			} else {
				rep, err := t.RevertFiles(ctx, p.seq, filecp.RevertOptions{})
				parts = append(parts, fileReportText(rep, err))
			}
		} else if conv {
			parts = append(parts, "files unchanged")
		}
		banner := &views.Item{Kind: views.ItemBanner, Banner: views.BannerBacktrack, Text: strings.Join(parts, " · ")}
		if conv {
			c.onWorkerReload(banner)
			if p.returnTo != "" {
				c.onUIThreadAsync(func() {
					if strings.TrimSpace(input.Text()) == "" {
						input.SetText(p.returnTo)
					}
				})
			}
		} else {
			// The timeline is a widget: read its model on the UI goroutine.
			c.onUIThreadAsync(func() {
				c.onUIReload(evReload{keepConv: true, banner: banner, timeline: c.timeline.Model(), gen: prev})
			})
		}
		return nil
	})
	c.app.SetFocus(c.input)
}

// fileReportText summarises a file rewind for a banner.
func fileReportText(rep filecp.Report, err error) string {
	if err != nil {
		return "files not reverted: " + oneLine(err.Error(), 120)
	}
	if rep.Changed() == 0 && len(rep.Conflicts) == 0 {
		return "no file needed to change"
	}
	s := fmt.Sprintf("files reverted: %d modified, %d restored, %d deleted", len(rep.Modified), len(rep.Created), len(rep.Deleted))
	if n := len(rep.Conflicts); n > 0 {
		s += fmt.Sprintf(" · %d %s changed by someone else left alone", n, plural(n, "file", "files"))
	}
	return s
}

// onUIRefuseCompacted explains why checkpoint n cannot be reverted to and
// offers to restore the generation the compaction archived.
func (c *Controller) onUIRefuseCompacted(n, src int) {
	msg := fmt.Sprintf("Checkpoint %d lies in the part of the conversation that compaction replaced with a summary: the model's context no longer holds it, so it cannot be reverted to.\n\nThe original conversation is kept as archived generation %d. Restore it instead (the current, compacted conversation is archived in turn; nothing is lost)?", n, src)
	c.showConfirm("Cannot revert into a compacted region", msg, []views.Choice{
		{Label: fmt.Sprintf("Restore generation %d", src), Key: 'r'},
		{Label: "Cancel", Key: 'n'},
	}, 0, func(i int) {
		if i == 0 {
			c.onUIRestore(src, false)
		}
	})
}

// onUIGenerationDiff shows the messages added and removed between an
// archived generation and the current view.
func (c *Controller) onUIGenerationDiff(g views.GenerationRow) {
	o := c.cur()
	if o == nil {
		return
	}
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
		c.onUIThreadAsync(func() { c.onUIShowDiff(title, lines) })
	})
}

// onUIShowDiff opens the diff overlay.
func (c *Controller) onUIShowDiff(title string, lines []views.DiffLine) {
	c.tt.diff.SetTheme(c.theme)
	c.tt.diff.SetDiff(title, lines)
	c.pages.push(Page{Name: "gendiff", Primitive: c.tt.diff})
}

// onUIGenerationRestore asks, then restores an archived generation.
func (c *Controller) onUIGenerationRestore(g views.GenerationRow) {
	o := c.cur()
	switch {
	case o == nil:
		return
	case g.Current:
		c.setMessage(fmt.Sprintf("generation %d is the current one", g.Gen), false)
		return
	case c.readOnly || o.soul == nil:
		c.setMessage("read-only: this session is being written by another process (f forks the generation into a session you can write)", true)
		return
	case c.busy != "":
		c.setMessage("a run is active: press Esc to stop it before restoring", true)
		return
	}
	cur := c.statusM.Generation
	c.onWorker(func() {
		var rep *filecp.Report
		if t := c.fileTracker(o.sess); t != nil {
			if r, err := t.RestoreFilesToGeneration(c.ctx, g.Gen, filecp.RevertOptions{DryRun: true}); err == nil {
				rep = &r
			}
		}
		c.onUIThreadAsync(func() {
			msg := fmt.Sprintf("Restore generation %d (%s, %d %s)? It becomes current as a new generation; the current generation %d is archived (nothing is deleted).",
				g.Gen, g.Cause, g.Messages, plural(g.Messages, "message", "messages"), cur)
			choices := []views.Choice{{Label: "Conversation only", Key: 'c'}}
			if rep != nil && rep.Changed() > 0 {
				msg += fmt.Sprintf("\n\nFiles as they were when generation %d was left (%d):\n%s", g.Gen, rep.Changed(), filesText(*rep, 8))
				choices = append(choices, views.Choice{Label: "Conversation + files", Key: 'b'})
			}
			choices = append(choices, views.Choice{Label: "Cancel", Key: 'n'})
			c.showConfirm("Restore", msg, choices, 0, func(i int) {
				if i < 0 || i >= len(choices) || choices[i].Key == 'n' {
					return
				}
				c.onUIRestore(g.Gen, choices[i].Key == 'b')
			})
		})
	})
}

// onUIRestore restores generation gen (cause restore) through the soul.
func (c *Controller) onUIRestore(gen int, files bool) {
	o := c.cur()
	if o == nil || o.soul == nil || c.busy != "" {
		return
	}
	c.onUIEndPreview()
	prev := c.statusM.Generation
	c.startOp("restore", func(ctx context.Context) error {
		g, err := o.soul.Restore(ctx, gen)
		if err != nil {
			return err
		}
		text := fmt.Sprintf("Restored generation %d as generation %d · generation %d is archived", gen, g.Gen, prev)
		if files {
			if t := c.fileTracker(o.sess); t != nil {
				rep, err := t.RestoreFilesToGeneration(ctx, gen, filecp.RevertOptions{})
				text += " · " + strings.Replace(fileReportText(rep, err), "reverted", "restored", 1)
			}
		}
		c.onWorkerReload(&views.Item{Kind: views.ItemBanner, Banner: views.BannerBacktrack, Text: text})
		return nil
	})
	c.app.SetFocus(c.input)
}

// onUIGenerationFork forks an archived generation into a new session and
// switches the workspace to it.
func (c *Controller) onUIGenerationFork(g views.GenerationRow) {
	o := c.cur()
	if o == nil {
		return
	}
	if c.busy != "" {
		c.setMessage("a run is active: press Esc to stop it before forking", true)
		return
	}
	c.onUIEndPreview()
	src := o.sess.ID
	c.onUIForkInto(src, g.Gen, func(fork string) string {
		return fmt.Sprintf("Forked generation %d of session %s into this new session %s: yours to continue; the original is unchanged.", g.Gen, shortID(src), shortID(fork))
	}, func() {
		c.onWorker(c.onWorkerListSessions)
		c.app.SetFocus(c.input)
	})
}
