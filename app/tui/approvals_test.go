package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/app/demo"
	"github.com/rewind-agent/rewind/app/live"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// askedRequest is an approval request as another source would post it
// (the soul asks one at a time; the queue is for everything else).
func askedRequest(id, description string) *soul.ApprovalRequest {
	return &soul.ApprovalRequest{ToolCallID: id, Tool: "Shell", Action: "run shell command", Description: description, Command: "true"}
}

// queued reports how many requests wait behind the one on screen (UI: pass
// it to waitUntil, or use onUIThread).
func (h *harness) queued() int { return len(h.c.ap.queue) }

// onUI returns f's result, evaluated on the UI goroutine.
func (h *harness) onUI(f func() bool) bool {
	var ok bool
	h.read(func() { ok = f() })
	return ok
}

// TestApprovalsShownInTheOrderAsked: requests asked while one is on screen
// queue behind it and come up one at a time, first asked first; each gets
// its own grace.
func TestApprovalsShownInTheOrderAsked(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{})
	h.waitFor("fake-model")
	for i, d := range []string{"first request", "second request", "third request"} {
		h.c.post(askedRequest(string(rune('a'+i)), d))
	}
	h.waitUntil("two requests to queue", func() bool { return h.queued() == 2 })
	for _, d := range []string{"first request", "second request", "third request"} {
		h.waitFor(d)
		for _, other := range []string{"first request", "second request", "third request"} {
			if other != d && strings.Contains(h.text(), other) {
				t.Fatalf("%q is on screen with %q", other, d)
			}
		}
		h.expectGraceSwallows('y')
		h.clock.advance(approvalGrace)
		h.typeText("y", false)
		h.waitGone(d)
	}
	h.waitGone("[y] approve")
	if h.onUI(func() bool { return h.queued() != 0 }) {
		t.Fatal("requests are still queued")
	}
}

// TestApprovalGraceEndsAtItsClock: within the grace every answer key is
// dropped, however many; at approvalGrace on the controller's clock the
// next key answers. Ctrl-C is never dropped.
func TestApprovalGraceEndsAtItsClock(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{})
	h.waitFor("fake-model")
	h.c.post(askedRequest("a", "the only request"))
	h.waitFor("the only request", "[y] approve")
	h.expectGraceSwallows('y')
	h.clock.advance(approvalGrace / 2)
	h.expectGraceSwallows('n')
	h.clock.advance(approvalGrace/2 - 1)
	h.expectGraceSwallows('a')
	dropped := true
	h.c.onUIThread(func() { dropped = h.c.ap.swallows(tcell.NewEventKey(tcell.KeyCtrlC, 0, tcell.ModCtrl)) })
	if dropped {
		t.Fatal("Ctrl-C was dropped within the grace")
	}
	h.clock.advance(1)
	h.typeText("n", false)
	h.waitGone("the only request")
}

// TestInterruptRejectsPendingApprovals: Ctrl-C during a run, even within
// the grace, interrupts it: the request on screen is rejected (the file is
// not written), the queued ones are dropped rather than shown, and the
// workspace is idle again.
func TestInterruptRejectsPendingApprovals(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{},
		llmtest.Calls(llmtest.Call("w1", "WriteFile", map[string]any{"path": "never.txt", "content": "x"})))
	h.submit("write never")
	h.waitFor("Approve WriteFile", "[y] approve")
	h.c.post(askedRequest("q1", "a queued request"))
	h.waitUntil("a request to queue", func() bool { return h.queued() == 1 })
	h.key(tcell.KeyCtrlC)
	h.waitGone("[y] approve")
	h.waitUntil("the run to end", h.idle)
	if strings.Contains(h.text(), "a queued request") {
		t.Fatal("a queued request came up after the interrupt")
	}
	if h.onUI(func() bool { return h.queued() != 0 }) {
		t.Fatal("requests are still queued")
	}
	if _, err := os.Stat(filepath.Join(h.work, "never.txt")); err == nil {
		t.Fatal("the write ran after the interrupt")
	}
}

