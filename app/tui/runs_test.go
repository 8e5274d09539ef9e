package tui

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/app/live"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// shortHome is a REWIND_HOME short enough for socket paths (108 bytes).
func shortHome(t *testing.T) string {
	t.Helper()
	home, err := os.MkdirTemp("", "rwr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	return home
}

// otherWriter is a session another rewind process writes: its lease is
// held and a real live.Publisher announces it; the test publishes the
// run's events by hand.
func otherWriter(t *testing.T, db *store.DB, home, title, workDir string) (string, *live.Publisher) {
	t.Helper()
	ctx := context.Background()
	s, err := db.CreateSession(ctx, store.NewSession{Title: title, WorkDir: workDir})
	if err != nil {
		t.Fatal(err)
	}
	lease, err := db.AcquireLease(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := live.Listen(live.Options{Home: home, Hello: live.Hello{SessionID: s.ID, WorkDir: workDir, PID: 4242}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pub.Close()
		lease.Release(context.Background())
	})
	return s.ID, pub
}

// fastRuns makes the runs view re-list every 20 ms.
func fastRuns(h *harness) { h.c.polls.runs = 20 * time.Millisecond }

// rowWith is the screen row containing sub (-1: none).
func (h *harness) rowWith(sub string) int {
	return rowOf(h.rows(), sub)
}

func rowOf(rows []string, sub string) int {
	for y, r := range rows {
		if strings.Contains(r, sub) {
			return y
		}
	}
	return -1
}

// waitRows waits until cond holds for the screen's rows.
func (h *harness) waitRows(what string, cond func(rows []string) bool) {
	h.t.Helper()
	if txt, ok := h.waitScreen(func(txt string) bool { return cond(strings.Split(txt, "\n")) }); !ok {
		h.t.Fatalf("timed out waiting for %s; screen:\n%s", what, txt)
	}
}

// selectedRow reports whether screen row y is drawn as the selection.
func (h *harness) selectedRow(y int) bool {
	_, bg, _ := h.cell(3, y).Style.Decompose()
	return bg == h.theme().SelectionBg
}

// TestRunsViewFollowsRunsOfOtherProcesses: Ctrl-L lists the runs other
// processes write, with their state; the list changes as their runs do,
// the selection stays on its session when the order changes, and Enter
// watches the selected run at once (no watch-or-fork question, although
// its lease is held).
func TestRunsViewFollowsRunsOfOtherProcesses(t *testing.T) {
	t.Parallel()
	home := shortHome(t)
	var idB string
	var pubA, pubB *live.Publisher
	h := newHarness(t, hopts{
		before: func(h *harness) {
			_, pubA = otherWriter(t, h.db, home, "parser rewrite", "/home/dev/src/parser")
			idB, pubB = otherWriter(t, h.db, home, "flaky test hunt", "/home/dev/src/runner")
		},
		mutate:    func(o *Options) { o.Home = home },
		beforeRun: fastRuns,
	})
	h.waitFor("fake-model")
	h.key(tcell.KeyCtrlL)
	h.waitFor("Live runs", "parser rewrite", "flaky test hunt", "/home/dev/src/runner", "STATE", "TOKENS")

	// The first run gets going: streaming, its step and tokens, then a tool.
	pubA.Publish(soul.StepBegin{N: 1})
	pubA.Publish(soul.StatusUpdate{Step: 1, Tokens: 12345})
	txt := h.waitFor("streaming", "12.3k")
	if y := h.rowWith("parser rewrite"); y < 0 || !strings.Contains(h.rows()[y], "streaming") {
		t.Fatalf("the running run's row does not say it streams:\n%s", txt)
	}
	pubA.Publish(soul.ToolCall{ID: "c1", Name: "Shell"})
	h.waitFor("running tool Shell")

	// Select the other run (second, the idle one), then start it: it moves
	// to the top and stays selected.
	yB := h.rowWith("flaky test hunt")
	if yB < h.rowWith("parser rewrite") {
		t.Fatalf("the idle run is listed before the running one:\n%s", h.text())
	}
	h.key(tcell.KeyDown)
	h.waitUntil("the second run to be selected", func() bool { r, _ := h.c.runs.list.Selected(); return r.SessionID == idB })
	if !h.selectedRow(yB) {
		t.Fatalf("the selected run's row %d is not drawn selected:\n%s", yB, h.text())
	}
	pubB.Publish(soul.StepBegin{N: 1})
	pubB.Publish(&soul.ApprovalRequest{ToolCallID: "c9", Tool: "WriteFile"})
	h.waitFor("waiting for approval")
	h.waitRows("the second run to move to the top", func(rows []string) bool {
		return rowOf(rows, "flaky test hunt") < rowOf(rows, "parser rewrite")
	})
	if y := h.rowWith("flaky test hunt"); !h.selectedRow(y) {
		t.Fatalf("the selection did not follow its run to row %d:\n%s", y, h.text())
	}

	h.key(tcell.KeyEnter)
	h.waitUntil("the selected run to be watched", func() bool {
		return h.c.SessionID() == idB && h.c.readOnly && h.idle()
	})
	h.waitGone("Live runs")
	if top := h.c.pages.top(); top != "" {
		t.Fatalf("watching opened %q instead of the session", top)
	}
	h.waitFor("WATCH · live · pid 4242")
}

// TestRunsViewEmptyAndOwnSession: with no live run the view says so; the
// workspace's own run is marked, and Enter on it just closes the view.
// Closing stops the view's poller.
func TestRunsViewEmptyAndOwnSession(t *testing.T) {
	t.Parallel()
	home := shortHome(t)
	h := newHarness(t, hopts{mutate: func(o *Options) { o.Home = home }, beforeRun: fastRuns}, llmtest.Text("all done"))
	h.waitFor("fake-model")
	h.submit("/runs")
	h.waitFor("No live runs.")
	h.key(tcell.KeyEsc)
	h.waitGone("No live runs.")
	h.waitUntil("the runs poller to stop", func() bool { return h.c.pollStats.runsPollers.Load() == 0 })

	h.submit("hello there")
	h.waitFor("all done")
	h.waitUntil("the run to end", h.idle)
	own := h.sessionID()
	h.key(tcell.KeyCtrlL)
	h.waitFor("Live runs", "hello there", "idle")
	y := h.rowWith("hello there")
	if c := h.cell(1, y); string(c.Runes) != "▶" {
		t.Fatalf("the own session is not marked ▶ (got %q):\n%s", string(c.Runes), h.text())
	}
	h.key(tcell.KeyEnter)
	h.waitGone("Live runs")
	if id := h.sessionID(); id != own {
		t.Fatalf("Enter on the own run switched to %s", id)
	}
	h.waitUntil("the runs poller to stop", func() bool { return h.c.pollStats.runsPollers.Load() == 0 })
}

// TestRunsViewAt80x24: at 80×24 a run with a long title and work dir keeps
// its columns: the work dir keeps its last element, the state and the
// numbers show, and the status bar stays under the list.
func TestRunsViewAt80x24(t *testing.T) {
	t.Parallel()
	home := shortHome(t)
	var pub *live.Publisher
	h := newHarness(t, hopts{w: 80, h: 24,
		before: func(h *harness) {
			_, pub = otherWriter(t, h.db, home, "a rather long title for a session that goes on and on",
				"/home/developer/work/clients/acme/monorepo/services/billing-api")
		},
		mutate:    func(o *Options) { o.Home = home },
		beforeRun: fastRuns,
	})
	pub.Publish(soul.StepBegin{N: 3})
	pub.Publish(soul.StatusUpdate{Step: 3, Tokens: 48200})
	pub.Publish(soul.ToolCall{ID: "c1", Name: "Shell"})
	h.waitFor("fake-model")
	h.key(tcell.KeyCtrlL)
	h.waitFor("running tool Shell", "48.2k")
	rows := h.rows()
	y := h.rowWith("running tool Shell")
	row := rows[y]
	for _, want := range []string{"a rather long", "…/billing-api", "   3 ", "48.2k"} {
		if !strings.Contains(row, want) {
			t.Errorf("the run's row lacks %q at 80 columns:\n%s", want, strings.Join(rows, "\n"))
		}
	}
	if !strings.HasSuffix(strings.TrimRight(row, " ║"), "48.2k") {
		t.Errorf("the tokens are not the last column:\n%q", row)
	}
	if head := rows[y-1]; !strings.Contains(head, "TITLE") || !strings.Contains(head, "WORK DIR") || !strings.Contains(head, "TOKENS") {
		t.Errorf("the column headers do not fit at 80 columns:\n%q", head)
	}
	if !strings.Contains(rows[len(rows)-1], "fake-model") {
		t.Errorf("the status bar is not under the list:\n%s", strings.Join(rows, "\n"))
	}
}

// TestRunsShowAResumedSessionsNumbersBeforeItRuns: a writer that has not
// run yet publishes the session's token count and context share from the
// store (`rewind runs` said 0 tokens for a resumed 48.1M-token session).
func TestRunsShowAResumedSessionsNumbersBeforeItRuns(t *testing.T) {
	t.Parallel()
	home := shortHome(t)
	var id string
	h := newHarness(t, hopts{
		before: func(h *harness) {
			s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "big one", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
			h.db.AppendMessage(h.ctx, id, message.NewText("user", "an old prompt"))
			h.db.AppendMessage(h.ctx, id, message.NewText("assistant", "an old answer"))
			if _, err := h.db.AppendUsage(h.ctx, id, 48_100); err != nil {
				t.Fatal(err)
			}
		},
		mutate: func(o *Options) { o.Mode, o.SessionID, o.Home = ModeResume, id, home },
	})
	h.waitFor("an old answer")
	hellos, err := live.List(h.ctx, home)
	if err != nil || len(hellos) != 1 {
		t.Fatalf("live runs %+v, %v", hellos, err)
	}
	if r := hellos[0].Run; r.Tokens < 48_100 || r.MaxContext == 0 || r.ContextPercent <= 0 || r.State != live.StateIdle {
		t.Fatalf("the idle writer publishes %+v, want the session's tokens and context share", r)
	}
}

// TestWatchingFromRunsNeverOffersWatchOrFork: a workspace that wrote a
// session of its own watches another process's run from the runs view;
// that writer's next prompt shows up live and no "Session in use"
// question pops up (it did, one key away from Quit, when the runs view
// opened the run through the lease).
func TestWatchingFromRunsNeverOffersWatchOrFork(t *testing.T) {
	t.Parallel()
	home := shortHome(t)
	h := newHarness(t, hopts{mutate: func(o *Options) { o.Home = home }, beforeRun: fastRuns}, llmtest.Text("my own answer"))
	h.submit("my own prompt")
	h.waitFor("my own answer")
	h.waitUntil("the own run to end", h.idle)
	own := h.sessionID()

	b, err := h.db.CreateSession(h.ctx, store.NewSession{WorkDir: h.work})
	if err != nil {
		t.Fatal(err)
	}
	w := startLiveWriter(t, h.db, home, b.ID, h.work, false, "first of the other", llmtest.Text("other answer one"), llmtest.Text("other answer two"))
	if err := <-w.done; err != nil {
		t.Fatal(err)
	}
	w.done <- nil // for the cleanup

	h.key(tcell.KeyCtrlL)
	h.waitFor("Live runs", "first of the other")
	for range 3 {
		var sel string
		h.c.onUIThread(func() { r, _ := h.c.runs.list.Selected(); sel = r.SessionID })
		if sel == b.ID {
			break
		}
		h.key(tcell.KeyDown)
	}
	h.key(tcell.KeyEnter)
	h.waitUntil("the other run to be watched", func() bool { return h.c.SessionID() == b.ID && h.c.readOnly && h.idle() })
	h.waitFor("WATCH · live", "other answer one")

	if err := w.soul.Run(h.ctx, "second of the other"); err != nil {
		t.Fatal(err)
	}
	txt := h.waitFor("second of the other", "other answer two")
	if strings.Contains(txt, "Session in use") || h.onUI(func() bool { return h.c.pages.top() != "" }) {
		t.Fatalf("watching asked what to do with the session:\n%s", txt)
	}
	if h.sessionID() == own || !h.onUI(func() bool { return h.c.readOnly }) {
		t.Fatal("the workspace stopped watching the other run")
	}
}

// TestRunsViewListsASubagentUnderItsParent: the runs view (Ctrl-L) lists a
// running sub-agent on the row after its parent's, marked with its type,
// as `rewind runs` does.
func TestRunsViewListsASubagentUnderItsParent(t *testing.T) {
	t.Parallel()
	home := shortHome(t)
	h := newHarness(t, hopts{mutate: func(o *Options) { o.Home = home }, beforeRun: fastRuns})
	parent, _ := otherWriter(t, h.db, home, "parent run", h.work)
	otherWriter(t, h.db, home, "an unrelated run", h.work)
	child, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "count the failing tests", WorkDir: h.work})
	if err != nil {
		t.Fatal(err)
	}
	pub, err := live.Listen(live.Options{Home: home, Hello: live.Hello{SessionID: child.ID, WorkDir: h.work, PID: 4243,
		SubagentOf: parent, SubagentType: "coder"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pub.Close() })
	h.waitFor("fake-model")
	h.key(tcell.KeyCtrlL)
	h.waitRows("the child under its parent", func(rows []string) bool {
		p, c := rowOf(rows, "parent run"), rowOf(rows, "↳ coder · count the failing tests")
		return p >= 0 && c == p+1 && rowOf(rows, "an unrelated run") >= 0
	})
}
