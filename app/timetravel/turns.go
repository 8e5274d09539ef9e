package timetravel

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// The checkpoint model a person reads: a view is a list of turns (a user
// prompt and the steps that answered it), each with the checkpoint just
// before its prompt; every step has the checkpoint just before it.
// Rewinding to a turn returns to just before its prompt; rewinding to a step
// keeps the prompt and the steps before it.

// Step is one model call of a turn (its tool calls, or its answer).
type Step struct {
	Checkpoint int
	N          int    // 1, 2, … within the turn
	Label      string // "Shell go test", "answer: Done."; "" when nothing followed the checkpoint yet
	Time       time.Time
	Tokens     int
}

// Turn is one user prompt and its steps.
type Turn struct {
	// Checkpoint is the checkpoint just before the prompt; -1 when the view
	// has none there (an imported or compacted start).
	Checkpoint int
	Prompt     string // the prompt as typed ("" for the records before the first prompt)
	// DMail marks the turn a D-Mail started (its prompt is the note).
	DMail bool
	// Summary marks the turn a compaction starts with: its "prompt" is
	// the summary (or the truncation's note), after checkpoint 0.
	Summary bool
	Time    time.Time
	Tokens  int // context tokens when the prompt was sent
	Steps   []Step
}

// Label is the turn's one-line label: its prompt's first line.
func (t Turn) Label() string {
	switch {
	case t.DMail:
		return "D-Mail: " + firstLine(t.Prompt)
	case t.Summary:
		return "compacted: " + firstLine(t.Prompt)
	case t.Prompt == "":
		return "(start)"
	}
	return firstLine(t.Prompt)
}

// StepLabel is "after step 2 · Shell go test": what a rewind to the
// checkpoint after step N-1 keeps is everything up to there; the row is
// named by the step it goes back before.
func (s Step) String() string {
	if s.Label == "" {
		return fmt.Sprintf("step %d", s.N)
	}
	return fmt.Sprintf("step %d · %s", s.N, s.Label)
}

// Turns reads the turns of a view.
func Turns(v store.View) []Turn {
	var b TurnBuilder
	b.Add(v.Records...)
	return b.Turns()
}

// TurnBuilder reads turns from records as they come: a watcher adds the
// records a followed view gained instead of reading the whole view again.
// Its zero value is ready; Turns(v) is a builder fed v's records.
type TurnBuilder struct {
	turns      []Turn
	tokens     int
	hasOpen    bool // a checkpoint record waits for the message that says what it is:
	open       int  // its id
	openTime   time.Time
	openTokens int
}

// cur is the last turn, created for records before the first prompt.
func (b *TurnBuilder) cur() *Turn {
	if len(b.turns) == 0 {
		b.turns = append(b.turns, Turn{Checkpoint: -1})
	}
	return &b.turns[len(b.turns)-1]
}

// openCP is the checkpoint waiting for its message, or -1.
func (b *TurnBuilder) openCP() int {
	if !b.hasOpen {
		return -1
	}
	return b.open
}

func (b *TurnBuilder) setOpen(cp int, at time.Time, tokens int) {
	b.open, b.openTime, b.openTokens, b.hasOpen = cp, at, tokens, cp >= 0
}

// flushOpen makes a checkpoint nothing followed yet a step of the last turn.
func (b *TurnBuilder) flushOpen() {
	if b.openCP() < 0 {
		return
	}
	t := b.cur()
	t.Steps = append(t.Steps, Step{Checkpoint: b.open, N: len(t.Steps) + 1, Time: b.openTime, Tokens: b.openTokens})
	b.setOpen(-1, time.Time{}, 0)
}

// Add reads more records of the view, in order.
func (b *TurnBuilder) Add(records ...store.Record) {
	for _, r := range records {
		switch r.Kind {
		case store.KindUsage:
			b.tokens = r.TokenCount
		case store.KindCheckpoint:
			b.flushOpen()
			b.setOpen(r.CheckpointID, r.CreatedAt, b.tokens)
		case store.KindMessage:
			m, err := r.Message()
			if err != nil || message.IsCheckpoint(m) {
				continue
			}
			open := b.openCP()
			switch m.Role {
			case "user":
				kind, payload := message.MarkerOf(m)
				if open < 0 && len(b.turns) > 0 && kind != message.MarkerDMail {
					continue // a message injected into a turn (compaction summary, …)
				}
				t := Turn{Checkpoint: open, Prompt: strings.TrimSpace(m.Content.PlainText()), Time: b.openTime, Tokens: b.openTokens}
				switch kind {
				case message.MarkerDMail:
					t.DMail, t.Prompt = true, payload
				case message.MarkerCompaction, message.MarkerTruncation:
					t.Summary, t.Prompt = true, payload
				case message.MarkerSystemNote:
					t.Prompt = payload
				}
				if open < 0 {
					t.Time, t.Tokens = r.CreatedAt, b.tokens
				}
				b.turns = append(b.turns, t)
				b.setOpen(-1, time.Time{}, 0)
			case "assistant":
				if open < 0 {
					continue
				}
				t := b.cur()
				t.Steps = append(t.Steps, Step{Checkpoint: open, N: len(t.Steps) + 1, Label: stepLabel(m), Time: b.openTime, Tokens: b.openTokens})
				b.setOpen(-1, time.Time{}, 0)
			}
		}
	}
}

