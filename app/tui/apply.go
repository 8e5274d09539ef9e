package tui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// onUIApply applies one event to the widgets (UI goroutine). It is the only
// place soul events reach the views.
func (c *Controller) onUIApply(e soul.Event) {
	if c.tt.frozen(e) {
		c.onUIApplyFrozen(e)
		return
	}
	switch ev := e.(type) {
	case soul.StepBegin:
		c.step.markStepStart()
		c.statusM.Step = ev.N
		c.refreshStatus()
	case soul.StepRetry:
		if !ev.Compaction && c.step.discard() {
			c.statusM.RunningTool = ""
		}
		c.msg.setMessage(retryText(ev), true)
	case soul.StepInterrupted:
		kept := ev.KeptGeneration > 0 || ev.KeptFile != ""
		if kept && c.step.keepInterrupted() || !kept && c.step.discard() {
			c.statusM.RunningTool = ""
		}
		if !ev.ModelFailed { // the soul.Error that follows says why
			c.conv.Append(views.Item{Kind: views.ItemBanner, Banner: views.BannerInterrupt, Text: interruptText(ev, c.SessionID())})
		}
	case soul.CompactionBegin:
		what := "Compacting the context"
		if ev.Auto {
			what = "The context is nearly full: compacting it automatically"
		}
		c.conv.Append(views.Item{Kind: views.ItemBanner, Banner: views.BannerCompact,
			Text: fmt.Sprintf("%s (%s tokens)…", what, views.FormatTokens(ev.Tokens))})
		c.msg.setAbout(topicCompaction, "compacting…", false, c.msg.ttl)
	case soul.CompactionEnd:
		c.msg.clearAbout(topicCompaction) // a watcher has no op end to clear it
		// The reload that follows (posted by onWorkerSink) shows the banner.
		c.statusM.Tokens = ev.Tokens
		c.statusM.Generation = ev.NewGen
		c.refreshStatus()
	case soul.StatusUpdate:
		// Between runs (a /compact, a backtrack, a model switch) the soul
		// still counts the last run's steps: no step is shown then.
		c.statusM.Step = 0
		if c.run.op == "run" || c.watch.inRun.Load() {
			c.statusM.Step = ev.Step
		}
		c.statusM.Tokens = ev.Tokens
		c.statusM.MaxContext = ev.MaxContext
		c.statusM.ContextPercent = ev.ContextPercent
		c.statusM.Generation = ev.Generation
		c.statusM.Thinking = ev.Thinking
		c.plan.Store(ev.Plan)
		if ev.Model != "" {
			c.statusM.Model = ev.Model
		}
		c.refreshStatus()
	case soul.ContentPart:
		c.conv.AppendDelta(ev.Text)
	case soul.ReasoningPart:
		c.conv.AppendReasoningDelta(ev.Text)
	case soul.ToolCallPart:
		if ev.Name != "" {
			c.statusM.RunningTool = ev.Name + " (preparing)"
			c.refreshStatus()
		}
	case soul.ToolCall:
		c.conv.Append(toolItem(ev.ID, ev.Name, ev.Arguments))
		c.tp.onUICall(ev)
		c.statusM.RunningTool = ev.Name
		c.refreshStatus()
	case soul.ToolOutput:
		c.tp.onUIOutput(ev)
	case soul.ToolResult:
		c.onUIToolResult(ev)
	case *soul.ApprovalRequest:
		c.ap.onUIAsk(ev)
	case soul.SubagentEvent:
		c.sa.onUIEvent(ev)
	case soul.Backtrack:
		// The reload posted by onWorkerSink replaces the conversation and
		// shows the banner.
		c.statusM.Generation = ev.NewGen
		c.refreshStatus()
		if o := c.cur(); o != nil && o.soul != nil { // a watcher's writer undoes its own D-Mail
			c.tt.noteBacktrack(ev)
		}
		c.tp.onUIBacktrack(ev)
	case soul.Error:
		c.conv.Append(views.Item{Kind: views.ItemError, Text: ev.Message})
		c.msg.setMessage(flat(ev.Message), true)
	case soul.PromptImages:
		c.prompts.onUIImages(ev)
	case soul.LoopWarning:
		c.conv.Append(views.Item{Kind: views.ItemBanner, Banner: views.BannerInfo,
			Text: fmt.Sprintf("Loop warning: the model ran nearly the same command %d times: %s", ev.Count, oneLine(ev.Command, 100))})
	case soul.RunEnd:
		c.statusM.RunningTool = ""
		// No run, no step: as before the first run.
		c.statusM.Step = 0
		c.conv.Settle() // the answer's end fills the pane again
		c.notes.onUIRunEnded(ev)
		c.refreshStatus()
	case evFollow:
		c.watch.onUIFollow(ev)
	case evReload:
		c.onUIReload(ev)
	case evOpDone:
		c.onUIOpDone(ev)
	case evFunc:
		ev.f()
	case evNote:
		if ev.news {
			c.msg.setNews(ev.text)
		} else {
			c.msg.setMessage(ev.text, ev.isErr)
		}
	case evTick:
		c.msg.onTick()
		c.refreshStatus()
	}
}

