package tui

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// watchFromRuns opens the runs view and watches session id from it.
func (h *harness) watchFromRuns(id string) {
	h.t.Helper()
	h.key(tcell.KeyCtrlL)
	h.waitUntil("the runs view", func() bool { return h.c.pages.top() == runsPage })
	h.waitUntil("the run listed and selected", func() bool {
		for i, r := range h.c.runs.list.Runs() {
			if r.SessionID == id {
				h.c.runs.list.Select(i)
				return true
			}
		}
		return false
	})
	h.key(tcell.KeyEnter)
	h.waitUntil("the run watched", func() bool { return h.c.SessionID() == id && h.c.readOnly && h.idle() })
}

// ownSessionBesideALiveWriter is a workspace (80x24) that has answered
// "my own prompt" in a session of its own, then the later replies, and
// beside it "the other run", a session another writer in this process
// holds and has run one turn in, published on the live socket.
func ownSessionBesideALiveWriter(t *testing.T, later ...llmtest.Reply) (*harness, store.Session, *liveWriter) {
	t.Helper()
	return ownSessionBesideALiveWriterWith(t, nil, later...)
}

// ownSessionBesideALiveWriterWith is ownSessionBesideALiveWriter with
// poll periods of the test's (periods changes the harness's).
func ownSessionBesideALiveWriterWith(t *testing.T, periods func(*pollPeriods), later ...llmtest.Reply) (*harness, store.Session, *liveWriter) {
	t.Helper()
	home := shortHome(t)
	mutate := func(o *Options) {
		o.Home = home
		if periods != nil {
			periods(o.polls)
		}
	}
	h := newHarness(t, hopts{w: 80, h: 24, mutate: mutate, beforeRun: fastRuns},
		append([]llmtest.Reply{llmtest.Text("my own answer")}, later...)...)
	h.submit("my own prompt")
	h.waitFor("my own answer")
	h.waitUntil("the own run to end", h.idle)
	b, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "the other run", WorkDir: h.work})
	if err != nil {
		t.Fatal(err)
	}
	w := startLiveWriter(t, h.db, home, b.ID, h.work, true, "first of the other", llmtest.Text("other answer one"))
	if err := <-w.done; err != nil {
		t.Fatal(err)
	}
	w.done <- nil // for the cleanup
	return h, b, w
}