// Prepend reads earlier, the records of the view just before those read so
// far (read: every record Add was given, in order), as if the builder had
// read earlier first. Only earlier and the first records of read are read
// again: once both readings are in the same state (the same tokens, the
// same open checkpoint, the same last turn: a prompt of read and its
// usage are enough), every turn after is the one already built. It
// returns how many records of read it read again (a test's counter: a
// long session loaded page by page read every page again each time).
func (b *TurnBuilder) Prepend(earlier, read []store.Record) int {
	var joined, alone TurnBuilder
	joined.Add(earlier...)
	for i, r := range read {
		if joined.sameState(&alone) {
			// alone is b after read[:i]: its last turn is b's turn at
			// len(alone.turns)-1, which may have grown since.
			b.turns = append(joined.turns[:len(joined.turns)-1], b.turns[len(alone.turns)-1:]...)
			return i
		}
		joined.Add(r)
		alone.Add(r)
	}
	*b = joined
	return len(read)
}

// sameState reports whether o goes on exactly as b from here: the same
// tokens and open checkpoint, and an equal last turn (the only one Add
// changes).
func (b *TurnBuilder) sameState(o *TurnBuilder) bool {
	if b.tokens != o.tokens || b.openCP() != o.openCP() || !b.openTime.Equal(o.openTime) || b.openTokens != o.openTokens ||
		len(b.turns) == 0 || len(o.turns) == 0 {
		return false
	}
	x, y := b.turns[len(b.turns)-1], o.turns[len(o.turns)-1]
	return x.Checkpoint == y.Checkpoint && x.Prompt == y.Prompt && x.DMail == y.DMail && x.Summary == y.Summary &&
		x.Time.Equal(y.Time) && x.Tokens == y.Tokens && slices.EqualFunc(x.Steps, y.Steps, func(p, q Step) bool {
		return p.Checkpoint == q.Checkpoint && p.N == q.N && p.Label == q.Label && p.Time.Equal(q.Time) && p.Tokens == q.Tokens
	})
}

// Turns returns the turns read so far (a checkpoint nothing followed yet
// is a step without a label). The builder keeps its state: Add may go on.
func (b *TurnBuilder) Turns() []Turn { return b.TurnsFrom(0) }

// TurnsFrom is Turns without the first k turns; the last turn is always
// returned (k is at most the number of turns minus one). Only the last
// turn can still change as records are added — every turn before it is
// final — so a follower keeps what it made of the others and asks for the
// rest.
func (b *TurnBuilder) TurnsFrom(k int) []Turn {
	k = max(0, min(k, len(b.turns)-1))
	out := make([]Turn, len(b.turns)-k, len(b.turns)-k+1)
	copy(out, b.turns[k:])
	if cp := b.openCP(); cp >= 0 {
		if len(out) == 0 {
			out = append(out, Turn{Checkpoint: -1})
		}
		t := &out[len(out)-1]
		t.Steps = append(t.Steps[:len(t.Steps):len(t.Steps)], Step{Checkpoint: cp, N: len(t.Steps) + 1, Time: b.openTime, Tokens: b.openTokens})
	}
	return out
}

// stepLabel names a step by its tool calls, each with the label the
// conversation shows ("Shell go test"), or by its answer. A call's label is
// literal (a command's ** and backticks are the command's), so it is not
// stripped of markdown as prose is.
func stepLabel(m message.Message) string {
	if len(m.ToolCalls) == 0 {
		return "answer: " + firstLine(m.Content.PlainText())
	}
	parts := make([]string, 0, len(m.ToolCalls))
	for _, c := range m.ToolCalls {
		p := c.Name
		if a, _, _ := strings.Cut(strings.TrimSpace(tools.CallLabel(c.Name, c.Args)), "\n"); a != "" {
			p += " " + strings.Join(strings.Fields(a), " ")
		}
		parts = append(parts, p)
	}
	return cut(strings.Join(parts, ", "), 120)
}

// firstLine is the first non-empty line of s, without markdown emphasis,
// cut to 120 runes.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = Plain(l); l != "" {
			return cut(l, 120)
		}
	}
	return ""
}

// cut shortens s to at most n runes, ending in "…" when cut.
func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Plain strips the markdown that would leak into a one-line label:
// emphasis markers, inline code ticks and heading or list marks.
func Plain(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimLeft(s, "#>")
	s = strings.TrimSpace(s)
	for _, p := range []string{"- ", "* ", "+ "} {
		s = strings.TrimPrefix(s, p)
	}
	s = markdownMarks.Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// markdownMarks removes emphasis and code marks (Plain).
var markdownMarks = strings.NewReplacer("**", "", "__", "", "`", "")

// place is where checkpoint id sits in the turns: the turn and, for a
// step checkpoint, the step (nil for a turn checkpoint).
func place(turns []Turn, id int) (*Turn, *Step) {
	for i := range turns {
		t := &turns[i]
		if t.Checkpoint == id {
			return t, nil
		}
		for j := range t.Steps {
			if t.Steps[j].Checkpoint == id {
				return t, &t.Steps[j]
			}
		}
	}
	return nil, nil
}
