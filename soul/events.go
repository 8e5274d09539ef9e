package soul

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/rewind-agent/rewind/store/message"
)

// Event is one message on the wire from the Soul to whoever drives it (the
// TUI, print mode, tests). Events are plain data; the only exception is
// ApprovalRequest, which carries a way to answer it.
type Event interface{ EventType() string }

// Sink receives events in order. It must not block for long: the TUI batches
// them and print mode writes them out.
type Sink func(Event)

// SessionStart opens a print-mode jsonl stream.
type SessionStart struct {
	SessionID string `json:"session_id"`
	WorkDir   string `json:"work_dir"`
	Model     string `json:"model"`
}

// StepBegin is sent before each model call of a run; N counts from 1.
type StepBegin struct {
	N          int `json:"n"`
	Checkpoint int `json:"checkpoint"`
}

// StepRetry is sent before a retry of a failed model call. The retried
// attempt streams the whole answer again from the start, so a UI must
// discard every ContentPart, ReasoningPart and ToolCallPart it received
// since the last StepBegin (or the previous StepRetry) and render the deltas
// that follow as a fresh answer. Compaction marks a retry of the compaction
// summary call instead (no deltas are streamed for it: keep them).
type StepRetry struct {
	Attempt    int           `json:"attempt"` // 1 for the first retry
	Max        int           `json:"max"`
	Wait       time.Duration `json:"wait_ns"`
	Reason     string        `json:"reason"`
	Compaction bool          `json:"compaction,omitempty"`
}

// StepInterrupted says the current step was cancelled. Nothing of it is
// in the current view; what it had streamed is kept in archived generation
// KeptGeneration (cause interrupt) when it is not 0.
//
// Reason is the sentence for a log; a UI builds its own from the typed
// fields: Where the run was cut ("while the model was answering"; empty
// when it was not an interrupt) and ModelFailed when the model call failed
// for good (an Error event with the reason follows).
type StepInterrupted struct {
	Reason         string `json:"reason"`
	Where          string `json:"where,omitempty"`
	ModelFailed    bool   `json:"model_failed,omitempty"`
	KeptGeneration int    `json:"kept_generation,omitempty"`
	Partial        string `json:"partial,omitempty"`    // the text kept
	KeepError      string `json:"keep_error,omitempty"` // why it could not be kept
	// KeptFile: another process held the write lock, so what streamed is
	// in this recovery file, committed to an archived generation once the
	// lock is free (or by the next start).
	KeptFile string `json:"kept_file,omitempty"`
}

// CompactionBegin is sent when compaction (manual or automatic) starts.
type CompactionBegin struct {
	Auto   bool `json:"auto"`
	Tokens int  `json:"tokens"`
}

// CompactionEnd is sent when compaction has produced a new generation.
type CompactionEnd struct {
	NewGen      int    `json:"new_gen"`
	ArchivedGen int    `json:"archived_gen"`
	Truncated   bool   `json:"truncated"` // the summary call failed; fell back to truncation
	Reason      string `json:"reason,omitempty"`
	Tokens      int    `json:"tokens"`
	Kept        int    `json:"kept"` // messages preserved verbatim
}

// StatusUpdate carries the numbers the status bar shows.
type StatusUpdate struct {
	Model          string  `json:"model"`
	Step           int     `json:"step"`
	Tokens         int     `json:"tokens"`
	MaxContext     int     `json:"max_context"`
	ContextPercent float64 `json:"context_percent"`
	Generation     int     `json:"generation"`
	// Thinking is the effort asked of the model ("" or "off" when none).
	Thinking string `json:"thinking,omitempty"`
	// Plan: plan mode is on (the status bar's PLAN).
	Plan bool `json:"plan,omitempty"`
}

// ContentPart is a delta of the assistant's answer text.
type ContentPart struct {
	Text string `json:"text"`
}

// ReasoningPart is a delta of the model's reasoning.
type ReasoningPart struct {
	Text string `json:"text"`
}

// ToolCall is sent when a complete tool call is known and about to run.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolCallPart is a delta of a tool call while the model streams it.
type ToolCallPart struct {
	Index          int    `json:"index"`
	ID             string `json:"id,omitempty"`
	Name           string `json:"name,omitempty"`
	ArgumentsDelta string `json:"arguments_delta"`
}

