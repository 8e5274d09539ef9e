package tui

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/app/live"
	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/views"
)

// Approvals in the workspace, one feature controller: the approval modal
// and the queue behind it, the grace that keeps keys typed for the input
// from answering it, and every way an approval is answered — on this
// screen, by a watcher over the live channel (the writer's side), and on a
// watcher's own screen for the writer it watches (app/live carries the
// answer). /yolo and /approvals are its commands.
//
// The soul asks with a *soul.ApprovalRequest event and takes the first
// answer (ApprovalRequest.Answer); the modal shows one request at a time,
// in the order they came. When a run ends or is interrupted, what is still
// pending is rejected.

const approvalPage = "approval"

// approvalGrace is how long after the approval modal appears its answer
// keys are ignored (the user may still be typing a prompt).
const approvalGrace = 300 * time.Millisecond

// approvals owns the approval feature (UI goroutine only).
type approvals struct {
	c     approvalsDeps
	modal *views.ApprovalModal

	cur   *soul.ApprovalRequest   // the request the modal shows (this workspace's soul)
	queue []*soul.ApprovalRequest // asked while cur was shown, in order

	// watched is the tool call id of the watched writer's request the modal
	// shows ("" none).
	watched string

	// shown is when the modal appeared: keys typed within approvalGrace
	// were meant for the input, not an answer.
	shown time.Time
	// now is the grace's clock; tests advance a fake one instead of
	// sleeping through the grace.
	now func() time.Time
	// rejectedHere: this screen rejected a call of the run (its end is no
	// news to the one who pressed n).
	rejectedHere bool

	// yolo holds the work dirs where every call runs without asking.
	yolo yoloDirs
}

// yoloDirs are the work dirs where yolo is on, for this process: /yolo
// turns it on for the open session's work dir, --yolo for the dir rewind
// started in and the session it opened. A session of another work dir asks
// first (docs/DECISIONS.md). Workers read it when they attach a session.
type yoloDirs struct {
	mu   sync.Mutex
	dirs map[string]bool
}

// in reports whether yolo is on in dir.
func (y *yoloDirs) in(dir string) bool {
	y.mu.Lock()
	defer y.mu.Unlock()
	return y.dirs[filepath.Clean(dir)]
}

// set turns yolo on or off in dir.
func (y *yoloDirs) set(dir string, on bool) {
	y.mu.Lock()
	defer y.mu.Unlock()
	if y.dirs == nil {
		y.dirs = map[string]bool{}
	}
	if on {
		y.dirs[filepath.Clean(dir)] = true
	} else {
		delete(y.dirs, filepath.Clean(dir))
	}
}

// approvalsDeps is what the approvals feature reaches: the page its modal
// is pushed on, the conversation (who answered), the dir rewind started in,
// the hook a test watches answers by, the notifications, the open session,
// the status line's mode and notices.
type approvalsDeps struct {
	featureCommon
	approvalsHost
	conv     *views.Conversation
	notes    *notifier
	startDir string                                  // Options.WorkDir
	answered func(toolCallID string, watcherPID int) // Options.ApprovalAnswered, or nil
}

type approvalsHost interface {
	workDir() string
}

// initApprovals builds the modal and registers /yolo and /approvals (New).
func (c *Controller) initApprovals() {
	deps := approvalsDeps{featureCommon: c.common(), approvalsHost: c, conv: c.conv, notes: c.notes, startDir: c.opts.WorkDir, answered: c.opts.ApprovalAnswered}
	a := &approvals{c: deps, modal: views.NewApprovalModal(), now: time.Now}
	if c.opts.Soul.Yolo {
		a.yolo.set(c.opts.WorkDir, true)
	}
	c.ap = a
	c.theme.addThemed(a.modal)
	c.help.addPane("Approval", a.modal)
	c.commands.add(Command{Name: "/yolo", Description: "toggle approving every tool call without asking", DisabledWhen: []rule{ruleReadOnly}, Run: a.cmdYolo})
	c.commands.add(Command{Name: "/approvals", Args: "[revoke N|all]", Description: "list what was approved for this session, or revoke it", Run: a.cmdApprovals})
}

