package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/llm"
)

// Compact summarises a session's context with the configured model, headless.
// The original context stays as an archived generation.
func Compact(ctx context.Context, rt *Runtime, id string) error {
	cfg, client, err := rt.modelClient()
	if err != nil {
		return err
	}
	h, err := rt.openSession(ctx, id, true)
	if err != nil {
		return err
	}
	defer h.Close(ctx)
	db, sess := h.db, h.s

	var end *soul.CompactionEnd
	sink := func(e soul.Event) {
		switch ev := e.(type) {
		case soul.CompactionEnd:
			end = &ev
		case soul.StepRetry:
			fmt.Fprintln(rt.Stderr, "rewind: "+noteFor(ev))
		}
	}
	s := soul.New(soulConfig(cfg), db, sess.ID, client, cfg.ToolSet(), sess.WorkDir, sink)
	if err := s.Compact(ctx); err != nil {
		var le *llm.Error
		switch {
		case errors.Is(err, context.Canceled):
			return &UserError{Msg: "interrupted; the session was left as it was", Code: ExitInterrupted, Err: err}
		case errors.As(err, &le):
			return providerError(le, cfg, sess.ID)
		}
		return storeError(err, sess.ID, "")
	}
	if end == nil {
		_, err := fmt.Fprintf(rt.Stdout, "session %s is already short: nothing to compact\n", sess.ID)
		return err
	}
	how := "compacted"
	if end.Truncated {
		how = "compacted by truncation (the summary call failed: " + oneLine(end.Reason) + ")"
	}
	_, err = fmt.Fprintf(rt.Stdout, "%s session %s: generation %d (%d %s kept verbatim, %d tokens); generation %d archived\n",
		how, sess.ID, end.NewGen, end.Kept, words.Plural(end.Kept, "message", "messages"), end.Tokens, end.ArchivedGen)
	return err
}
