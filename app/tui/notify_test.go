package tui

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// ttyScreen is a simulation screen with a terminal behind it, as the real
// one has: the bells rung and the bytes written to the tty (where the OSC
// notifications go) are recorded.
type ttyScreen struct {
	tcell.SimulationScreen
	mu    sync.Mutex
	bells int
	out   bytes.Buffer
}

func (s *ttyScreen) Beep() error {
	s.mu.Lock()
	s.bells++
	s.mu.Unlock()
	return nil
}

func (s *ttyScreen) Tty() (tcell.Tty, bool) { return recordingTty{s}, true }

// recorded is what reached the terminal so far.
func (s *ttyScreen) recorded() (bells int, out string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bells, s.out.String()
}

// recordingTty is the tty of a ttyScreen: writes are kept, reads end.
type recordingTty struct{ s *ttyScreen }

func (t recordingTty) Write(p []byte) (int, error) {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	return t.s.out.Write(p)
}

func (recordingTty) Read([]byte) (int, error) { return 0, io.EOF }
func (recordingTty) Close() error             { return nil }
func (recordingTty) Start() error             { return nil }
func (recordingTty) Stop() error              { return nil }
func (recordingTty) Drain() error             { return nil }
func (recordingTty) NotifyResize(func())      {}
func (recordingTty) WindowSize() (tcell.WindowSize, error) {
	return tcell.WindowSize{Width: 120, Height: 40}, nil
}

// notifyHarness is a workspace with notify set to mode on a ttyScreen.
func notifyHarness(t *testing.T, mode string, o hopts, replies ...llmtest.Reply) (*harness, *ttyScreen) {
	t.Helper()
	var ts *ttyScreen
	mutate := o.mutate
	o.mutate = func(opts *Options) {
		if mutate != nil {
			mutate(opts)
		}
		ts = &ttyScreen{SimulationScreen: opts.Screen.(tcell.SimulationScreen)}
		opts.Screen, opts.Notify = ts, mode
	}
	return newHarness(t, o, replies...), ts
}

// waitNotified waits until the bell rang at least bells times and every
// text in osc arrived as an OSC 9 and an OSC 777 notification.
func (h *harness) waitNotified(ts *ttyScreen, bells int, osc ...string) {
	h.t.Helper()
	h.waitUntil("the notification", func() bool {
		b, out := ts.recorded()
		for _, text := range osc {
			if !strings.Contains(out, "\x1b]9;rewind: "+text) || !strings.Contains(out, "\x1b]777;notify;rewind;"+text) {
				return false
			}
		}
		return b >= bells
	})
}

// ownRun is a run the workspace writes that asks to approve a WriteFile,
// finishes, and then a second one that fails.
func ownRun(t *testing.T, h *harness) {
	t.Helper()
	h.submit("write the notes")
	h.waitFor("[y] approve")
}

var ownRunReplies = []llmtest.Reply{
	llmtest.Calls(llmtest.Call("c1", "WriteFile", map[string]any{"path": "notes.txt", "content": "n\n"})),
	llmtest.Text("Wrote notes.txt."),
	llmtest.HTTPError(400, "the request is malformed"),
}

// TestNotifyOwnRunsBell: with notify = "bell" (and by default) the bell
// rings when a run the workspace writes waits for approval, finishes and
// fails; nothing is written to the terminal.
func TestNotifyOwnRunsBell(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"bell", ""} {
		t.Run("notify="+mode, func(t *testing.T) {
			t.Parallel()
			h, ts := notifyHarness(t, mode, hopts{}, ownRunReplies...)
			h.waitFor("fake-model")
			ownRun(t, h)
			h.waitNotified(ts, 1)
			h.clock.advance(approvalGrace)
			h.typeText("y", false)
			h.waitFor("Wrote notes.txt.")
			h.waitUntil("the run to end", h.idle)
			h.waitNotified(ts, 2)
			h.submit("and again")
			h.waitFor("the request is malformed")
			h.waitNotified(ts, 3)
			if b, out := ts.recorded(); b != 3 || out != "" {
				t.Fatalf("bells %d (want 3: approval, finished, failed), tty %q (want nothing)", b, out)
			}
		})
	}
}