// onUIAsk shows req, or queues it behind the request on screen.
func (a *approvals) onUIAsk(req *soul.ApprovalRequest) {
	if a.cur != nil {
		a.queue = append(a.queue, req)
		return
	}
	a.cur = req
	a.c.notes.notify(notifyApproval, req.Label()+": "+req.Description)
	a.show(req, func(d views.ApprovalDecision, feedback string) {
		if a.cur != req {
			return
		}
		sd := soulDecision(d, feedback)
		a.rejectedHere = a.rejectedHere || isReject(sd)
		a.answer(req, sd, feedback)
		if sd == soul.ApproveForSession {
			a.c.setNews("approved " + scopeText(req) + " for the rest of this session (/approvals lists and revokes them)")
		}
		a.onUINext()
	})
}

// show puts req in the modal, on top of the page stack, and starts the
// grace.
func (a *approvals) show(req *soul.ApprovalRequest, decide func(views.ApprovalDecision, string)) {
	a.modal.SetRequest(approvalView(req))
	a.modal.SetOnDecision(decide)
	a.c.pages.push(Page{Name: approvalPage, Primitive: a.modal})
	a.shown = a.now()
}

// soulDecision is the soul's decision for the modal's.
func soulDecision(d views.ApprovalDecision, feedback string) soul.ApprovalDecision {
	switch {
	case d == views.ApproveOnce:
		return soul.ApproveOnce
	case d == views.ApproveForSession:
		return soul.ApproveForSession
	case feedback != "":
		return soul.RejectWithFeedback
	}
	return soul.Reject
}

func isReject(d soul.ApprovalDecision) bool {
	return d == soul.Reject || d == soul.RejectWithFeedback
}

// onUINext closes the answered request and shows the next queued one, if
// any.
func (a *approvals) onUINext() {
	a.cur = nil
	a.c.pages.pop(approvalPage)
	if len(a.queue) > 0 {
		next := a.queue[0]
		a.queue = a.queue[1:]
		a.onUIAsk(next)
	}
}

// onUIRejectPending rejects the shown and the queued requests and closes
// the modal: the run ended or was interrupted (the soul stops waiting on
// its own once its context is cancelled).
func (a *approvals) onUIRejectPending() {
	for _, r := range append([]*soul.ApprovalRequest{a.cur}, a.queue...) {
		if r != nil {
			r.Respond(soul.Reject, "interrupted")
		}
	}
	a.cur, a.queue = nil, nil
	a.c.pages.pop(approvalPage)
}

// swallows reports whether ev, typed within the grace of the modal
// appearing, is dropped (Ctrl-C always gets through).
func (a *approvals) swallows(ev *tcell.EventKey) bool {
	return a.c.pages.top() == approvalPage && ev.Key() != tcell.KeyCtrlC && a.now().Sub(a.shown) < approvalGrace
}

// answer answers req from this screen and tells the watchers.
func (a *approvals) answer(req *soul.ApprovalRequest, d soul.ApprovalDecision, feedback string) {
	o := a.c.cur()
	// Watchers hear who answered before the call's run, as for a
	// watcher's answer (live.Publisher).
	req.AnswerAnnounced(d, feedback, func() { // false: a watcher answered first
		if f := a.c.answered; f != nil {
			f(req.ToolCallID, 0)
		}
		if o != nil && o.pub != nil {
			o.pub.AnnounceAnswer(req.ToolCallID, d, "the writer")
		}
	})
}

