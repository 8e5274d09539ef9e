package soul

import (
	"context"
	"fmt"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/store"
)

// backtrack delivers a D-Mail after its step committed: the view goes back
// to before checkpoint d.checkpoint as a backtrack generation carrying the
// message as note, a checkpoint is taken and the D-Mail message appended.
func (s *Soul) backtrack(ctx context.Context, d dmail) error {
	wctx := context.WithoutCancel(ctx)
	lost, err := s.st.DiscardedAt(wctx, s.sessionID, -1, d.checkpoint)
	if err != nil {
		return fmt.Errorf("what checkpoint %d discards: %w", d.checkpoint, err)
	}
	gen, err := s.st.RevertTo(wctx, s.sessionID, d.checkpoint, store.CauseBacktrack, d.message)
	if err != nil {
		return fmt.Errorf("revert to checkpoint %d: %w", d.checkpoint, err)
	}
	ev := Backtrack{
		CheckpointID: d.checkpoint,
		Discarded:    lost.Messages,
		Prompts:      lost.Prompts,
		ReturnedTo:   lost.ReturnedTo,
		Note:         d.message,
		NewGen:       gen.Gen,
		ArchivedGen:  lost.Gen,
	}
	if s.cfg.DMailRevertsFiles {
		if fr, ok := s.cfg.Files.(FileReverter); ok {
			if err := fr.RevertFiles(wctx, s.sessionID, d.checkpoint); err != nil {
				ev.FilesError = err.Error()
			} else {
				ev.FilesReverted = true
			}
		} else {
			ev.FilesError = "no file checkpoints are recorded in this session"
		}
	}
	if _, err := s.st.StartTurn(wctx, s.sessionID, s.dmailEnabled, message.DMail(d.message)); err != nil {
		return fmt.Errorf("start the D-Mail's turn: %w", err)
	}
	if v, err := s.st.View(wctx, s.sessionID); err == nil {
		s.noteView(v)
	}
	s.emit(ev)
	s.emitStatus()
	return nil
}

// Clear archives the current generation and starts an empty one (/clear).
func (s *Soul) Clear(ctx context.Context) (store.Generation, error) {
	return s.op(ctx, func(ctx context.Context) (store.Generation, error) {
		return s.st.Clear(ctx, s.sessionID)
	})
}

// RevertTo makes the view what it was before checkpoint n (/revert N); the
// old generation is archived.
func (s *Soul) RevertTo(ctx context.Context, n int) (store.Generation, error) {
	return s.op(ctx, func(ctx context.Context) (store.Generation, error) {
		return s.st.RevertTo(ctx, s.sessionID, n, store.CauseRevert, "")
	})
}

// Restore makes archived generation gen current again, as a new generation.
func (s *Soul) Restore(ctx context.Context, gen int) (store.Generation, error) {
	return s.op(ctx, func(ctx context.Context) (store.Generation, error) {
		return s.st.Restore(ctx, s.sessionID, gen)
	})
}

// op runs one generation-changing store call while no run is active, then
// refreshes the status and emits a StatusUpdate.
func (s *Soul) op(ctx context.Context, f func(context.Context) (store.Generation, error)) (store.Generation, error) {
	if err := s.acquire(); err != nil {
		return store.Generation{}, err
	}
	defer s.release()
	g, err := f(ctx)
	if err != nil {
		return g, err
	}
	s.mu.Lock()
	s.pending = nil
	s.mu.Unlock()
	// the status's numbers need the view's tail only (as when resuming)
	if v, verr := s.st.ViewBefore(context.WithoutCancel(ctx), s.sessionID, -1, store.ViewPos{}, statusTailRecords); verr == nil {
		s.noteView(v)
	}
	s.emitStatus()
	return g, nil
}
