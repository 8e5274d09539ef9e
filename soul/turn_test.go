package soul

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// holdWriteLock takes the write lock of the database at path on another
// connection (BEGIN IMMEDIATE, as another rewind's long import does) until
// the returned function is called.
func holdWriteLock(t *testing.T, path string) (unlock func()) {
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
	var once sync.Once
	unlock = func() {
		once.Do(func() {
			conn.ExecContext(context.Background(), "ROLLBACK")
			conn.Close()
			other.Close()
		})
	}
	t.Cleanup(unlock)
	return unlock
}

// lockingStore has another connection take the write lock at the worst
// moment a run's start allows: right after a checkpoint commits on its own
// (as it did before StartTurn, the prompt then waited alone), or else as
// the turn starts.
type lockingStore struct {
	Store
	lock func()
	once sync.Once
}

func (s *lockingStore) Checkpoint(ctx context.Context, sessionID string, addUserMessage bool) (int, error) {
	id, err := s.Store.Checkpoint(ctx, sessionID, addUserMessage)
	s.once.Do(s.lock)
	return id, err
}

func (s *lockingStore) StartTurn(ctx context.Context, sessionID string, addMarker bool, prompt message.Message) (int, error) {
	s.once.Do(s.lock)
	return s.Store.StartTurn(ctx, sessionID, addMarker, prompt)
}

// TestInterruptWhileTurnStartWaitsLeavesNoOrphanCheckpoint: another process
// holds the write lock while a run starts its turn, and the user
// interrupts the wait. Nothing of the turn is saved: no checkpoint without
// its prompt (an empty turn in the timeline, and with D-Mail on a stray
// "CHECKPOINT N" marker sent to the model with the next prompt).
func TestInterruptWhileTurnStartWaitsLeavesNoOrphanCheckpoint(t *testing.T) {
	t.Parallel()
	var unlock func()
	h := newHarness(t, hopts{store: &storeOpts{
		opts: store.Options{BusyTimeout: 20 * time.Millisecond},
		wrap: func(db *store.DB, path string) Store {
			return &lockingStore{Store: db, lock: func() { unlock = holdWriteLock(t, path) }}
		},
	}}, llmtest.Text("done"))
	if !h.soul.dmailEnabled {
		t.Fatal("D-Mail is off: the checkpoint marker is not written")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- h.soul.Run(ctx, "fix the parser") }()
	waited := false
	for !waited {
		select {
		case err := <-done:
			t.Fatalf("Run ended without waiting for the lock: %v", err)
		case <-time.After(time.Millisecond):
			_, waited = h.db.Busy()
		}
	}
	cancel()
	err := <-done
	if !errors.Is(err, ErrNotSaved) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want ErrNotSaved and context.Canceled", err)
	}
	if ev := h.eventsOf("StepInterrupted"); len(ev) != 1 || ev[0].(StepInterrupted).Where != "while waiting for the database" {
		t.Errorf("interrupt events %v", ev)
	}
	unlock()
	if v := h.view(); len(v.Records) != 0 {
		t.Fatalf("an interrupted turn start left %d records (%s), want none", len(v.Records), describe(v.Messages()))
	}
	// The next run starts at checkpoint 0 and sends no stray marker.
	h.mustRun("fix the parser")
	if m := h.messages(); roles(m) != "user,assistant" {
		t.Fatalf("after the next run: %s", describe(m))
	}
	if v := h.view(); v.Records[0].Kind != store.KindCheckpoint || v.Records[0].CheckpointID != 0 || v.NextCheckpointID != 2 {
		t.Errorf("the next run's checkpoints: first %+v, next id %d (want 0, and 2 after the run and its step)", v.Records[0], v.NextCheckpointID)
	}
}

// commitLockingStore has another connection take the write lock right
// before the step's commit, and says when it did.
type commitLockingStore struct {
	Store
	lock   func()
	once   sync.Once
	locked chan struct{}
}

func (s *commitLockingStore) CommitStep(ctx context.Context, sessionID string, st store.Step) ([]store.Record, error) {
	s.once.Do(func() {
		s.lock()
		close(s.locked)
	})
	return s.Store.CommitStep(ctx, sessionID, st)
}

// keptAnswer is the text of the session's archived interrupt generation
// holding want, or "".
func keptAnswer(t *testing.T, db *store.DB, sessionID, want string) string {
	t.Helper()
	gens, err := db.Generations(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gens {
		if g.Cause != store.CauseInterrupt {
			continue
		}
		v, err := db.GenerationView(context.Background(), sessionID, g.Gen)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range v.Messages() {
			if m.Role == "assistant" && m.Content.PlainText() == want {
				return want
			}
		}
	}
	return ""
}

// TestInterruptWhileTheCommitWaitsKeepsTheAnswer: the model's whole answer
// has streamed, and another process holds the write lock while the step
// commits. Esc gives the prompt back at once (not after the busy timeout,
// 5 s), and the answer is not lost: once the lock is free it is in an
// archived interrupt generation. (The run waited out the busy timeout, then
// said "the partial step was discarded", and the answer was gone.)
func TestInterruptWhileTheCommitWaitsKeepsTheAnswer(t *testing.T) {
	t.Parallel()
	var unlock func()
	locked := make(chan struct{})
	const answer = "the whole answer, streamed before the lock"
	h := newHarness(t, hopts{store: &storeOpts{
		wrap: func(db *store.DB, path string) Store {
			return &commitLockingStore{Store: db, locked: locked, lock: func() { unlock = holdWriteLock(t, path) }}
		},
	}}, llmtest.Text(answer))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- h.soul.Run(ctx, "explain the parser") }()
	select {
	case <-locked:
	case err := <-done:
		t.Fatalf("Run ended before its commit: %v", err)
	}
	start := time.Now()
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after the interrupt")
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Esc while the commit waited took %v to give the prompt back, want under 2 s", took.Round(time.Millisecond))
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	evs := h.eventsOf("StepInterrupted")
	if len(evs) != 1 {
		t.Fatalf("interrupt events %v", evs)
	}
	if ev := evs[0].(StepInterrupted); ev.Partial != answer || ev.KeepError != "" {
		t.Errorf("the interrupt says %+v: want the answer kept", ev)
	}
	unlock()
	deadline := time.Now().Add(30 * time.Second)
	for keptAnswer(t, h.db, h.sid, answer) == "" {
		if time.Now().After(deadline) {
			t.Fatal("the answer is in no interrupt generation after the lock was freed")
		}
		time.Sleep(5 * time.Millisecond) // poll: a worker writes it, with no signal to the test
	}
	if m := h.messages(); roles(m) != "user" {
		t.Errorf("the current view after the kept answer: %s (the answer must not be sent as finished)", describe(m))
	}
}