// onUIRemoteAnswered closes or unqueues the request a watcher answered
// (the writer's side). The conversation keeps a line under the tool call
// saying who answered and how, with the feedback of a rejection.
func (a *approvals) onUIRemoteAnswered(req *soul.ApprovalRequest, ans live.Answer) {
	c := a.c
	c.setNews(fmt.Sprintf("%s of %s answered from a watcher (pid %d): %s", req.Action, approvalCall(req), ans.PID, decisionText(ans.Decision)))
	line := fmt.Sprintf("%s %s from a watcher (pid %d)", approvalCall(req), decisionText(ans.Decision), ans.PID)
	if ans.Feedback != "" && (ans.Decision == soul.RejectWithFeedback || ans.Decision == soul.Reject) {
		line += ": “" + oneLine(ans.Feedback, 200) + "”"
	}
	c.conv.Append(views.Item{Kind: views.ItemBanner, Banner: views.BannerInfo, Text: line})
	for i, p := range a.queue {
		if p == req {
			a.queue = append(a.queue[:i], a.queue[i+1:]...)
			return
		}
	}
	if a.cur == req {
		a.onUINext()
	}
}

// approvalCall names the call a request is about: the tool and its label
// ("Shell go test ./..."), as the call's row shows it.
func approvalCall(req *soul.ApprovalRequest) string {
	if l := oneLine(tools.CallLabel(req.Tool, req.Arguments), 60); l != "" {
		return req.Tool + " " + l
	}
	return req.Tool
}

// onUIWatched shows the watched writer's request (the watcher's side):
// answerable through conn when the writer takes answers from watchers
// (remote), else as a note saying where to answer.
func (a *approvals) onUIWatched(req *soul.ApprovalRequest, conn *live.Conn, remote bool) {
	c := a.c
	c.notes.notify(notifyApproval, req.Label()+": "+req.Description)
	if !remote || conn == nil {
		c.conv.Append(views.Item{Kind: views.ItemBanner, Banner: views.BannerInfo,
			Text: fmt.Sprintf("The writer waits for approval: %s %s. Answer it in the writer's window (it does not take answers from watchers; start it with --allow-remote-approval to allow that).", req.Tool, oneLine(req.Description, 80))})
		c.setMessage("the writer waits for approval of "+approvalCall(req), false)
		return
	}
	a.closeWatched()
	id := req.ToolCallID
	a.watched = id
	a.show(req, func(d views.ApprovalDecision, feedback string) {
		if a.watched != id {
			return
		}
		a.closeWatched()
		sd := soulDecision(d, feedback)
		a.rejectedHere = a.rejectedHere || isReject(sd)
		c.onWorker(func() {
			if err := conn.Answer(id, sd, feedback); err != nil {
				c.post(evNote{text: "the answer did not reach the writer: " + err.Error(), isErr: true})
			}
		})
	})
}

// closeWatched closes the modal of a watched writer's request.
func (a *approvals) closeWatched() {
	if a.watched == "" {
		return
	}
	a.watched = ""
	a.c.pages.pop(approvalPage)
}

// onUIWatchedAnswered says how the watched writer's request was answered,
// and by whom, and closes its modal.
func (a *approvals) onUIWatchedAnswered(ans live.Answered) {
	if a.watched == ans.ToolCallID {
		a.closeWatched()
	}
	a.c.setMessage(fmt.Sprintf("%s · by %s", decisionText(ans.Decision), ans.By), false)
}

// onUIWatchedResult says when this watcher's answer did not count.
func (a *approvals) onUIWatchedResult(r live.AnswerResult) {
	if !r.Accepted {
		a.c.setMessage("your answer did not count: "+r.Reason, true)
	}
}

// approvalView is the modal's model of a request.
func approvalView(req *soul.ApprovalRequest) views.ApprovalRequest {
	// A sub-agent's request names it first: "coder · Shell".
	return views.ApprovalRequest{Tool: req.Label(), Action: req.Action, Description: req.Description,
		Arguments: prettyArgs(req.Arguments), Diff: req.Diff, Command: req.Command, SessionScopes: req.SessionScopes, Plan: req.Plan}
}

