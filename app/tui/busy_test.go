package tui

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/app/live"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// busyStore makes a lock held elsewhere outlast the busy timeout, and
// lease renewals fail on it, within milliseconds.
var busyStore = store.Options{BusyTimeout: 20 * time.Millisecond, LeaseHeartbeat: 10 * time.Millisecond}

// lockWriter takes the database's write lock on another connection (BEGIN
// IMMEDIATE, as a long import does) until the returned function is called.
// promptBound is how long Esc or a quit may take while another process
// holds the write lock: about 0.5 s on an idle machine (the old code took
// the whole busy timeout, or 19 s to quit), with room for the race
// detector on a loaded 2-core machine: a CI run measured 2.3 s, and a quit
// took 4.5 s under -race at load 25. The tests that hold it wait with
// lockedStore's busy timeout, twice the bound, so that waiting it out
// still fails them.
const promptBound = 8 * time.Second

// lockedStore is the store options of the tests bounded by promptBound.
var lockedStore = store.Options{BusyTimeout: 2 * promptBound}

// lockWhenAsked answers the next model request with reply, after another
// process took the write lock: the answer then always streams with the
// lock held, so its step cannot commit before the test's Esc or Ctrl-C
// (taking the lock once the answer was on screen raced the commit on a
// loaded machine). unlock frees it.
func lockWhenAsked(t *testing.T, h *harness, reply llmtest.Reply) (unlock func()) {
	t.Helper()
	locked := make(chan func(), 1)
	h.srv.Handle(func(llmtest.Request) llmtest.Reply {
		locked <- lockWriter(t, filepath.Join(h.dir, "rewind.db"))
		return reply
	})
	return func() {
		select {
		case u := <-locked:
			u()
		default:
		}
	}
}

func lockWriter(t *testing.T, path string) (unlock func()) {
	t.Helper()
	other, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	done := false
	unlock = func() {
		if !done {
			done = true
			conn.ExecContext(context.Background(), "ROLLBACK")
			conn.Close()
			other.Close()
		}
	}
	t.Cleanup(unlock)
	return unlock
}

// userPrompts are the prompts of the session's current view (user
// messages, without the checkpoint markers rewind writes as user messages).
func (h *harness) userPrompts() []string {
	h.t.Helper()
	v, err := h.db.View(h.ctx, h.sessionID())
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, m := range v.Messages() {
		if mk, _ := message.MarkerOf(m); m.Role == "user" && mk == message.NoMarker {
			out = append(out, m.Content.PlainText())
		}
	}
	return out
}

func (h *harness) readOnly() bool {
	var ro bool
	h.c.onUIThread(func() { ro = h.c.readOnly })
	return ro
}

// TestLeaseSurvivesADatabaseLockedPastBusyTimeout: another process holds
// the write lock for many busy timeouts while the workspace idles on its
// session. The workspace says the database is busy and waits; it stays the
// writer, and once the lock is free its next prompt is committed. (It went
// read-only for good: "lost the session lease (database is locked)".)
func TestLeaseSurvivesADatabaseLockedPastBusyTimeout(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48, store: busyStore}, llmtest.Text("first answer"), llmtest.Text("second answer"))
	h.submit("first question")
	h.waitFor("first answer")
	h.waitUntil("the run to end", h.idle)

	unlock := lockWriter(t, filepath.Join(h.dir, "rewind.db"))
	h.waitFor("database busy (another process is writing): waiting…")
	// Renewals keep failing on the lock (each waits the 20 ms busy
	// timeout) while a write of ours fails busy as well.
	for range 5 {
		if _, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "x"}); err == nil {
			t.Fatal("a write went through another connection's write lock")
		}
		if h.readOnly() {
			t.Fatalf("the workspace went read-only while the database was only busy:\n%s", h.text())
		}
	}
	unlock()
	h.waitGone("database busy")
	if h.readOnly() {
		t.Fatalf("read-only after the lock cleared:\n%s", h.text())
	}
	h.submit("second question")
	h.waitFor("second answer")
	h.waitUntil("the run to end", h.idle)
	if got := h.userPrompts(); len(got) != 2 || got[1] != "second question" {
		t.Errorf("prompts in the session after the lock: %q", got)
	}
}

