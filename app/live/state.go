package live

import (
	"time"

	"github.com/rewind-agent/rewind/soul"
)

// States of a run, as `rewind runs` shows them.
const (
	StateIdle       = "idle"
	StateStreaming  = "streaming" // the model is answering
	StateTool       = "running tool"
	StateApproval   = "waiting for approval"
	StateRetrying   = "retrying"
	StateCompacting = "compacting"
	StateRunning    = "running" // between a tool's result and the next step
)

// Run is what a session's writer is doing, kept from its events.
type Run struct {
	State          string    `json:"state"`
	Tool           string    `json:"tool,omitempty"` // with StateTool and StateApproval
	Step           int       `json:"step"`
	Tokens         int       `json:"tokens"`
	MaxContext     int       `json:"max_context"`
	ContextPercent float64   `json:"context_percent"`
	Started        time.Time `json:"started,omitzero"` // zero while idle
	Retry          string    `json:"retry,omitempty"`  // the reason, while retrying
	LastEnd        string    `json:"last_end,omitempty"`
	// Standalone marks a /compact between runs: no RunEnd follows it, so
	// the StatusUpdate that ends soul.Soul.Compact (also when it fails)
	// makes the run idle again.
	Standalone bool `json:"standalone,omitempty"`
}

// Label is the state in words, e.g. "running tool Shell".
func (r Run) Label() string {
	if r.Tool != "" && (r.State == StateTool || r.State == StateApproval) {
		if r.State == StateApproval {
			return "waiting for approval (" + r.Tool + ")"
		}
		return r.State + " " + r.Tool
	}
	if r.State == "" {
		return StateIdle
	}
	return r.State
}

// Elapsed is how long the run has been going (0 while idle).
func (r Run) Elapsed(now time.Time) time.Duration {
	if r.Started.IsZero() {
		return 0
	}
	return now.Sub(r.Started)
}

// note moves the summary on by one event.
func (r *Run) note(e soul.Event, now time.Time) {
	start := func(state string) {
		if r.Started.IsZero() {
			r.Started = now
		}
		r.State, r.Retry = state, ""
	}
	switch ev := e.(type) {
	case soul.StepBegin:
		start(StateStreaming)
		r.Step, r.Tool = ev.N, ""
	case soul.ContentPart, soul.ReasoningPart, soul.ToolCallPart:
		start(StateStreaming)
	case soul.StepRetry:
		start(StateRetrying)
		r.Retry = ev.Reason
	case soul.CompactionBegin:
		r.Standalone = r.Started.IsZero() && !ev.Auto
		start(StateCompacting)
	case soul.CompactionEnd:
		r.State, r.Tokens = StateRunning, ev.Tokens
	case soul.ToolCall:
		start(StateTool)
		r.Tool = ev.Name
	case *soul.ApprovalRequest:
		start(StateApproval)
		r.Tool = ev.Tool
	case Answered:
		r.State = StateTool
	case soul.ToolResult:
		r.State, r.Tool = StateRunning, ""
	case soul.StatusUpdate:
		r.Step, r.Tokens, r.MaxContext, r.ContextPercent = ev.Step, ev.Tokens, ev.MaxContext, ev.ContextPercent
		if r.Standalone {
			r.idle(r.LastEnd)
		}
	case soul.RunEnd:
		r.idle(ev.Reason)
	}
}

// idle ends the run (or the /compact between runs), keeping its numbers.
func (r *Run) idle(lastEnd string) {
	*r = Run{State: StateIdle, Step: r.Step, Tokens: r.Tokens, MaxContext: r.MaxContext, ContextPercent: r.ContextPercent, LastEnd: lastEnd}
}