// stepItems marks where the current step attempt's items start in the
// conversation: a retry streams the answer again, an interrupted step is
// kept dimmed or discarded (UI goroutine only). The features that replace
// or extend the conversation move the mark (pager, watcher, time travel).
type stepItems struct {
	conv  *views.Conversation
	start int // first conversation item of the current step attempt
}

// markStepStart makes the conversation's end the start of the next step's
// items (UI).
func (s *stepItems) markStepStart() { s.start = s.conv.Len() }

// shiftStepStart moves the start of the step's items by n items put in
// front of them (an earlier page) (UI).
func (s *stepItems) shiftStepStart(n int) { s.start += n }

// keepInterrupted leaves what an interrupted step streamed on screen,
// dimmed and marked interrupted (the soul kept it in an archived
// generation); unfinished tool calls go. It reports whether the step had
// items.
func (s *stepItems) keepInterrupted() bool {
	if s.start >= s.conv.Len() || s.start < 0 {
		return false
	}
	items := convItems(s.conv, s.conv.Len())
	kept := items[:s.start]
	for _, it := range items[s.start:] {
		switch it.Kind {
		case views.ItemAssistant:
			it.Interrupted = true
			kept = append(kept, it)
		case views.ItemReasoning:
			kept = append(kept, it)
		}
	}
	s.conv.SetItems(kept)
	return true
}

// discard removes the items the current step attempt streamed (a retry
// streams the answer again; an interrupted step is not kept). It reports
// whether the step had items.
func (s *stepItems) discard() bool {
	if s.start >= s.conv.Len() || s.start < 0 {
		return false
	}
	s.conv.SetItems(convItems(s.conv, s.start))
	return true
}

func (c *Controller) onUIToolResult(ev soul.ToolResult) {
	st := views.ToolOK
	if ev.IsError {
		st = views.ToolFailed
	}
	res := ev.Output
	if ev.Brief != "" && ev.IsError {
		res = ev.Brief + "\n" + res
	}
	c.conv.UpdateItem(ev.ID, func(it *views.Item) {
		it.Status = st
		it.Duration = ev.Duration
		it.Result = excerpt(res)
		it.Images = imageLabels(ev.Images)
	})
	c.tp.onUIResult(ev, st)
	if len(ev.Todos) > 0 {
		item := views.Item{Kind: views.ItemBanner, Banner: views.BannerInfo, ID: "todos", Text: todosText(ev.Todos)}
		if !c.conv.UpdateItem("todos", func(it *views.Item) { *it = item }) {
			c.conv.Append(item)
		}
		done := 0
		for _, t := range ev.Todos {
			if todoDone(t.Status) {
				done++
			}
		}
		c.msg.setMessage(fmt.Sprintf("todos: %d/%d done", done, len(ev.Todos)), false)
	}
	c.statusM.RunningTool = ""
	c.refreshStatus()
}

