package soul

import (
	"context"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/store"
)

// Store is the part of *store.DB the soul uses. Every write the loop makes
// goes through it; the soul keeps no history of its own, so whatever the
// store holds is what the model is sent next.
type Store interface {
	SetTitleIfEmpty(ctx context.Context, id, title string) error

	View(ctx context.Context, sessionID string) (store.View, error)
	ViewBefore(ctx context.Context, sessionID string, gen int, before store.ViewPos, limit int) (store.View, error)
	// StartTurn writes a turn's checkpoint, its marker (when addMarker) and
	// its prompt in one transaction.
	StartTurn(ctx context.Context, sessionID string, addMarker bool, prompt message.Message) (int, error)
	// Checkpoint writes a step's checkpoint (and marker).
	Checkpoint(ctx context.Context, sessionID string, addUserMessage bool) (int, error)
	CommitStep(ctx context.Context, sessionID string, s store.Step) ([]store.Record, error)
	// RetryBusy runs a write again while another process holds the write
	// lock (store.ErrBusy), until ctx ends.
	RetryBusy(ctx context.Context, write func() error) error

	// DiscardedAt reads what reverting generation gen (< 0: the current
	// one) to checkpoint id discards, without reading the whole view.
	DiscardedAt(ctx context.Context, sessionID string, gen, id int) (store.Discarded, error)
	RevertTo(ctx context.Context, sessionID string, checkpointID int, cause store.Cause, note string) (store.Generation, error)
	Clear(ctx context.Context, sessionID string) (store.Generation, error)
	Restore(ctx context.Context, sessionID string, gen int) (store.Generation, error)
	StartCompacted(ctx context.Context, sessionID string, msgs []message.Message, sourceGen int, tokens int, marker bool) (store.Generation, error)
	// KeepInterruptedStep keeps what an interrupted step produced in an
	// archived generation, or, while another process holds the write lock,
	// in a recovery file committed once the lock is free; it never waits.
	KeepInterruptedStep(ctx context.Context, sessionID string, msgs []message.Message) (store.Kept, error)
	// ExpandImages puts the data URLs of a stored body's images back.
	ExpandImages(ctx context.Context, body []byte) ([]byte, error)
}

// The Store interface is exactly a subset of the real database.
var _ Store = (*store.DB)(nil)