// TestPromptSentWhileLockedIsCommittedAfterwards: a prompt sent while
// another process holds the write lock past the busy timeout waits (the
// status bar says so) and is committed, and answered, once the lock is
// free. (The run failed with "database is locked": the prompt showed in
// the conversation, was never committed, and was gone from the input.)
func TestPromptSentWhileLockedIsCommittedAfterwards(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48, store: busyStore}, llmtest.Text("first answer"), llmtest.Text("here is some code"))
	h.submit("first question")
	h.waitFor("first answer")
	h.waitUntil("the run to end", h.idle)

	unlock := lockWriter(t, filepath.Join(h.dir, "rewind.db"))
	h.submit("show me some code")
	h.waitFor("database busy (another process is writing): waiting… · Esc stops waiting")
	if got := h.userPrompts(); len(got) != 1 {
		t.Fatalf("prompts committed while the lock is held: %q", got)
	}
	unlock()
	h.waitFor("here is some code")
	h.waitUntil("the run to end", h.idle)
	if got := h.userPrompts(); len(got) != 2 || got[1] != "show me some code" {
		t.Errorf("prompts in the session after the lock: %q, want the second one committed", got)
	}
	// The input history waited for the lock too, instead of failing.
	for deadline := time.Now().Add(waitLimit); ; time.Sleep(10 * time.Millisecond) { // poll: a worker writes it, with no signal to the test
		hist, err := h.db.InputHistory(h.ctx, h.work, 10)
		if err == nil && slices.Contains(hist, "show me some code") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the prompt never joined the input history: %q, %v", hist, err)
		}
	}
}

// TestPromptGivenUpWhileLockedGoesBackToTheInput: Esc while a prompt waits
// for the lock ends the wait; the prompt was not saved, so the
// conversation no longer shows it and its text is back in the input.
func TestPromptGivenUpWhileLockedGoesBackToTheInput(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48, store: busyStore}, llmtest.Text("first answer"))
	h.submit("first question")
	h.waitFor("first answer")
	h.waitUntil("the run to end", h.idle)

	lockWriter(t, filepath.Join(h.dir, "rewind.db"))
	h.submit("show me some code")
	h.waitFor("database busy")
	h.key(tcell.KeyEscape)
	h.waitFor("not sent: the database stayed busy (another process is writing); your prompt is back in the input")
	h.waitUntil("the run to end", h.idle)
	var input string
	var shown bool
	h.c.onUIThread(func() {
		input = h.c.input.Text()
		for i := range h.c.conv.Len() {
			if it, _ := h.c.conv.Item(i); strings.Contains(it.Text, "show me some code") {
				shown = true
			}
		}
	})
	if input != "show me some code" {
		t.Errorf("input after giving up: %q", input)
	}
	if shown {
		t.Error("the conversation still shows the prompt that was not saved")
	}
	if got := h.userPrompts(); len(got) != 1 {
		t.Errorf("prompts committed: %q", got)
	}
}

// TestLostLeaseIsTakenBackWhenFree: another process takes the session over
// (its token in the lease row); the workspace goes read-only and stops
// publishing itself as the writer. When the other writer gives the session
// up, the workspace takes it back and writes again.
func TestLostLeaseIsTakenBackWhenFree(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48, store: busyStore}, llmtest.Text("first answer"), llmtest.Text("answer after taking it back"))
	h.submit("first question")
	h.waitFor("first answer")
	h.waitUntil("the run to end", h.idle)
	raw, err := sql.Open("sqlite3", filepath.Join(h.dir, "rewind.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE leases SET token = 'another process'`); err != nil {
		t.Fatal(err)
	}
	h.waitFor("read-only until it exits")
	if !h.readOnly() {
		t.Fatal("the workspace still writes after another process took the session")
	}
	h.waitUntil("the workspace to stop publishing itself as the writer", func() bool {
		runs, err := live.List(h.ctx, h.dir)
		return err == nil && len(runs) == 0
	})
	var token string
	if err := raw.QueryRow(`SELECT token FROM leases`).Scan(&token); err != nil || token != "another process" {
		t.Fatalf("the other process's lease: %q, %v", token, err)
	}

	if _, err := raw.Exec(`DELETE FROM leases`); err != nil { // the other writer exits
		t.Fatal(err)
	}
	h.waitFor("the other writer is gone: this workspace writes the session again")
	if h.readOnly() {
		t.Fatal("still read-only after the session became free")
	}
	h.submit("after taking it back")
	h.waitFor("answer after taking it back")
	h.waitUntil("the run to end", h.idle)
	if got := h.userPrompts(); len(got) != 2 || got[1] != "after taking it back" {
		t.Errorf("prompts after taking the session back: %q", got)
	}
}