// scopeText says what "approve for session" on req covers, as the approval
// modal shows it: "“go test …”", "exactly “rm -f x”", or "every “edit file”".
func scopeText(req *soul.ApprovalRequest) string {
	return views.ScopeText(req.SessionScopes, req.Action)
}

func decisionText(d soul.ApprovalDecision) string {
	switch d {
	case soul.ApproveOnce:
		return "approved once"
	case soul.ApproveForSession:
		return "approved for the session"
	case soul.RejectWithFeedback:
		return "rejected with feedback"
	}
	return "rejected"
}

// cmdYolo toggles approving every tool call without asking, in the open
// session's work dir: its sessions opened later keep it, those of other
// dirs ask.
func (a *approvals) cmdYolo(string) {
	c := a.c
	dir := c.workDir()
	on := !a.yolo.in(dir)
	if o := c.cur(); o != nil && o.soul != nil {
		on = !o.soul.Yolo()
		o.soul.SetYolo(on)
	}
	a.yolo.set(dir, on)
	if on {
		c.statusModel().Mode = "YOLO"
		c.setMessage("yolo on in "+views.ElidePath(dir, 60)+": every tool call runs without asking (/yolo again to turn it off)", false)
	} else {
		c.statusModel().Mode = ""
		c.setMessage("yolo off: tool calls that write or execute ask first", false)
	}
	c.refreshStatus()
}

// onUIInstalled shows the yolo of the session just opened, and says so
// when yolo, on for the session before, is off in this one's work dir.
func (a *approvals) onUIInstalled(o *openSession) {
	c := a.c
	st := c.statusModel()
	was := st.Mode == "YOLO"
	on := a.yolo.in(workDirOf(o.sess, c.startDir))
	if o.soul != nil {
		on = o.soul.Yolo()
	}
	st.Mode = ""
	if on {
		st.Mode = "YOLO"
	}
	if was && !on {
		// After the switch's own "working in …", which this one says too.
		dir := views.ElidePath(workDirOf(o.sess, c.startDir), 60)
		c.onUIThreadAsync(func() {
			c.setMessage("yolo is off in this work dir ("+dir+"): tool calls that write or execute ask first (/yolo turns it on here)", false)
		})
	}
}

// cmdApprovals lists the session approvals, or revokes one or all.
func (a *approvals) cmdApprovals(arg string) {
	c := a.c
	o := c.cur()
	if o == nil || o.soul == nil {
		c.setMessage("nothing approved for this session yet", false)
		return
	}
	list := o.soul.ApprovedForSession()
	verb, what, _ := strings.Cut(arg, " ")
	switch strings.ToLower(verb) {
	case "":
		if len(list) == 0 {
			c.setMessage("nothing approved for this session yet: tool calls that write or execute ask first", false)
			return
		}
		var b strings.Builder
		b.WriteString("Approved for this session (/approvals revoke N, or all)")
		for i, s := range list {
			fmt.Fprintf(&b, "\n%d. %s", i+1, s)
		}
		infoBanner(c.conv, b.String())
	case "revoke", "clear":
		what = strings.TrimSpace(what)
		if verb == "clear" || what == "all" {
			n := o.soul.RevokeAllApprovals()
			c.setMessage(fmt.Sprintf("revoked %d session %s: every call that writes or executes asks again", n, words.Plural(n, "approval", "approvals")), false)
			return
		}
		n, err := strconv.Atoi(what)
		if err != nil || n < 1 || n > len(list) {
			c.setMessage(fmt.Sprintf("usage: /approvals revoke N (1 to %d) or /approvals revoke all", len(list)), true)
			return
		}
		o.soul.RevokeApproval(list[n-1])
		c.setMessage("revoked: "+list[n-1]+" asks again", false)
	default:
		c.setMessage("usage: /approvals, /approvals revoke N, /approvals revoke all", true)
	}
}
