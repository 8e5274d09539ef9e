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