// ToolOutput is live output of a running tool call (Shell streams here).
type ToolOutput struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// ToolResult is the final result of a tool call.
type ToolResult struct {
	ID       string        `json:"id"`
	Name     string        `json:"name"`
	Output   string        `json:"output"`
	IsError  bool          `json:"is_error"`
	Brief    string        `json:"brief,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	Todos    []Todo        `json:"todos,omitempty"` // SetTodoList
	// Images are what the result gives the model besides Output
	// (ReadMediaFile): their labels, never their bytes.
	Images []message.ImageInfo `json:"images,omitempty"`
}

// PromptImages is sent once the user's prompt is saved with images it
// attached (@pic.png, a pasted path): what the conversation shows of them.
type PromptImages struct {
	Images []message.ImageInfo `json:"images"`
}

// Todo is one entry of the model's todo list.
type Todo struct {
	Title  string `json:"title"`
	Status string `json:"status"`
}

// ApprovalDecision answers an ApprovalRequest.
type ApprovalDecision int

const (
	Reject ApprovalDecision = iota
	ApproveOnce
	ApproveForSession
	// RejectWithFeedback rejects the call and hands the feedback to the
	// model as its result; the run goes on (as in Claude Code). Without
	// feedback it is a plain Reject, which ends the run.
	RejectWithFeedback
)

// ApprovalRequest asks the user to allow a tool call that writes or executes.
type ApprovalRequest struct {
	ToolCallID  string `json:"tool_call_id"`
	Tool        string `json:"tool"`
	Action      string `json:"action"` // the approval class, e.g. "edit file", "run shell command"
	Description string `json:"description"`
	Arguments   string `json:"arguments"`
	Diff        string `json:"diff,omitempty"`    // unified diff for edits
	Command     string `json:"command,omitempty"` // for Shell
	// SessionScopes is what ApproveForSession approves: for Shell the
	// command's prefixes ("go test …"), else empty (the whole Action).
	SessionScopes []string `json:"session_scopes,omitempty"`
	// Plan, for ExitPlanMode (Action tools.ActionApprovePlan), is the plan
	// the user approves: approve (plan mode ends), reject with feedback
	// (keep planning), or reject.
	Plan string `json:"plan,omitempty"`
	// Subagent, for a sub-agent's call, is its type ("coder"): the dialog
	// says "coder · Shell `go test ./...`". SubagentCallID is the parent's
	// Agent call that started it.
	Subagent       string `json:"subagent,omitempty"`
	SubagentCallID string `json:"subagent_call_id,omitempty"`

	reply    chan approvalReply
	answered atomic.Bool
}

type approvalReply struct {
	decision ApprovalDecision
	feedback string
}

// Respond answers the request; only the first answer counts.
func (r *ApprovalRequest) Respond(d ApprovalDecision, feedback string) { r.Answer(d, feedback) }

// Answer answers the request and reports whether this answer is the one
// that counts (the first; the UI and a remote watcher may race). A request
// read back from the wire cannot be answered.
func (r *ApprovalRequest) Answer(d ApprovalDecision, feedback string) bool {
	return r.AnswerAnnounced(d, feedback, nil)
}

// AnswerAnnounced is Answer that, when this answer is the one that counts,
// runs announce before the Soul hears it: what announce tells (who
// answered, on the writer's screen and to its watchers) comes before the
// events of the call's run, never after them.
func (r *ApprovalRequest) AnswerAnnounced(d ApprovalDecision, feedback string, announce func()) bool {
	if r.reply == nil || !r.answered.CompareAndSwap(false, true) {
		return false
	}
	if announce != nil {
		announce()
	}
	r.reply <- approvalReply{d, feedback} // buffered: the first and only send
	return true
}

// Backtrack is sent after a D-Mail moved the session back to a checkpoint.
type Backtrack struct {
	CheckpointID  int    `json:"checkpoint_id"`
	Discarded     int    `json:"discarded"`         // messages kept only in the archived generation
	Prompts       int    `json:"discarded_prompts"` // the user's prompts among them
	ReturnedTo    string `json:"returned_to"`
	Note          string `json:"note"`
	NewGen        int    `json:"new_gen"`
	ArchivedGen   int    `json:"archived_gen"`
	FilesReverted bool   `json:"files_reverted"`
	FilesError    string `json:"files_error,omitempty"` // DMailRevertsFiles was set but the files could not be reverted
}

// Error reports a failure of the run; Temporary is set when retries ran out
// on a failure that might pass (print mode exits 75 then).
type Error struct {
	Message   string `json:"message"`
	Temporary bool   `json:"temporary"`
}

// RunEnd closes a run.
type RunEnd struct {
	Reason string `json:"reason"` // "done", "max_steps", "rejected", "interrupted", "error"
	Steps  int    `json:"steps"`
}

// LoopWarning says the model keeps running (nearly) the same shell command.
type LoopWarning struct {
	Command string `json:"command"`
	Count   int    `json:"count"`
}

func (SessionStart) EventType() string     { return "SessionStart" }
func (StepBegin) EventType() string        { return "StepBegin" }
func (StepRetry) EventType() string        { return "StepRetry" }
func (StepInterrupted) EventType() string  { return "StepInterrupted" }
func (CompactionBegin) EventType() string  { return "CompactionBegin" }
func (CompactionEnd) EventType() string    { return "CompactionEnd" }
func (StatusUpdate) EventType() string     { return "StatusUpdate" }
func (ContentPart) EventType() string      { return "ContentPart" }
func (ReasoningPart) EventType() string    { return "ReasoningPart" }
func (ToolCall) EventType() string         { return "ToolCall" }
func (ToolCallPart) EventType() string     { return "ToolCallPart" }
func (ToolOutput) EventType() string       { return "ToolOutput" }
func (ToolResult) EventType() string       { return "ToolResult" }
func (*ApprovalRequest) EventType() string { return "ApprovalRequest" }
func (Backtrack) EventType() string        { return "Backtrack" }
func (Error) EventType() string            { return "Error" }
func (RunEnd) EventType() string           { return "RunEnd" }
func (LoopWarning) EventType() string      { return "LoopWarning" }
func (PromptImages) EventType() string     { return "PromptImages" }

// Label is how an approval names the call: the tool, and for a
// sub-agent's call its type first ("coder · Shell").
func (r *ApprovalRequest) Label() string {
	if r.Subagent == "" {
		return r.Tool
	}
	return r.Subagent + " · " + r.Tool
}

// MarshalEvent encodes an event as one jsonl line: {"type":…,"payload":…}.
func MarshalEvent(e Event) ([]byte, error) {
	return json.Marshal(struct {
		Type    string `json:"type"`
		Payload Event  `json:"payload"`
	}{e.EventType(), e})
}

// eventTypes makes an empty event of each type MarshalEvent writes, so the
// wire can be read back (watchers of another process, tests).
var eventTypes = map[string]func() Event{
	"SessionStart":    func() Event { return &SessionStart{} },
	"StepBegin":       func() Event { return &StepBegin{} },
	"StepRetry":       func() Event { return &StepRetry{} },
	"StepInterrupted": func() Event { return &StepInterrupted{} },
	"CompactionBegin": func() Event { return &CompactionBegin{} },
	"CompactionEnd":   func() Event { return &CompactionEnd{} },
	"StatusUpdate":    func() Event { return &StatusUpdate{} },
	"ContentPart":     func() Event { return &ContentPart{} },
	"ReasoningPart":   func() Event { return &ReasoningPart{} },
	"ToolCall":        func() Event { return &ToolCall{} },
	"ToolCallPart":    func() Event { return &ToolCallPart{} },
	"ToolOutput":      func() Event { return &ToolOutput{} },
	"ToolResult":      func() Event { return &ToolResult{} },
	"ApprovalRequest": func() Event { return &ApprovalRequest{} },
	"Backtrack":       func() Event { return &Backtrack{} },
	"Error":           func() Event { return &Error{} },
	"RunEnd":          func() Event { return &RunEnd{} },
	"LoopWarning":     func() Event { return &LoopWarning{} },
	"SubagentEvent":   func() Event { return &SubagentEvent{} },
	"PromptImages":    func() Event { return &PromptImages{} },
}

// UnmarshalEvent decodes one MarshalEvent line into the same value type the
// Soul emits (an ApprovalRequest read back cannot be answered: Respond does
// nothing). An unknown type is an error wrapping ErrUnknownEvent.
func UnmarshalEvent(line []byte) (Event, error) {
	var w struct {
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(line, &w); err != nil {
		return nil, fmt.Errorf("soul: decode event: %w", err)
	}
	mk, ok := eventTypes[w.Type]
	if !ok {
		return nil, fmt.Errorf("soul: decode event %q: %w", w.Type, ErrUnknownEvent)
	}
	p := mk()
	if err := json.Unmarshal(w.Payload, p); err != nil {
		return nil, fmt.Errorf("soul: decode %s event: %w", w.Type, err)
	}
	if r, ok := p.(*ApprovalRequest); ok {
		return r, nil
	}
	return reflect.ValueOf(p).Elem().Interface().(Event), nil
}

// ErrUnknownEvent is returned by UnmarshalEvent for a type it does not know.
var ErrUnknownEvent = errors.New("unknown event type")