// TestEscWhileTheCommitWaitsKeepsTheAnswer: the answer has streamed whole
// and another process takes the write lock before the step commits. Esc
// gives the prompt back at once, saying where the answer is kept, and once
// the lock is free the answer is in an archived interrupt generation.
// (Esc waited out the busy timeout, then said "the partial step was
// discarded, nothing of it was saved", and the answer was gone.)
func TestEscWhileTheCommitWaitsKeepsTheAnswer(t *testing.T) {
	t.Parallel()
	const answer = "an answer streamed whole before the lock ENDMARK"
	h := newHarness(t, hopts{w: 160, h: 48, store: lockedStore}, llmtest.Text("first answer"))
	h.submit("first question")
	h.waitFor("first answer")
	h.waitUntil("the run to end", h.idle)

	unlock := lockWhenAsked(t, h, llmtest.Text(answer))
	h.submit("explain it")
	h.waitFor("ENDMARK")
	start := time.Now()
	h.key(tcell.KeyEscape)
	h.waitFor("another process holds the database: the answer", "rewind.db.recovery")
	if took := time.Since(start); took > promptBound {
		t.Errorf("Esc while the commit waited took %v to say so, want under %v", took.Round(time.Millisecond), promptBound)
	}
	h.waitUntil("the run to end", h.idle)
	if txt := h.text(); strings.Contains(txt, "discarded") {
		t.Errorf("the banner says the step was discarded:\n%s", txt)
	}
	unlock()
	id := h.sessionID()
	h.waitUntil("the answer in an interrupt generation", func() bool {
		gens, err := h.db.Generations(h.ctx, id)
		if err != nil {
			return false
		}
		for _, g := range gens {
			if g.Cause != store.CauseInterrupt {
				continue
			}
			v, err := h.db.GenerationView(h.ctx, id, g.Gen)
			if err != nil {
				return false
			}
			for _, m := range v.Messages() {
				if m.Role == "assistant" && m.Content.PlainText() == answer {
					return true
				}
			}
		}
		return false
	})
	if got := h.userPrompts(); len(got) != 2 {
		t.Errorf("prompts in the current view: %q, want both (the answer is not)", got)
	}
	if _, _, ok := h.findText("ENDMARK"); !ok {
		t.Errorf("the kept answer is gone from the screen:\n%s", h.text())
	}
}

// TestQuitWhileTheCommitWaitsIsPrompt: Ctrl-C Ctrl-C while the step's
// commit waits for another process's write lock quits within the bound
// (the run stops waiting, the lease's release gives up after 300 ms), and
// the answer stays in its recovery file for the next start. (Quitting took
// 19 s and the answer was lost.)
func TestQuitWhileTheCommitWaitsIsPrompt(t *testing.T) {
	t.Parallel()
	const answer = "an answer the quit must not lose ENDMARK"
	h := newHarness(t, hopts{w: 160, h: 48, store: lockedStore}, llmtest.Text("first answer"))
	h.submit("first question")
	h.waitFor("first answer")
	h.waitUntil("the run to end", h.idle)
	lockWhenAsked(t, h, llmtest.Text(answer))
	h.submit("explain it")
	h.waitFor("ENDMARK")
	start := time.Now()
	h.key(tcell.KeyCtrlC)
	h.waitFor("press Ctrl-C again to quit")
	h.key(tcell.KeyCtrlC)
	h.waitQuit("Ctrl-C Ctrl-C did not quit")
	if took := time.Since(start); took > promptBound {
		t.Errorf("quitting took %v while another process held the lock, want under %v", took.Round(time.Millisecond), promptBound)
	}
	files, _ := filepath.Glob(filepath.Join(store.RecoveryDir(filepath.Join(h.dir, "rewind.db")), "*.json"))
	if len(files) != 1 {
		t.Fatalf("recovery files after quitting: %q, want one", files)
	}
	if data, err := os.ReadFile(files[0]); err != nil || !strings.Contains(string(data), "ENDMARK") {
		t.Errorf("the recovery file does not hold the answer: %v\n%s", err, data)
	}
}

// TestQuitWhileAPromptWaitsForTheLockIsPrompt: quitting while a /rename
// and a prompt sent with another process holding the write lock wait for
// it is prompt. The rename and the prompt's input history entry waited on
// a context the quit does not end, for the whole busy timeout, and the
// quit waits for every worker (TestQuitWhileTheCommitWaitsIsPrompt took
// 5.7 s once, its history write late behind the lock). The busy timeout
// is longer than the bound, so the old code fails however loaded the
// machine.
func TestQuitWhileAPromptWaitsForTheLockIsPrompt(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48, store: lockedStore}, llmtest.Text("first answer"))
	h.submit("first question")
	h.waitFor("first answer")
	h.waitUntil("the run to end", h.idle)
	lockWriter(t, filepath.Join(h.dir, "rewind.db"))
	h.submit("/rename a title the lock holds back")
	h.submit("a prompt the lock holds back")
	h.waitFor("a prompt the lock holds back") // sent: its run and its history entry wait
	start := time.Now()
	h.c.onUIThread(h.c.onUIQuit) // as /exit, Ctrl-C Ctrl-C or a signal
	h.waitQuit("the workspace did not quit")
	if took := time.Since(start); took > promptBound {
		t.Errorf("quitting took %v while another process held the lock, want under %v", took.Round(time.Millisecond), promptBound)
	}
}
