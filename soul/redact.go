package soul

import (
	"context"
	"slices"
	"time"

	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/shellenv"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// rewind's own secrets (Config.Redact) never enter a conversation: every
// text that does passes one of three gates, which replace them by a
// placeholder.
//   - redactingClient: what the model is sent (also an older session's
//     stored text) and everything it answers, streamed deltas included;
//   - callOne: every tool's live output and result (Shell, MCP, any tool);
//   - redactingStore: every message the soul writes, the user's prompt and a
//     D-Mail included.
// Events carry only texts that passed a gate, so the screen, print mode and
// the live channel's watchers see them redacted too.

// redactMessage returns m with the secrets replaced in its text, reasoning
// and tool call arguments (m itself when it holds none).
func redactMessage(r *shellenv.Redactor, m message.Message) message.Message {
	if !holdsSecret(r, m) {
		return m // no copies: every request passes the whole history here
	}
	m.Content.Text = r.Redact(m.Content.Text)
	if m.Content.Parts != nil {
		parts := make([]message.Part, len(m.Content.Parts))
		for i, p := range m.Content.Parts {
			p.Text, p.Think = r.Redact(p.Text), r.Redact(p.Think)
			parts[i] = p
		}
		m.Content.Parts = parts
	}
	if m.ToolCalls != nil {
		calls := make([]message.ToolCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			c.Name, c.Args = r.Redact(c.Name), r.Redact(c.Args)
			calls[i] = c
		}
		m.ToolCalls = calls
	}
	return m
}

func holdsSecret(r *shellenv.Redactor, m message.Message) bool {
	if r.Contains(m.Content.Text) {
		return true
	}
	for _, p := range m.Content.Parts {
		if r.Contains(p.Text) || r.Contains(p.Think) {
			return true
		}
	}
	for _, c := range m.ToolCalls {
		if r.Contains(c.Name) || r.Contains(c.Args) {
			return true
		}
	}
	return false
}

func redactMessages(r *shellenv.Redactor, msgs []message.Message) []message.Message {
	var out []message.Message // a copy only once a message needs redacting
	for i, m := range msgs {
		if !holdsSecret(r, m) {
			continue
		}
		if out == nil {
			out = slices.Clone(msgs)
		}
		out[i] = redactMessage(r, m)
	}
	if out == nil {
		return msgs
	}
	return out
}

// redactingClient is the model client with the secrets taken out of each
// request and answer. A secret cut between two streamed deltas is caught:
// each stream holds back a tail that may start one until the next delta
// (or the end of the call) decides.
type redactingClient struct {
	llm.Client
	r *shellenv.Redactor
}

func (c redactingClient) Chat(ctx context.Context, req llm.Request, cb llm.Callbacks) (llm.Response, error) {
	req.Messages = redactMessages(c.r, req.Messages)
	content, reasoning := c.r.Stream(), c.r.Stream()
	args := map[int]*shellenv.Stream{}
	// A held tail is flushed before the next part begins, so the
	// reasoning's end comes before the answer, and both before the calls.
	flushReasoning := func() {
		if out := reasoning.Flush(); out != "" && cb.OnReasoning != nil {
			cb.OnReasoning(out)
		}
	}
	flushContent := func() {
		if out := content.Flush(); out != "" && cb.OnContent != nil {
			cb.OnContent(out)
		}
	}
	wrapped := cb
	if cb.OnContent != nil {
		wrapped.OnContent = func(text string) {
			flushReasoning()
			if out := content.Write(text); out != "" {
				cb.OnContent(out)
			}
		}
	}
	if cb.OnReasoning != nil {
		wrapped.OnReasoning = func(text string) {
			if out := reasoning.Write(text); out != "" {
				cb.OnReasoning(out)
			}
		}
	}
	if cb.OnToolCallDelta != nil {
		wrapped.OnToolCallDelta = func(index int, id, name, delta string) {
			flushReasoning()
			flushContent()
			st := args[index]
			if st == nil {
				st = c.r.Stream()
				args[index] = st
			}
			if out := st.Write(delta); out != "" || id != "" || name != "" {
				cb.OnToolCallDelta(index, id, name, out)
			}
		}
	}
	wrapped.OnRetry = func(attempt, max int, wait time.Duration, reason string) {
		// The attempt's deltas are void; so are their held tails.
		content.Reset()
		reasoning.Reset()
		clear(args)
		if cb.OnRetry != nil {
			cb.OnRetry(attempt, max, wait, reason)
		}
	}
	resp, err := c.Client.Chat(ctx, req, wrapped)
	// What was held is no secret (only a secret's start, or the call would
	// have finished it): it ends the streamed text, also of an interrupted
	// call, whose partial answer is kept.
	flushReasoning()
	flushContent()
	for index, st := range args {
		if out := st.Flush(); out != "" {
			cb.OnToolCallDelta(index, "", "", out)
		}
	}
	resp.Message = redactMessage(c.r, resp.Message)
	return resp, err
}

// redactingStore writes the soul's messages with the secrets taken out.
type redactingStore struct {
	Store
	r *shellenv.Redactor
}

func (s redactingStore) SetTitleIfEmpty(ctx context.Context, id, title string) error {
	return s.Store.SetTitleIfEmpty(ctx, id, s.r.Redact(title))
}

func (s redactingStore) StartTurn(ctx context.Context, sessionID string, addMarker bool, prompt message.Message) (int, error) {
	return s.Store.StartTurn(ctx, sessionID, addMarker, redactMessage(s.r, prompt))
}

func (s redactingStore) CommitStep(ctx context.Context, sessionID string, st store.Step) ([]store.Record, error) {
	st.Assistant = redactMessage(s.r, st.Assistant)
	st.ToolResults = redactMessages(s.r, st.ToolResults)
	return s.Store.CommitStep(ctx, sessionID, st)
}

func (s redactingStore) RevertTo(ctx context.Context, sessionID string, checkpointID int, cause store.Cause, note string) (store.Generation, error) {
	return s.Store.RevertTo(ctx, sessionID, checkpointID, cause, s.r.Redact(note))
}

func (s redactingStore) StartCompacted(ctx context.Context, sessionID string, msgs []message.Message, sourceGen int, tokens int, marker bool) (store.Generation, error) {
	return s.Store.StartCompacted(ctx, sessionID, redactMessages(s.r, msgs), sourceGen, tokens, marker)
}

func (s redactingStore) KeepInterruptedStep(ctx context.Context, sessionID string, msgs []message.Message) (store.Kept, error) {
	return s.Store.KeepInterruptedStep(ctx, sessionID, redactMessages(s.r, msgs))
}
