package timetravel

import (
	"context"
	"errors"
	"fmt"

	"github.com/rewind-agent/rewind/store"
)

// CompactedError is a revert to a checkpoint that compaction replaced with
// a summary: the current view no longer holds it, but the generation the
// compaction archived (Source) does, and restoring that is the way back.
// It wraps store.ErrCompactedRegion.
type CompactedError struct {
	Checkpoint int
	Source     int
}

func (e *CompactedError) Error() string {
	return fmt.Sprintf("checkpoint %d lies in history replaced by compaction (archived generation %d holds it)", e.Checkpoint, e.Source)
}

func (e *CompactedError) Unwrap() error { return store.ErrCompactedRegion }

// notInView explains a checkpoint the current view does not hold: a
// *CompactedError when the compaction the view starts with archived it,
// else err as it was.
func notInView(ctx context.Context, db *store.DB, sess store.Session, id int, err error) error {
	if !errors.Is(err, store.ErrCheckpointNotFound) {
		return err
	}
	gens, gerr := db.Generations(ctx, sess.ID)
	fresh, serr := db.GetSession(ctx, sess.ID) // the current generation now, not when it was opened
	if gerr != nil || serr != nil {
		return err
	}
	src, ok := compactedSource(gens, fresh.CurrentGen)
	if !ok {
		return err
	}
	if _, ferr := db.FindCheckpoint(ctx, sess.ID, src, id); ferr != nil {
		return err
	}
	return &CompactedError{Checkpoint: id, Source: src}
}

// compactedSource returns the generation a compaction replaced when the
// current view of the session starts with a compaction (its root has cause
// compact); ok is false otherwise.
func compactedSource(gens []store.Generation, cur int) (int, bool) {
	byGen := make(map[int]store.Generation, len(gens))
	for _, g := range gens {
		byGen[g.Gen] = g
	}
	g, ok := byGen[cur]
	for i := 0; ok && i < len(gens)+1; i++ {
		if g.Cause == store.CauseCompact && g.SourceGen != nil {
			return *g.SourceGen, true
		}
		if g.ParentGen == nil || g.ParentSession != "" {
			break
		}
		g, ok = byGen[*g.ParentGen]
	}
	return 0, false
}
