package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/app/live"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/views"
)

// liveWriter is another rewind writing a session: lease, Soul and live
// channel, in this process (the watcher only sees the socket and the
// database, as across processes).
type liveWriter struct {
	pub   *live.Publisher
	soul  *soul.Soul
	lease *store.Lease
	done  chan error
	stop  context.CancelFunc
}

func startLiveWriter(t *testing.T, db *store.DB, home, id, work string, allowRemote bool, prompt string, replies ...llmtest.Reply) *liveWriter {
	t.Helper()
	srv := llmtest.NewServer(t)
	srv.Enqueue(replies...)
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "k", Model: "writer-model", Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	lease, err := db.AcquireLease(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := live.Listen(live.Options{Home: home, Hello: live.Hello{SessionID: id, WorkDir: work}, AllowRemoteApproval: allowRemote})
	if err != nil {
		t.Fatal(err)
	}
	w := &liveWriter{pub: pub, lease: lease, done: make(chan error, 1)}
	w.soul = soul.New(soul.Config{}, db, id, client, tools.Default(), work, pub.Publish)
	ctx, cancel := context.WithCancel(context.Background())
	w.stop = cancel
	go func() { w.done <- w.soul.Run(ctx, prompt) }()
	t.Cleanup(func() {
		cancel()
		<-w.done
		pub.Close()
		lease.Release(context.Background())
	})
	return w
}

// numberedWords is a long answer: "w000 w001 …".
func numberedWords(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "w%03d ", i)
	}
	return b.String()
}

// watchHarness opens a watch workspace on a fresh session whose writer
// starts answering before the watcher connects.
func watchHarness(t *testing.T, allowRemote bool, replies ...llmtest.Reply) (*harness, *liveWriter, string) {
	t.Helper()
	home, err := os.MkdirTemp("", "rwt") // short: socket paths must fit in 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	var w *liveWriter
	var id string
	h := newHarness(t, hopts{
		messageTTL: shortMessages, // "WATCH · live" shows once the watch's notice is gone
		before: func(h *harness) {
			s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "watched live", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
			h.db.AppendMessage(h.ctx, id, message.NewText("user", "an earlier prompt"))
			w = startLiveWriter(t, h.db, home, id, h.work, allowRemote, "write a long answer", replies...)
		},
		mutate: func(o *Options) { o.Mode, o.SessionID, o.Client, o.Home = ModeWatch, id, nil, home },
	})
	return h, w, id
}

