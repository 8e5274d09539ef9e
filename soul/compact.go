package soul

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/store"
)

// preservedMessages is how many of the newest user/assistant messages
// compaction keeps verbatim (kimi-cli's SimpleCompaction).
const preservedMessages = 2

const compactSystemPrompt = "You are a helpful assistant that compacts conversation context."

// Limits of the text sent to the summariser.
const (
	compactMaxMessageChars = 20000 // one message; the rest is elided
	compactInputShare      = 0.6   // of MaxContextSize for all of it
)

// Truncation fallback: the kept messages fit in this share of MaxContextSize.
const truncateShare = 0.4

// Compact summarises the context into a new generation now (/compact). The
// old generation stays in the store, archived. A context with nothing to
// summarise (at most the preserved messages) is left alone. It ends with a
// StatusUpdate, also when it fails: no RunEnd follows a compaction between
// runs, so that is how a watcher knows it is over.
func (s *Soul) Compact(ctx context.Context) error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	v, err := s.st.View(ctx, s.sessionID)
	if err != nil {
		return fmt.Errorf("load context: %w", err)
	}
	err = s.compact(ctx, false, v)
	if v2, verr := s.st.View(context.WithoutCancel(ctx), s.sessionID); verr == nil {
		s.noteView(v2)
	}
	s.emitStatus()
	return err
}

// splitForCompaction returns the messages to summarise and the ones to keep:
// the last preservedMessages user/assistant messages and what follows them
// (so tool results stay with their call). Checkpoint markers are dropped.
func splitForCompaction(msgs []message.Message) (toCompact, preserve []message.Message) {
	var real []message.Message
	for _, m := range msgs {
		if !message.IsCheckpoint(m) {
			real = append(real, m)
		}
	}
	start := len(real)
	n := 0
	for i := len(real) - 1; i >= 0; i-- {
		if r := real[i].Role; r == "user" || r == "assistant" {
			n++
			if n == preservedMessages {
				start = i
				break
			}
		}
	}
	if n < preservedMessages {
		return nil, real
	}
	return real[:start], real[start:]
}

// ErrNothingToDrop: the summary failed and truncating would drop nothing
// (or everything), so the context is left as it was.
var ErrNothingToDrop = errors.New("compaction left the context as it was: truncating it would drop nothing")

// compact makes a compacted generation from v. It emits CompactionBegin and,
// when a generation was written, CompactionEnd.
func (s *Soul) compact(ctx context.Context, auto bool, v store.View) error {
	prompt, msgs := splitImportedPrompt(v.Messages())
	toCompact, preserve := splitForCompaction(msgs)
	if len(toCompact) == 0 {
		return nil
	}
	before := contextTokens(v)
	s.emit(CompactionBegin{Auto: auto, Tokens: before})

	var (
		newMsgs   []message.Message
		kept      int
		truncated bool
		reason    string
	)
	summary, err := s.summarise(ctx, toCompact)
	if err != nil {
		if ctx.Err() != nil {
			s.emit(StepInterrupted{Reason: "compaction interrupted", Where: "during compaction"})
			return fmt.Errorf("compaction interrupted: %w", ctx.Err())
		}
		truncated = true
		reason = err.Error()
		all := append(append([]message.Message(nil), toCompact...), preserve...)
		keptMsgs, dropped := truncateMessages(all, int(truncateShare*float64(s.cfg.MaxContextSize)))
		if dropped == 0 || len(keptMsgs) == 0 {
			// Nothing to gain (everything fits) or nothing left: a new
			// generation would only copy or empty the context.
			s.emit(StepInterrupted{Reason: "compaction failed", Where: "during compaction", ModelFailed: true})
			return fmt.Errorf("%w: the summary failed (%s)", ErrNothingToDrop, reason)
		}
		newMsgs = append([]message.Message{message.Truncation(reason, dropped, v.Generation.Gen)}, keptMsgs...)
		kept = len(keptMsgs)
	} else {
		newMsgs = append([]message.Message{message.Compaction(summary)}, preserve...)
		kept = len(preserve)
	}
	// An imported system prompt stays the session's prompt after compaction.
	newMsgs = append(prompt, newMsgs...)
	tokens := llm.EstimateTokens(newMsgs)
	gen, err := s.st.StartCompacted(context.WithoutCancel(ctx), s.sessionID, newMsgs, v.Generation.Gen, tokens, s.dmailEnabled)
	if err != nil {
		return fmt.Errorf("start compacted generation: %w", err)
	}
	s.mu.Lock()
	s.tokens = tokens
	s.gen = gen.Gen
	s.nextCheckpoint = gen.NextCheckpointID
	s.mu.Unlock()
	s.emit(CompactionEnd{NewGen: gen.Gen, ArchivedGen: v.Generation.Gen, Truncated: truncated, Reason: reason, Tokens: tokens, Kept: kept})
	return nil
}

