package live

import (
	"encoding/json"
	"fmt"

	"github.com/rewind-agent/rewind/soul"
)

// Hello is the first message a watcher reads: who writes the session and
// what its run is doing now. `rewind runs` reads only this.
type Hello struct {
	SessionID      string `json:"session_id"`
	PID            int    `json:"pid"`
	Title          string `json:"title"`
	WorkDir        string `json:"work_dir"`
	Model          string `json:"model"`
	RemoteApproval bool   `json:"remote_approval"` // the writer takes approval answers from watchers
	Run            Run    `json:"run"`
	// A sub-agent run: the session whose Agent call started it, its type.
	SubagentOf   string `json:"subagent_of,omitempty"`
	SubagentType string `json:"subagent_type,omitempty"`
	// Origin: the run is another agent's (codex, claude), its session file
	// followed by `rewind import --follow`.
	Origin string `json:"origin,omitempty"`
}

// Join is the first line a watcher sends: whether it wants the session's
// events (the step in flight, then everything live) or only the Hello (a
// lister such as the runs view, which asks every second). A watcher older
// than Join sends nothing; the writer takes it for a full watcher after
// joinWait.
type Join struct {
	HelloOnly bool `json:"hello_only"`
}

// Refused is sent instead of a Hello to a watcher the writer will not
// serve (it has Options.MaxWatchers already).
type Refused struct {
	Reason string `json:"reason"`
}

// Ping keeps an idle connection alive: a watcher that hears nothing for
// readTimeout takes the writer for gone.
type Ping struct{}

// Answer is a watcher's answer to a pending approval request.
type Answer struct {
	ToolCallID string                `json:"tool_call_id"`
	Decision   soul.ApprovalDecision `json:"decision"`
	Feedback   string                `json:"feedback,omitempty"`
	PID        int                   `json:"pid"` // the watcher's, shown by the writer
}

// AnswerResult tells the watcher that sent an Answer whether it counted.
type AnswerResult struct {
	ToolCallID string `json:"tool_call_id"`
	Accepted   bool   `json:"accepted"`
	Reason     string `json:"reason,omitempty"` // why not
}

// Answered tells every watcher that a pending approval got its answer (from
// the writer's screen or a watcher), so they stop offering it.
type Answered struct {
	ToolCallID string                `json:"tool_call_id"`
	Decision   soul.ApprovalDecision `json:"decision"`
	By         string                `json:"by"` // "the writer" or "watcher pid N"
}

func (Hello) EventType() string        { return "live.Hello" }
func (Join) EventType() string         { return "live.Join" }
func (Ping) EventType() string         { return "live.Ping" }
func (Refused) EventType() string      { return "live.Refused" }
func (Answer) EventType() string       { return "live.Answer" }
func (AnswerResult) EventType() string { return "live.AnswerResult" }
func (Answered) EventType() string     { return "live.Answered" }

// encode is one wire line (with its newline).
func encode(e soul.Event) []byte {
	b, err := soul.MarshalEvent(e)
	if err != nil {
		b, _ = soul.MarshalEvent(soul.Error{Message: "cannot encode " + e.EventType() + " event: " + err.Error()})
	}
	return append(b, '\n')
}

// decode reads one wire line: a control message of this package or a soul
// event.
func decode(line []byte) (soul.Event, error) {
	var w struct {
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(line, &w); err != nil {
		return nil, fmt.Errorf("live: decode: %w", err)
	}
	switch w.Type {
	case "live.Hello":
		return decodeAs[Hello](w.Payload)
	case "live.Join":
		return decodeAs[Join](w.Payload)
	case "live.Ping":
		return Ping{}, nil
	case "live.Refused":
		return decodeAs[Refused](w.Payload)
	case "live.Answer":
		return decodeAs[Answer](w.Payload)
	case "live.AnswerResult":
		return decodeAs[AnswerResult](w.Payload)
	case "live.Answered":
		return decodeAs[Answered](w.Payload)
	}
	return soul.UnmarshalEvent(line)
}

func decodeAs[T soul.Event](payload []byte) (soul.Event, error) {
	var v T
	if err := json.Unmarshal(payload, &v); err != nil {
		return nil, fmt.Errorf("live: decode %s: %w", v.EventType(), err)
	}
	return v, nil
}