// TestWatchShowsStreamingTextBeforeCommit: a watcher that connects while
// the writer streams shows the text so far and what follows, before the
// step is in the database, with the writer's status numbers; when the
// writer dies it falls back to the committed state and says so.
func TestWatchShowsStreamingTextBeforeCommit(t *testing.T) {
	t.Parallel()
	reply := llmtest.Text(numberedWords(3000)).WithReasoning("thinking it over").WithRate(100) // 30 s: the writer is stopped long before
	h, w, id := watchHarness(t, false, reply)
	h.waitFor("w005")
	h.waitFor("w030") // still arriving, live
	v, err := h.db.View(h.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range v.Messages() {
		if m.Role == "assistant" {
			t.Fatal("the step committed before the watcher showed it: the test proves nothing")
		}
	}
	// The writer's numbers, not the database's last usage.
	st := w.soul.Status()
	h.waitFor("WATCH · live", views.FormatTokens(st.Tokens), "step 1")

	// The writer dies mid-step: the watcher shows the committed state —
	// with the partial answer marked interrupted when the writer kept it on
	// its way out (a writer killed with -9 keeps nothing), never as the
	// streamed text.
	// The writer runs in this process, which lives on: it left the
	// session (it used to say "is gone" of a pid still running).
	w.pub.Close()
	w.stop()
	h.waitFor(fmt.Sprintf("the writer (pid %d) left this session: showing what it committed", os.Getpid()))
	h.waitUntil("the streamed text gone or marked interrupted", func() bool {
		for _, it := range convItems(h.c.conv, h.c.conv.Len()) {
			if strings.Contains(it.Text, "w030") && !it.Interrupted {
				return false
			}
		}
		return true
	})
	h.waitFor("write a long answer")
}

// TestWatchAnswersApprovalWhenAllowed: the writer allows remote approval;
// the watcher's modal answers it and the tool runs in the writer.
func TestWatchAnswersApprovalWhenAllowed(t *testing.T) {
	t.Parallel()
	h, w, _ := watchHarness(t, true,
		llmtest.Calls(llmtest.Call("c1", "WriteFile", map[string]any{"path": "remote.txt", "content": "from a watcher\n"})),
		llmtest.Text("Wrote remote.txt."))
	h.waitFor("Approve WriteFile", "[y] approve")
	h.clock.advance(approvalGrace) // keys typed as the modal appears are ignored
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
	h.waitGone("[y] approve")
	h.waitFor("Wrote remote.txt.")
	if b, err := os.ReadFile(filepath.Join(h.work, "remote.txt")); err != nil || string(b) != "from a watcher\n" {
		t.Fatalf("file = %q, %v", b, err)
	}
}

// TestWatchCannotAnswerApprovalUnlessAllowed: without the writer's leave
// the watcher only says where to answer.
func TestWatchCannotAnswerApprovalUnlessAllowed(t *testing.T) {
	t.Parallel()
	h, w, _ := watchHarness(t, false,
		llmtest.Calls(llmtest.Call("c1", "WriteFile", map[string]any{"path": "nope.txt", "content": "x"})))
	h.waitFor("The writer waits for approval", "--allow-remote-approval")
	if strings.Contains(h.text(), "[y] approve") {
		t.Fatal("a watcher without leave got an approval prompt")
	}
	select {
	case err := <-w.done:
		t.Fatalf("the run went on: %v", err)
	default:
	}
}

// TestWatchCompactBetweenRunsStopsTheClock: the writer's /compact between
// runs starts the watcher's elapsed clock, and its end stops it, as a
// run's end does (it climbed for good: "step 3 · 17.0s").
func TestWatchCompactBetweenRunsStopsTheClock(t *testing.T) {
	t.Parallel()
	h, w, _ := watchHarness(t, false, llmtest.Text("one"), llmtest.Text("two"), llmtest.Text("the summary"))
	if err := <-w.done; err != nil {
		t.Fatal(err)
	}
	w.done <- nil // for the cleanup
	h.waitFor("one")
	if err := w.soul.Run(h.ctx, "second"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("two")
	h.waitUntil("the watcher to be connected", func() bool { return h.c.watch.conn != nil })
	if err := w.soul.Compact(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the summary")
	h.waitUntil("the watcher's clock to stop after the compaction", func() bool {
		return h.c.watch.started.IsZero() && !h.c.watch.inRun.Load()
	})
}

// TestWatchIdleWriterShowsNoRunClock: a session whose records end mid-turn
// (an imported one, or a writer that died mid-step) looks running from the
// database; once the writer's live channel says it is idle, the status bar
// shows no elapsed time and the clock stops ticking (it kept the database's
// run time, frozen, and redrew the screen every second).
func TestWatchIdleWriterShowsNoRunClock(t *testing.T) {
	t.Parallel()
	home, err := os.MkdirTemp("", "rwi")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	var id string
	h := newHarness(t, hopts{
		messageTTL: shortMessages, // the clock stops once no message is timed either
		before: func(h *harness) {
			s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "ends mid-turn", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
			call := message.NewText("assistant", "")
			call.ToolCalls = []message.ToolCall{{ID: "c1", Name: "Shell", Args: `{"command":"ls"}`}}
			h.db.AppendMessage(h.ctx, id, message.NewText("user", "list the files"))
			h.db.Checkpoint(h.ctx, id, false)
			h.db.AppendMessage(h.ctx, id, call)
			lease, err := h.db.AcquireLease(h.ctx, id) // a writer, not publishing yet
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { lease.Release(context.Background()) })
		},
		mutate: func(o *Options) { o.Mode, o.SessionID, o.Client, o.Home = ModeWatch, id, nil, home },
	})
	h.waitFor("writer pid")
	h.waitUntil("the database's run timed", func() bool { return h.c.ticking.Load() })

	pub, err := live.Listen(live.Options{Home: home, Hello: live.Hello{SessionID: id, WorkDir: h.work}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pub.Close() })
	h.waitFor("WATCH · live")
	h.waitUntil("no run clock while the writer is idle", func() bool {
		return !h.c.ticking.Load() && h.c.statusM.Elapsed == 0 && h.c.watch.started.IsZero()
	})
}

// A preview shown while watching stays as it was while the writer streams
// (its answer used to be appended under the archived content); leaving it
// shows the live conversation, with what arrived meanwhile.
func TestWatchPreviewStaysFrozenWhileTheWriterStreams(t *testing.T) {
	t.Parallel()
	reply := llmtest.Text(numberedWords(3000)).WithRate(100) // 30 s: the test ends long before
	h, _, _ := watchHarness(t, false, reply)
	h.waitFor("w005")
	const archived = "archived content of generation 1"
	h.c.onUIThread(func() {
		h.c.tt.onUIShowPreview([]views.Item{{Kind: views.ItemUser, Text: archived}}, "◉ ARCHIVED generation 1 · test · read-only")
	})
	h.waitUntil("a live event during the preview", func() bool { return h.c.tt.missedLive })
	h.waitUntil("the preview unchanged", func() bool {
		items := convItems(h.c.conv, h.c.conv.Len())
		return len(items) == 1 && items[0].Text == archived
	})
	h.c.onUIThread(h.c.tt.onUIEndPreview)
	h.waitFor("an earlier prompt")
	h.waitUntil("the writer's answer streaming in the live view", func() bool {
		for _, it := range convItems(h.c.conv, h.c.conv.Len()) {
			if it.Text == archived {
				return false
			}
		}
		n := h.c.conv.Len()
		last, _ := h.c.conv.Item(n - 1)
		return last.Kind == views.ItemAssistant && strings.Contains(last.Text, "w")
	})
}

// At 80 columns a watcher's notices lead with the point: "approval
// approved…" and "read-only: this session is being written by…" were cut
// before saying what happened or what to do.
func TestWatcherNoticesLeadWithThePointAt80Columns(t *testing.T) {
	t.Parallel()
	var id string
	h := newHarness(t, hopts{w: 80, h: 24,
		before: func(h *harness) {
			s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "watched", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
		},
		mutate: func(o *Options) { o.Mode, o.SessionID, o.Client = ModeWatch, id, nil },
	})
	h.waitFor("WATCH · no writer")
	h.typeText("may I write?", true)
	h.waitFor("read-only: no process writes it now")
	h.c.onUIThread(func() {
		h.c.ap.onUIWatchedAnswered(live.Answered{ToolCallID: "call-1", Decision: soul.ApproveOnce, By: "watcher pid 4242"})
	})
	h.waitFor("approved once")
}

// TestWatchIdleWriterAfterCompactShowsNoCompaction: a watcher that
// connects to an idle writer whose last act was a /compact between runs is
// not told the writer compacts: the compaction, over, stayed in what a
// joining watcher is replayed (the step in flight), so every new watcher
// showed "compacting…" and a "Compacting the context" banner.
func TestWatchIdleWriterAfterCompactShowsNoCompaction(t *testing.T) {
	t.Parallel()
	home, err := os.MkdirTemp("", "rwc") // short: socket paths must fit in 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	var w *liveWriter
	var id string
	h := newHarness(t, hopts{
		before: func(h *harness) {
			s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "compacted, idle", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
			w = startLiveWriter(t, h.db, home, id, h.work, false, "first",
				llmtest.Text("one"), llmtest.Text("two"), llmtest.Text("the summary"), llmtest.Text("three"))
			if err := <-w.done; err != nil {
				t.Fatal(err)
			}
			w.done <- nil // for the cleanup
			if err := w.soul.Run(h.ctx, "second"); err != nil {
				t.Fatal(err)
			}
			if err := w.soul.Compact(h.ctx); err != nil {
				t.Fatal(err)
			}
		},
		mutate: func(o *Options) { o.Mode, o.SessionID, o.Client, o.Home = ModeWatch, id, nil, home },
	})
	h.waitFor("WATCH · live")
	// A run after the connection: its events follow anything replayed on
	// the same channel, so once its answer shows the replay was applied.
	h.waitUntil("the watcher to be connected", func() bool { return h.c.watch.conn != nil })
	if err := w.soul.Run(h.ctx, "third"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("three")
	var notices []string
	h.c.onUIThread(func() {
		for _, n := range h.c.msg.notices {
			notices = append(notices, n.text)
		}
	})
	for _, n := range notices {
		if strings.Contains(n, "compacting") {
			t.Errorf("the watcher of an idle writer said %q (notices %q)", n, notices)
		}
	}
	if strings.Contains(h.text(), "Compacting the context") {
		t.Errorf("the watcher shows a compaction in progress:\n%s", h.text())
	}
}

// TestWatchRefusedByAFullWriterSaysSo: a writer that serves all the
// watchers it takes refuses this one; the watcher says so in one line and
// follows what the writer saves.
func TestWatchRefusedByAFullWriterSaysSo(t *testing.T) {
	t.Parallel()
	home, err := os.MkdirTemp("", "rwf")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	var id string
	h := newHarness(t, hopts{
		before: func(h *harness) {
			s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "popular", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
			pub, err := live.Listen(live.Options{Home: home, Hello: live.Hello{SessionID: id, WorkDir: h.work}, MaxWatchers: 1})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { pub.Close() })
			other, err := live.Dial(h.ctx, home, id)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { other.Close() })
		},
		mutate: func(o *Options) { o.Mode, o.SessionID, o.Client, o.Home = ModeWatch, id, nil, home },
	})
	h.waitFor("not streamed: the writer already has 1 watcher; steps show as they are saved")
}
