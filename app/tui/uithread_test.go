package tui

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// lockBusyTimeout is the busy_timeout of the workspace's connections: a
// call that waits for a held write lock blocks that long before it fails.
const lockBusyTimeout = 5 * time.Second

// holdWriteLock takes the database's write lock from a second connection
// (as another rewind process mid-commit would) until release is called
// (or the test ends).
func holdWriteLock(t *testing.T, path string) (release func()) {
	t.Helper()
	other, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			conn.ExecContext(context.Background(), "ROLLBACK")
			conn.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// keyLatencies types n letters into the input while the write lock is held
// and measures how long each takes to show up there. It fails if a key
// took lockBusyTimeout or more: a UI goroutine blocked on the lock answers
// nothing until its call gives up (or the lock is released, which happens
// only after the last key), while a free one answers each key in a
// fraction of that even on a loaded machine. The lock is not released on
// a timer: a fixed hold made a slow machine fail a correct UI.
func (h *harness) keyLatencies(n int) []time.Duration {
	h.t.Helper()
	var out []time.Duration
	for i := range n {
		var before string
		h.c.onUIThread(func() { before = h.c.input.Text() })
		start := time.Now()
		h.screen.InjectKey(tcell.KeyRune, rune('a'+i%26), tcell.ModNone)
		h.waitUntil("the key to reach the input", func() bool { return h.c.input.Text() != before })
		out = append(out, time.Since(start))
		if out[i] >= lockBusyTimeout {
			h.t.Fatalf("key %d took %v while another connection held the write lock: the UI goroutine waited on it (latencies %v)", i+1, out[i], out)
		}
	}
	return out
}

// logLatencies reports how fast keys were answered under the lock; the
// pass/fail signal is keyLatencies' (no key waits out the busy timeout),
// and the speed itself is what the benchmarks measure.
func logLatencies(t *testing.T, what string, lat []time.Duration) {
	t.Helper()
	s := slices.Clone(lat)
	slices.Sort(s)
	t.Logf("%s: keys answered in median %v, worst %v while another connection held the write lock", what, s[len(s)/2], s[len(s)-1])
}

// TestUIAnswersKeysWhileDatabaseLocked: creating, leasing and opening a
// session happen on workers, so a write lock held elsewhere (busy_timeout
// is 5 s) never freezes the screen.
func TestUIAnswersKeysWhileDatabaseLocked(t *testing.T) {
	t.Parallel()
	var other string
	h := newHarness(t, hopts{before: func(h *harness) {
		s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "the other session", WorkDir: h.work})
		if err != nil {
			t.Fatal(err)
		}
		other = s.ID
		h.db.AppendMessage(h.ctx, other, message.NewText("user", "an older prompt"))
	}}, llmtest.Text("answered after the lock"))
	h.waitFor("fake-model")
	path := filepath.Join(h.dir, "rewind.db")

	// The first prompt creates the session (a write) while the lock is held.
	release := holdWriteLock(t, path)
	h.typeText("hello", true)
	h.waitUntil("the prompt to be sent", func() bool { return h.c.input.Text() == "" })
	logLatencies(t, "creating a session", h.keyLatencies(8))
	release()
	h.waitFor("answered after the lock")
	h.waitUntil("the run to end", h.idle)
	h.key(tcell.KeyCtrlU)

	// Opening another session takes its lease (a write).
	release = holdWriteLock(t, path)
	h.c.onUIThreadAsync(func() { h.c.onUIOpenSession(other) }) // not waited for: the keys must not wait either
	logLatencies(t, "opening a session", h.keyLatencies(8))
	release()
	h.waitFor("an older prompt")
	h.waitUntil("the other session to be open", func() bool { return h.c.SessionID() == other })
}
