package soul

import (
	"context"
	"fmt"
	"strings"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/store"
)

// backtrack delivers a D-Mail after its step committed: the view goes back
// to before checkpoint d.checkpoint as a backtrack generation carrying the
// message as note, a checkpoint is taken and the D-Mail message appended.
func (s *Soul) backtrack(ctx context.Context, d dmail) error {
	wctx := context.WithoutCancel(ctx)
	before, err := s.st.View(wctx, s.sessionID)
	if err != nil {
		return fmt.Errorf("load context: %w", err)
	}
	discarded, prompts, returnedTo := discardedBy(before, d.checkpoint)
	gen, err := s.st.RevertTo(wctx, s.sessionID, d.checkpoint, store.CauseBacktrack, d.message)
	if err != nil {
		return fmt.Errorf("revert to checkpoint %d: %w", d.checkpoint, err)
	}
	ev := Backtrack{
		CheckpointID: d.checkpoint,
		Discarded:    discarded,
		Prompts:      prompts,
		ReturnedTo:   returnedTo,
		Note:         d.message,
		NewGen:       gen.Gen,
		ArchivedGen:  before.Generation.Gen,
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

// discardedBy counts the messages of v after checkpoint id (they leave the
// view) and the user's prompts among them, and names the turn the view
// returns to: the first line of the first user prompt at or after the
// checkpoint, or else the last one before it.
func discardedBy(v store.View, id int) (discarded, prompts int, returnedTo string) {
	at := -1
	for i, r := range v.Records {
		if r.Kind == store.KindCheckpoint && r.CheckpointID == id {
			at = i
			break
		}
	}
	if at < 0 {
		return 0, 0, ""
	}
	for _, r := range v.Records[at+1:] {
		if r.Kind != store.KindMessage {
			continue
		}
		discarded++
		if r.Role != "user" {
			continue
		}
		if m, err := r.Message(); err == nil {
			if line := promptLine(m); line != "" {
				prompts++
				if returnedTo == "" {
					returnedTo = line
				}
			}
		}
	}
	if returnedTo == "" {
		for i := at - 1; i >= 0 && returnedTo == ""; i-- {
			r := v.Records[i]
			if r.Kind == store.KindMessage && r.Role == "user" {
				if m, err := r.Message(); err == nil {
					returnedTo = promptLine(m)
				}
			}
		}
	}
	return discarded, prompts, returnedTo
}

// promptLine is the first non-empty line of a user prompt; "" for messages
// rewind injected (<system>…).
func promptLine(m message.Message) string {
	if k, _ := message.MarkerOf(m); k != message.NoMarker {
		return ""
	}
	return titleFrom(strings.TrimSpace(m.Content.PlainText()))
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