// summarise asks the model for the structured summary of msgs.
func (s *Soul) summarise(ctx context.Context, msgs []message.Message) (string, error) {
	input := compactionInput(msgs, int(compactInputShare*float64(s.cfg.MaxContextSize)))
	req := llm.Request{Messages: []message.Message{
		message.NewText("system", compactSystemPrompt),
		message.NewText("user", input),
	}}
	resp, err := s.modelClient().Chat(ctx, req, llm.Callbacks{
		OnRetry: func(attempt, max int, wait time.Duration, reason string) {
			s.emit(StepRetry{Attempt: attempt, Max: max, Wait: wait, Reason: "compaction: " + reason, Compaction: true})
		},
	})
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(resp.Message.Content.PlainText())
	if text == "" {
		return "", errors.New("the model returned an empty summary")
	}
	return text, nil
}

// compactionInput renders msgs as "## Message i" sections followed by the
// compaction prompt, dropping the oldest messages if the text would exceed
// budget tokens.
func compactionInput(msgs []message.Message, budget int) string {
	sections := make([]string, len(msgs))
	for i, m := range msgs {
		sections[i] = renderForSummary(i+1, m)
	}
	// Newest first until the budget is used up.
	start := 0
	total := llm.EstimateTokens([]message.Message{message.NewText("user", compactPrompt)})
	for i := len(sections) - 1; i >= 0; i-- {
		t := llm.EstimateTokens([]message.Message{message.NewText("user", sections[i])})
		if total+t > budget && i < len(sections)-1 {
			start = i + 1
			break
		}
		total += t
	}
	var b strings.Builder
	if start > 0 {
		fmt.Fprintf(&b, "(%d earlier messages are omitted here: they did not fit.)\n\n", start)
	}
	for _, sec := range sections[start:] {
		b.WriteString(sec)
		b.WriteString("\n\n")
	}
	b.WriteString("\n")
	b.WriteString(compactPrompt)
	return b.String()
}

func renderForSummary(n int, m message.Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Message %d\nRole: %s\n", n, m.Role)
	if m.Role == "tool" && m.ToolCallID != "" {
		fmt.Fprintf(&b, "Tool call: %s\n", m.ToolCallID)
	}
	b.WriteString("Content:\n")
	b.WriteString(elide(m.Content.PlainText(), compactMaxMessageChars))
	for _, c := range m.ToolCalls {
		fmt.Fprintf(&b, "\n[tool call %s: %s %s]", c.ID, c.Name, elide(c.Args, compactMaxMessageChars/4))
	}
	return b.String()
}

// elide keeps the head and tail of a long text.
func elide(s string, max int) string {
	if len(s) <= max {
		return s
	}
	head, tail := max*2/3, max/3
	// Keep UTF-8 intact.
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	cut := len(s) - tail
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return s[:head] + fmt.Sprintf("\n[… %d characters omitted …]\n", cut-head) + s[cut:]
}

// truncateMessages keeps the newest messages whose estimate fits in budget
// tokens, starting at a user message and never separating tool results from
// the assistant message that called them. If not even the last user turn
// fits, the last user message is kept with its text shortened. It returns
// the kept messages and how many were dropped.
func truncateMessages(msgs []message.Message, budget int) ([]message.Message, int) {
	// Units: an assistant message with its tool results, or one message.
	type unit struct{ start, end int }
	var units []unit
	for i := 0; i < len(msgs); {
		j := i + 1
		if msgs[i].Role == "assistant" {
			for j < len(msgs) && msgs[j].Role == "tool" {
				j++
			}
		}
		units = append(units, unit{i, j})
		i = j
	}
	start := len(msgs)
	total := 0
	for k := len(units) - 1; k >= 0; k-- {
		u := units[k]
		t := llm.EstimateTokens(msgs[u.start:u.end])
		if total+t > budget {
			break
		}
		total += t
		start = u.start
	}
	// Start at a user message, and never at an orphaned tool result.
	for start < len(msgs) && msgs[start].Role != "user" {
		start++
	}
	if start < len(msgs) {
		return append([]message.Message(nil), msgs[start:]...), start
	}
	// Nothing fits: keep the last user message, shortened.
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" && !message.IsCheckpoint(msgs[i]) {
			chars := budget * 3
			if chars < 200 {
				chars = 200
			}
			m := message.NewText("user", elide(msgs[i].Content.PlainText(), chars))
			return []message.Message{m}, len(msgs) - 1
		}
	}
	return nil, len(msgs)
}

// splitImportedPrompt separates an imported kimi-cli system prompt (which is
// not conversation and must not be summarised) from the messages.
func splitImportedPrompt(msgs []message.Message) (prompt, rest []message.Message) {
	rest = make([]message.Message, 0, len(msgs))
	for _, m := range msgs {
		if m.Role == importedSystemPromptRole {
			prompt = []message.Message{m}
			continue
		}
		rest = append(rest, m)
	}
	return prompt, rest
}