// Watching a run from the runs view is a visit: Esc goes back to the
// session the workspace writes. A watched session whose writer left can be
// continued here (/continue, or Enter on it in the session list): the
// workspace takes its lease and becomes the writer. The runs view marks a
// run that takes approval answers from watchers, and the input's label
// never says another process writes a session whose writer left.
func TestWatchFromRunsGoesBackAndContinuesHere(t *testing.T) {
	t.Parallel()
	h, b, w := ownSessionBesideALiveWriter(t, llmtest.Text("continued here"))
	own := h.sessionID()

	h.key(tcell.KeyCtrlL)
	txt := h.waitFor("the other run", "⇄ idle", "⇄ takes approval answers from watchers")
	_ = txt
	h.key(tcell.KeyEsc)
	h.waitUntil("the runs view closed", func() bool { return h.c.pages.top() == "" })

	h.watchFromRuns(b.ID)
	h.waitFor("WATCH · live", "other answer one", "Esc: back to your session")
	h.key(tcell.KeyEsc)
	h.waitUntil("back at the own session, writing", func() bool { return h.c.SessionID() == own && !h.c.readOnly && h.idle() })
	var m string
	h.c.onUIThread(func() { m, _ = h.c.status.Message() })
	if strings.Contains(m, "watching") {
		t.Errorf("back at the own session, the status still says %q", m)
	}
	h.waitFor("my own answer")

	// The writer leaves the other session: it can be continued here.
	h.watchFromRuns(b.ID)
	h.waitFor("WATCH · live")
	w.pub.Close()
	if err := w.lease.Release(h.ctx); err != nil {
		t.Fatal(err)
	}
	// "writer left" is the live channel's word, with its notice: a poll
	// that saw the lease free first says "writer gone", and the notice
	// coming after would replace the refusal this test waits for (it did
	// under load).
	txt = h.waitFor("WATCH · writer left", "/continue writes it here")
	if strings.Contains(txt, "which another rewind process writes") {
		t.Fatalf("the input says another process writes a session whose writer left:\n%s", txt)
	}
	sess, err := h.db.GetSession(h.ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	h.waitUntil("the saved token count", func() bool { return h.c.statusM.Tokens == sess.Tokens })
	h.typeText("go on", true)
	h.waitUntil("the prompt refused, kept in the input", func() bool {
		m, _ := h.c.status.Message()
		return h.c.input.Text() == "go on" && m == "read-only: no process writes it now · /continue writes it here (your text stays in the input)"
	})
	h.key(tcell.KeyCtrlU)
	h.submit("/continue")
	h.waitUntil("this workspace writes the other session", func() bool {
		o := h.c.cur()
		return o != nil && o.sess.ID == b.ID && o.soul != nil && !h.c.readOnly && h.idle()
	})
	h.waitGone("WATCH")
	h.submit("and now from here")
	h.waitFor("continued here")
}

// A visit's live connection and mode label are its own: the connection
// of the first visit to a watched session stays open until its check sees
// the workspace left (up to liveRetry), and the label it set stayed until
// the writer check's next lap. A second visit to the same session before
// either said "WATCH · live" without a channel of its own, so the test that
// then waited for "live" made the writer leave before the visit's channel
// was up and saw "writer gone", not "writer left"
// (TestWatchFromRunsGoesBackAndContinuesHere under load). Here both are
// held: the first visit's connection stays open and the writer check does
// not lap after the first seconds.
func TestASecondWatchVisitIsNotLiveOnTheFirstVisitsConnection(t *testing.T) {
	t.Parallel()
	h, b, _ := ownSessionBesideALiveWriterWith(t, func(p *pollPeriods) {
		p.liveCheck = time.Hour // the first visit's connection outlives it
		p.writer = time.Hour    // no writer check between the visits
	})
	own := h.sessionID()

	h.watchFromRuns(b.ID)
	h.waitFor("WATCH · live", "other answer one")
	first := h.c.cur()
	h.key(tcell.KeyEsc)
	h.waitUntil("back at the own session", func() bool { return h.c.SessionID() == own && !h.c.readOnly && h.idle() })

	h.watchFromRuns(b.ID)
	h.waitUntil("the visit's message", func() bool { m, _ := h.c.status.Message(); return strings.HasPrefix(m, "Esc: back · watching") })
	h.waitFor("read-only: watching this session") // the installation's input, drawn (no writer check posted its own)
	if h.c.cur() == first {
		t.Fatal("the second visit reuses the first's open session")
	}
	if h.c.watch.live.Load() != first {
		t.Fatal("the first visit's connection closed: the test holds nothing")
	}
	var label string
	h.read(func() { label = h.c.watch.modeLabel() })
	if txt := h.text(); strings.Contains(txt, "WATCH · live") || strings.HasPrefix(label, "WATCH · live") {
		t.Fatalf("the second visit says live (mode %q) on the first visit's connection:\n%s", label, txt)
	}
}

// Enter on a watched session nobody writes, in the session browser (Ctrl-O),
// continues it here: it did nothing.
func TestEnterOnAWatchedSessionNobodyWritesContinuesIt(t *testing.T) {
	t.Parallel()
	var id string
	h := newHarness(t, hopts{w: 80, h: 24,
		before: func(h *harness) {
			s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "left behind", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
			seedTurns(t, h.db, id, "an old prompt")
		},
		mutate: func(o *Options) { o.Mode, o.SessionID = ModeWatch, id },
	}, llmtest.Text("picked up here"))
	h.waitFor("WATCH · no writer", "/continue writes it here")
	h.openBrowser()
	h.typeText("left behind", false)
	h.waitUntil("one match", func() bool { return len(h.c.br.list.Visible()) == 1 })
	h.key(tcell.KeyEnter)
	h.waitUntil("this workspace writes the session", func() bool {
		o := h.c.cur()
		return o != nil && o.sess.ID == id && o.soul != nil && !h.c.readOnly && h.idle()
	})
	h.submit("go on")
	h.waitFor("picked up here")
}

// The watcher's "compacting…" goes when the writer's compaction ends, not
// a message's whole six seconds later.
func TestWatchCompactingClearsAtItsEnd(t *testing.T) {
	t.Parallel()
	h, w, _ := watchHarness(t, false, llmtest.Text("one"), llmtest.Text("the summary"))
	if err := <-w.done; err != nil {
		t.Fatal(err)
	}
	w.done <- nil // for the cleanup
	h.waitFor("one")
	h.waitUntil("the watcher to be connected", func() bool { return h.c.watch.conn != nil })
	if err := w.soul.Compact(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the summary")
	ended := time.Now()
	h.waitUntil("compacting… gone", func() bool { m, _ := h.c.status.Message(); return m != "compacting…" })
	if d := time.Since(ended); d > 3*time.Second {
		t.Errorf("compacting… stayed %v after the compaction ended", d)
	}
}

// After the writer's run ends and it leaves, the watcher's token count is
// the session's as saved (what rewind sessions says), not the last figure
// the writer published mid-run (it showed 40 where sessions said 1,240).
func TestWatcherTokensAfterTheWriterLeft(t *testing.T) {
	t.Parallel()
	h, w, id := watchHarness(t, false, llmtest.Text("a short answer").WithUsage(1200, 40))
	if err := <-w.done; err != nil {
		t.Fatal(err)
	}
	w.done <- nil // for the cleanup
	h.waitFor("a short answer")
	w.pub.Close()
	if err := w.lease.Release(h.ctx); err != nil {
		t.Fatal(err)
	}
	sess, err := h.db.GetSession(h.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Tokens != 1240 {
		t.Fatalf("the session saved %d tokens, want the usage's 1,240", sess.Tokens)
	}
	h.waitUntil("the writer seen gone", func() bool { return h.c.watch.writerGone() })
	h.waitUntil("the saved token count", func() bool { return h.c.statusM.Tokens == sess.Tokens })
}

// TestWriterLeftAfterThePollSawItsLeaseFreeSaysContinue: a writer check
// that finds the lease free while the live channel is still up keeps the
// channel's "live" label (it knows better); when the channel then closes,
// the input must say the writer left and /continue writes it here. It
// kept "another rewind process writes it" for good: the check posts only
// changes, and it had posted its "gone" already (failed clean CI runs of
// TestWatchFromRunsGoesBackAndContinuesHere).
func TestWriterLeftAfterThePollSawItsLeaseFreeSaysContinue(t *testing.T) {
	t.Parallel()
	h, b, w := ownSessionBesideALiveWriter(t)
	h.watchFromRuns(b.ID)
	h.waitFor("WATCH · live", "other answer one")
	if err := w.lease.Release(h.ctx); err != nil {
		t.Fatal(err)
	}
	st := &h.c.pollStats
	checks := st.writerChecks.Load()
	h.waitUntil("a whole writer check after the release", func() bool { return st.writerChecks.Load() >= checks+2 })
	w.pub.Close()
	h.waitFor("WATCH · writer left", "the writer left it", "/continue writes it here")
}

// TestPromptTypedBeforeTheOpenedSessionShowsStays: a prompt typed as soon
// as the workspace switched to another session, before the view the switch
// read is shown, is never lost from the screen: it runs and stays, or it
// stays in the input saying why. The switch ended at the installation, so
// the prompt ran, and the view read before the prompt was saved came after
// its answer and replaced the conversation: prompt and answer gone from the
// screen (TestWatchFromRunsGoesBackAndContinuesHere under load, after
// /continue). The switch's view is held back here between its read and its
// post.
func TestPromptTypedBeforeTheOpenedSessionShowsStays(t *testing.T) {
	t.Parallel()
	gate := newHookGate(t)
	h := newHarness(t, hopts{w: 120, h: 40, beforeRun: func(h *harness) { h.c.reader.hold = gate.hold }},
		llmtest.Text("first answer"), llmtest.Text("the answer in the fork"))
	h.submit("first question")
	h.waitFor("first answer")
	h.waitUntil("the run to end", h.idle)
	orig := h.sessionID()

	gate.arm()
	h.submit("/fork")
	gate.waitHeld(t, "the fork's view was never read")
	h.waitUntil("the fork installed", func() bool { o := h.c.cur(); return o != nil && o.sess.ID != orig && o.soul != nil })
	const prompt = "typed at once"
	h.typeText(prompt, true)
	var kept bool
	h.waitUntil("the prompt sent or kept", func() bool {
		m, _ := h.c.status.Message()
		kept = h.c.input.Text() == prompt && strings.HasSuffix(m, "(your text stays in the input)")
		return kept || h.c.input.Text() == ""
	})
	if !kept {
		h.waitFor("the answer in the fork")
	}
	gate.open()
	h.waitFor("Forked session") // the switch's view, with its banner
	if kept {
		h.waitUntil("the switch to end", h.idle)
		h.key(tcell.KeyEnter)
		h.waitFor("the answer in the fork")
	}
	h.waitUntil("the run to end", h.idle)
	if txt := h.text(); !strings.Contains(txt, prompt) || !strings.Contains(txt, "the answer in the fork") {
		t.Errorf("the prompt typed at the switch, or its answer, is gone from the screen:\n%s", txt)
	}
}

// TestWatchedSessionShowsTheTokensOfItsView: the token count a watched
// session opens with is the one saved with the view it shows. It was the
// count of the session's read, which comes before the view's: a writer's
// step that landed between the two showed in the conversation, and the
// count stayed the one before it until the writer's next record, for good
// when none came (TestWatcherTokensAfterTheWriterLeft waited 30 s for the
// saved count once: its writer's one step landed as the watcher opened,
// with no live channel yet). Here the step lands between the two reads of
// opening, from the browser, a session another process writes.
func TestWatchedSessionShowsTheTokensOfItsView(t *testing.T) {
	t.Parallel()
	var ids []string
	var armed atomic.Bool
	landed := make(chan error, 1)
	h := newHarness(t, hopts{w: 160, h: 44,
		before: func(h *harness) { ids = browserSessions(t, h.db, h.work) },
		mutate: func(o *Options) { o.Mode, o.SessionID = ModeResume, ids[2] },
		beforeRun: func(h *harness) {
			h.c.reader.beforeRead = func(id string) {
				if id != ids[0] || !armed.CompareAndSwap(true, false) {
					return
				}
				landed <- landStep(h, id, "the late answer", 1240)
			}
		},
	})
	findLeasedZebra(t, h, ids[0])
	armed.Store(true)
	h.key(tcell.KeyEnter)
	select {
	case err := <-landed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitLimit):
		t.Fatal("the watched session's view was never read")
	}
	var tokens int
	h.waitUntil("the view with the step that landed", func() bool {
		for _, it := range convItems(h.c.conv, h.c.conv.Len()) {
			if strings.Contains(it.Text, "the late answer") {
				tokens = h.c.statusM.Tokens // set in the update that shows the view
				return h.c.SessionID() == ids[0] && h.c.readOnly
			}
		}
		return false
	})
	sess, err := h.db.GetSession(h.ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if sess.Tokens != 1240 {
		t.Fatalf("the session saved %d tokens, want the step's 1,240", sess.Tokens)
	}
	if tokens != sess.Tokens {
		t.Fatalf("the status bar counts %d tokens beside the view, where the session saved %d with it", tokens, sess.Tokens)
	}
}

// landStep commits a turn to session id as its writer would: a prompt and
// an answer whose usage is tokens.
func landStep(h *harness, id, answer string, tokens int) error {
	ctx := context.Background()
	if _, err := h.db.Checkpoint(ctx, id, false); err != nil {
		return err
	}
	if _, err := h.db.AppendMessage(ctx, id, message.NewText("user", "a late question")); err != nil {
		return err
	}
	_, err := h.db.CommitStep(ctx, id, store.Step{Assistant: message.NewText("assistant", answer), TokenCount: tokens})
	return err
}

// TestWatchedViewReadBeforeAStepDoesNotStayShown: opening a session
// another process writes reads its view twice at once, the switch's
// reload and the version poll's first catch-up. When a step landed
// between the two, the reload's older view was adopted and shown after
// the catch-up's, and the poll, which had seen the version with the step,
// never read again: the step stayed off the screen, with the count before
// it, for good (TestWatchedSessionShowsTheTokensOfItsView, 1 run in 4
// under -race at load 25). The reload is held here between its read and
// its post while the step lands and the catch-up shows it.
func TestWatchedViewReadBeforeAStepDoesNotStayShown(t *testing.T) {
	t.Parallel()
	var ids []string
	gate := newHookGate(t)
	h := newHarness(t, hopts{w: 160, h: 44,
		before:    func(h *harness) { ids = browserSessions(t, h.db, h.work) },
		mutate:    func(o *Options) { o.Mode, o.SessionID = ModeResume, ids[2] },
		beforeRun: func(h *harness) { h.c.reader.hold = gate.hold },
	})
	findLeasedZebra(t, h, ids[0])
	gate.arm()
	h.key(tcell.KeyEnter)
	gate.waitHeld(t, "the opened session's view was never read")
	if err := landStep(h, ids[0], "the late answer", 1240); err != nil {
		t.Fatal(err)
	}
	shows := func() bool {
		for _, it := range convItems(h.c.conv, h.c.conv.Len()) {
			if strings.Contains(it.Text, "the late answer") {
				return h.c.SessionID() == ids[0] && h.c.statusM.Tokens == 1240
			}
		}
		return false
	}
	h.waitUntil("the version poll's catch-up to show the step", shows)
	adopted := h.c.pollStats.adopts.Load()
	gate.open()
	h.waitUntil("the held view adopted", func() bool { return h.c.pollStats.adopts.Load() > adopted })
	h.waitUntil("the step and its count on screen after the older view", shows)
}

// findLeasedZebra leases session id (browserSessions' "zebra notes") as
// another process writing it would, and filters the browser down to it:
// Enter opens it.
func findLeasedZebra(t *testing.T, h *harness, id string) {
	t.Helper()
	lease, err := h.db.AcquireLease(h.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lease.Release(context.Background()) })
	h.openBrowser()
	h.typeText("zebr", false)
	h.waitUntil("one match", func() bool { return len(h.c.br.list.Visible()) == 1 })
}
