package timetravel

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

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
	DMail  bool
	Time   time.Time
	Tokens int // context tokens when the prompt was sent
	Steps  []Step
}

// Label is the turn's one-line label: its prompt's first line.
func (t Turn) Label() string {
	switch {
	case t.DMail:
		return "D-Mail: " + firstLine(t.Prompt)
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
	var turns []Turn
	tokens := 0
	open := -1 // checkpoint record waiting for the message that says what it is
	var openTime time.Time
	openTokens := 0
	cur := func() *Turn {
		if len(turns) == 0 {
			turns = append(turns, Turn{Checkpoint: -1})
		}
		return &turns[len(turns)-1]
	}
	flushOpen := func() {
		if open < 0 {
			return
		}
		t := cur()
		t.Steps = append(t.Steps, Step{Checkpoint: open, N: len(t.Steps) + 1, Time: openTime, Tokens: openTokens})
		open = -1
	}
	for _, r := range v.Records {
		switch r.Kind {
		case store.KindUsage:
			tokens = r.TokenCount
		case store.KindCheckpoint:
			flushOpen()
			open, openTime, openTokens = r.CheckpointID, r.CreatedAt, tokens
		case store.KindMessage:
			m, err := r.Message()
			if err != nil || message.IsCheckpoint(m) {
				continue
			}
			switch m.Role {
			case "user":
				kind, payload := message.MarkerOf(m)
				if open < 0 && len(turns) > 0 && kind != message.MarkerDMail {
					continue // a message injected into a turn (compaction summary, …)
				}
				t := Turn{Checkpoint: open, Prompt: strings.TrimSpace(m.Content.PlainText()), Time: openTime, Tokens: openTokens}
				switch kind {
				case message.MarkerDMail:
					t.DMail, t.Prompt = true, payload
				case message.MarkerCompaction, message.MarkerTruncation, message.MarkerSystemNote:
					t.Prompt = payload
				}
				if open < 0 {
					t.Time, t.Tokens = r.CreatedAt, tokens
				}
				turns = append(turns, t)
				open = -1
			case "assistant":
				if open < 0 {
					continue
				}
				t := cur()
				t.Steps = append(t.Steps, Step{Checkpoint: open, N: len(t.Steps) + 1, Label: stepLabel(m), Time: openTime, Tokens: openTokens})
				open = -1
			}
		}
	}
	flushOpen()
	return turns
}

// stepLabel names a step by its tool calls ("Shell go test") or its answer.
func stepLabel(m message.Message) string {
	if len(m.ToolCalls) == 0 {
		return "answer: " + firstLine(m.Content.PlainText())
	}
	parts := make([]string, 0, len(m.ToolCalls))
	for _, c := range m.ToolCalls {
		p := c.Name
		if a := keyArg(c.Args); a != "" {
			p += " " + a
		}
		parts = append(parts, p)
	}
	return firstLine(strings.Join(parts, ", "))
}

// keyArg is the argument that says what a tool call does.
func keyArg(args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return ""
	}
	for _, k := range []string{"command", "path", "pattern", "url", "query", "message", "directory"} {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// firstLine is the first non-empty line of s, without markdown emphasis,
// cut to 120 runes.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = Plain(l); l != "" {
			if r := []rune(l); len(r) > 120 {
				return string(r[:119]) + "…"
			}
			return l
		}
	}
	return ""
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
	s = strings.NewReplacer("**", "", "__", "", "`", "").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

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