// TestWatcherAnswerClosesTheWritersModal: a watcher answers the writer's
// request first: its answer is the one the soul gets, and the writer's
// modal closes, while the run goes on, saying who answered.
func TestWatcherAnswerClosesTheWritersModal(t *testing.T) {
	t.Parallel()
	home, err := os.MkdirTemp("", "rwa") // short: socket paths must fit in 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	h := newHarness(t, hopts{mutate: func(o *Options) { o.Home, o.AllowRemoteApproval = home, true }},
		llmtest.Calls(llmtest.Call("w1", "WriteFile", map[string]any{"path": "remote.txt", "content": "x"})),
		llmtest.Hang(3)) // the run stays on after the answer
	h.submit("write remote")
	h.waitFor("Approve WriteFile", "[y] approve")
	conn, err := live.Dial(h.ctx, home, h.sessionID())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Answer("w1", soul.RejectWithFeedback, "print it instead"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("answered from a watcher (pid", "rejected with feedback")
	h.waitGone("[y] approve")
	h.waitUntil("the model to get the feedback", func() bool {
		reqs := h.srv.Requests()
		return len(reqs) == 2 && strings.Contains(string(reqs[1].Body), "print it instead")
	})
	if h.onUI(h.idle) {
		t.Fatal("the run ended: the modal may have closed with it, not with the answer")
	}
	if _, err := os.Stat(filepath.Join(h.work, "remote.txt")); err == nil {
		t.Fatal("the rejected write ran")
	}
}

// TestWatcherAnswerStaysOnTheWritersScreen: an answer from a watcher
// leaves a line under the tool call in the writer's conversation — who
// answered, how, and the feedback of a rejection — and the status message
// outlives the run's end (it was cleared at once: under a second on
// screen, and nothing in the conversation but "✗ WriteFile").
func TestWatcherAnswerStaysOnTheWritersScreen(t *testing.T) {
	t.Parallel()
	home := shortHome(t)
	h := newHarness(t, hopts{mutate: func(o *Options) { o.Home, o.AllowRemoteApproval = home, true }},
		llmtest.Calls(llmtest.Call("w1", "WriteFile", map[string]any{"path": "remote.txt", "content": "x"})),
		llmtest.Text("Printed it instead."))
	h.submit("write remote")
	h.waitFor("Approve WriteFile", "[y] approve")
	conn, err := live.Dial(h.ctx, home, h.sessionID())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Answer("w1", soul.RejectWithFeedback, "print it instead"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("Printed it instead.")
	h.waitUntil("the run to end", h.idle)
	// The line names the call by its label, as its row does.
	txt := h.waitFor("WriteFile remote.txt rejected with feedback from a watcher", fmt.Sprintf("%d)", os.Getpid()), "“print")
	rows := h.rows()
	tool, line := rowOf(rows, "WriteFile"), rowOf(rows, "from a watcher (pid")
	if tool < 0 || line <= tool || rowOf(rows, "Printed it instead.") < line {
		t.Fatalf("the answer's line is not under the tool call, before the answer:\n%s", txt)
	}
	h.waitUntil("the status message to outlive the run", func() bool {
		m, _ := h.c.status.Message()
		return strings.Contains(m, "answered from a watcher")
	})
}

// TestDemoSaysWhoAnswered: in `rewind demo` the tool round trip's table
// says who answered the WriteFile's approval: "asked you" when it was
// this screen, the watcher's pid when a watcher (another process) did; it
// said "asked you" for both.
func TestDemoSaysWhoAnswered(t *testing.T) {
	t.Parallel()
	for _, watcher := range []bool{false, true} {
		t.Run(fmt.Sprintf("watcher=%v", watcher), func(t *testing.T) {
			t.Parallel()
			home := shortHome(t)
			m, err := demo.Start(demo.Options{TokensPerSecond: 20000})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(m.Close)
			h := newHarness(t, hopts{w: 160, h: 48, mutate: func(o *Options) {
				o.Home, o.AllowRemoteApproval, o.Client, o.Model = home, true, m.Client(), demo.ModelName
				o.ApprovalAnswered = m.Answered // as app wires `rewind demo`
			}})
			h.submit("write a file")
			h.waitFor("Approve WriteFile", "[y] approve")
			want := "asked you"
			if watcher {
				var id string
				h.c.onUIThread(func() { id = h.c.ap.cur.ToolCallID })
				conn, err := live.Dial(h.ctx, home, h.sessionID())
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				if err := conn.Answer(id, soul.ApproveOnce, ""); err != nil {
					t.Fatal(err)
				}
				want = fmt.Sprintf("by watcher pid %d", os.Getpid())
			} else {
				h.clock.advance(approvalGrace)
				h.typeText("y", false)
			}
			h.waitFor("reads back as written", "ReadFile")
			h.waitUntil("the run to end", h.idle)
			rows := h.rows()
			row := rowOf(rows, "│ WriteFile │")
			if row < 0 || !strings.Contains(rows[row], want) {
				t.Fatalf("the demo's table does not say %q:\n%s", want, strings.Join(rows, "\n"))
			}
		})
	}
}