// TestNotifyOwnRunsOSC: with notify = "osc" each event is an OSC 9 and an
// OSC 777 desktop notification saying what happened, and no bell.
func TestNotifyOwnRunsOSC(t *testing.T) {
	t.Parallel()
	h, ts := notifyHarness(t, "osc", hopts{}, ownRunReplies...)
	h.waitFor("fake-model")
	ownRun(t, h)
	h.waitNotified(ts, 0, "waiting for approval: WriteFile")
	h.clock.advance(approvalGrace)
	h.typeText("y", false)
	h.waitFor("Wrote notes.txt.")
	h.waitNotified(ts, 0, "run finished: write the notes")
	h.submit("and again")
	h.waitFor("the request is malformed")
	h.waitNotified(ts, 0, "run failed: error")
	b, out := ts.recorded()
	if b != 0 {
		t.Fatalf("notify = osc rang the bell %d times", b)
	}
	if n := strings.Count(out, "\x1b]9;"); n != 3 {
		t.Fatalf("%d OSC 9 notifications, want 3 (approval, finished, failed): %q", n, out)
	}
}

// TestNotifyOff: with notify = "off" the same runs reach the terminal with
// neither a bell nor an OSC sequence.
func TestNotifyOff(t *testing.T) {
	t.Parallel()
	h, ts := notifyHarness(t, "off", hopts{}, ownRunReplies...)
	h.waitFor("fake-model")
	ownRun(t, h)
	h.clock.advance(approvalGrace)
	h.typeText("y", false)
	h.waitFor("Wrote notes.txt.")
	h.waitUntil("the run to end", h.idle) // the answer shows before its step commits
	h.submit("and again")
	h.waitFor("the request is malformed")
	h.c.onUIThread(func() {}) // one more draw: anything queued would be written now
	if b, out := ts.recorded(); b != 0 || out != "" {
		t.Fatalf("notify = off: bells %d, tty %q", b, out)
	}
}

// TestNotifyWatchedRun: a run this workspace watches notifies too: when it
// waits for approval and when it finishes.
func TestNotifyWatchedRun(t *testing.T) {
	t.Parallel()
	home := shortHome(t)
	var w *liveWriter
	var id string
	h, ts := notifyHarness(t, "osc", hopts{
		before: func(h *harness) {
			s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "watched with news", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
			h.db.AppendMessage(h.ctx, id, message.NewText("user", "an earlier prompt"))
			w = startLiveWriter(t, h.db, home, id, h.work, true, "write it elsewhere",
				llmtest.Calls(llmtest.Call("c1", "WriteFile", map[string]any{"path": "w.txt", "content": "w\n"})),
				llmtest.Text("Wrote w.txt."))
		},
		mutate: func(o *Options) { o.Mode, o.SessionID, o.Client, o.Home = ModeWatch, id, nil, home },
	})
	h.waitFor("Approve WriteFile", "[y] approve")
	h.waitNotified(ts, 0, "waiting for approval: WriteFile")
	h.clock.advance(approvalGrace)
	h.typeText("y", false)
	select {
	case err := <-w.done:
		if err != nil {
			t.Fatalf("writer run: %v", err)
		}
		w.done <- nil // for the cleanup
	case <-time.After(waitLimit):
		t.Fatal("the writer's run did not end after the watcher approved")
	}
	h.waitNotified(ts, 0, "run finished: watched with news")
}

// The first run's notification names the session by the title its prompt
// gave it ("rewind: run finished: " was empty: the title is set in the run
// and reached the status bar only after), and a tool call rejected here
// is no news: pressing n sent "run failed: rejected".
func TestNotifyTitleOfTheFirstRunAndNoNewsOfOwnReject(t *testing.T) {
	t.Parallel()
	h, ts := notifyHarness(t, "osc", hopts{},
		llmtest.Text("Done."),
		llmtest.Calls(llmtest.Call("c1", "WriteFile", map[string]any{"path": "notes.txt", "content": "n\n"})))
	h.waitFor("fake-model")
	h.submit("tidy the notes")
	h.waitUntil("the run to end", h.idle)
	h.waitNotified(ts, 0, "run finished: tidy the notes")
	h.submit("write the notes")
	h.waitFor("[y] approve")
	h.waitNotified(ts, 0, "waiting for approval: WriteFile")
	h.clock.advance(approvalGrace)
	h.typeText("n", false)
	h.waitUntil("the run to end", h.idle)
	h.c.onUIThread(func() {}) // one more draw: anything queued would be written now
	_, out := ts.recorded()
	if strings.Contains(out, "run failed") || strings.Count(out, "\x1b]9;") != 2 {
		t.Fatalf("want two notifications (finished, approval), got %q", out)
	}
}