// onUIReload shows fresh store data.
func (c *Controller) onUIReload(ev evReload) {
	if ev.shown != nil {
		defer ev.shown()
	}
	o := c.cur()
	if ev.session != "" && (o == nil || o.sess.ID != ev.session) {
		return // a read begun before a switch (a poller's): the new session's own read follows
	}
	if ev.tokens != nil && o != nil && o.soul == nil && !c.watch.liveOn(o) {
		// Watched without a live channel to say better: the count saved
		// with the view shown. The one the switch installed was read
		// before the view, and a step that landed between the two reads
		// brings no record after it to correct the count.
		c.watch.showSavedTokens(*ev.tokens)
	}
	if ev.follow && c.pg.win.later > 0 && ev.session == c.pg.win.session {
		// The conversation shows the records around a search hit: it stays,
		// with its timeline; scrolling down reaches what changed.
		ev.keepConv, ev.items, ev.win, ev.banner, ev.mark = true, nil, nil, nil, nil
		ev.timeline = c.timeline.Model()
	}
	if !ev.keepConv {
		c.watch.onUIConvReplaced(ev)
	}
	if ev.win != nil {
		c.pg.win = *ev.win
	}
	hitCP := ev.hitCP // a preview holds the conversation back, not the timeline's selection
	if ev.keepConv {
		hitCP = nil
	}
	ev = c.tt.holdDuringPreview(ev)
	c.pg.showWindowMarker()
	if !ev.keepConv {
		c.conv.SetItems(ev.items)
		c.tp.onUIViewReplaced(viewReplaced{session: ev.session, items: ev.items})
		c.step.markStepStart()
		if len(ev.items) == 0 {
			c.showWelcome()
		}
		if ev.mark != nil {
			c.conv.Mark(*ev.mark)
			// short, the essentials first: a crowded status bar (80
			// columns, watching) drops the last parts
			c.msg.setMessage("hit ┃ · End: the newest · scroll: around it", false)
		}
	}
	if ev.banner != nil {
		// The D-Mail the view ends with says less than the backtrack banner.
		if n := c.conv.Len(); ev.banner.Banner == views.BannerBacktrack && n > 0 {
			if last, _ := c.conv.Item(n - 1); last.Kind == views.ItemBanner && last.Banner == views.BannerBacktrack {
				c.conv.SetItems(convItems(c.conv, n-1))
			}
		}
		c.conv.Append(*ev.banner)
		c.step.markStepStart()
	}
	c.onUIShowHeader(ev.timeline, ev.title, ev.gen)
	if hitCP != nil {
		selectHitTurn(c.timeline, *hitCP)
	}
}

// onUIShowHeader shows a reloaded or followed view's timeline, title
// (kept when empty) and generation.
func (c *Controller) onUIShowHeader(tl views.TimelineModel, title string, gen int) {
	if o := c.cur(); o != nil {
		c.timeline.SetSessionRef(shortID(o.sess.ID)) // its rewind revert hint
	}
	c.timeline.SetModel(tl)
	if title != "" {
		c.statusM.SessionTitle = title
	}
	c.statusM.Generation = gen
	c.refreshStatus()
}

// onUIOpDone ends a run or an operation.
func (c *Controller) onUIOpDone(ev evOpDone) {
	unsent := c.prompts.takeUnsent()
	c.run.op = ""
	c.run.cancel = nil
	c.run.start = time.Time{}
	c.statusM.RunningTool = ""
	c.ap.onUIRejectPending()
	c.input.SetDisabled("")
	switch {
	case ev.err == nil:
		if !c.quitting {
			c.msg.clearUnlessNews()
		}
	case errors.Is(ev.err, soul.ErrNotSaved):
		c.prompts.onUINotSaved(unsent, ev.err)
	case errors.Is(ev.err, context.Canceled) || errors.Is(ev.err, context.DeadlineExceeded):
		c.msg.setMessage(ev.op+" interrupted", false)
	case errors.Is(ev.err, soul.ErrRejected):
		c.msg.setMessage("tool call rejected: the run stopped, tell the model what to do instead", false)
	case errors.Is(ev.err, soul.ErrMaxSteps):
		c.msg.setMessage("max steps reached: send a message to continue", true)
	case errors.Is(ev.err, store.ErrLeaseLost):
		// Another process took the session over while this one was paused:
		// nothing was written; stop writing at once, not at the next heartbeat.
		if o := c.cur(); o != nil {
			c.onUILeaseLost(o)
		}
	default:
		c.msg.setMessage(ev.op+" failed: "+flat(ev.err.Error()), true)
	}
	c.refreshStatus()
	c.tt.onUIRunDone()
}

// onUIApplyFrozen applies what a live event changes besides the
// conversation while a preview freezes it: the status bar and the tool
// output pane.
func (c *Controller) onUIApplyFrozen(e soul.Event) {
	switch ev := e.(type) {
	case soul.ToolCall:
		c.tp.onUICall(ev)
		c.statusM.RunningTool = ev.Name
		c.refreshStatus()
	case soul.SubagentEvent:
		if text := subagentPaneText(ev.Event); text != "" {
			c.tp.onUIOutput(soul.ToolOutput{ID: ev.ParentCallID, Text: text})
		}
	case soul.CompactionBegin:
		c.msg.setAbout(topicCompaction, "compacting…", false, c.msg.ttl)
	case soul.CompactionEnd:
		c.msg.clearAbout(topicCompaction)
	case soul.Error:
		c.msg.setMessage(flat(ev.Message), true)
	}
}
