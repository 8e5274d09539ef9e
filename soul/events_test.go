package soul

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

// TestEventRoundTrip: every event MarshalEvent writes reads back as the same
// value (watchers in another process render what the writer rendered).
func TestEventRoundTrip(t *testing.T) {
	t.Parallel()
	events := []Event{
		SessionStart{SessionID: "s", WorkDir: "/w", Model: "m"},
		StepBegin{N: 2, Checkpoint: 5},
		StepRetry{Attempt: 1, Max: 3, Wait: time.Second, Reason: "HTTP 503"},
		StepInterrupted{Reason: "x"},
		CompactionBegin{Auto: true, Tokens: 9},
		CompactionEnd{NewGen: 2, ArchivedGen: 1, Tokens: 3, Kept: 2},
		StatusUpdate{Model: "m", Step: 1, Tokens: 6800, MaxContext: 128000, ContextPercent: 5.3, Generation: 1},
		ContentPart{Text: "hel\nlo"},
		ReasoningPart{Text: "hmm"},
		ToolCall{ID: "c1", Name: "Shell", Arguments: `{"command":"ls"}`},
		ToolCallPart{Index: 0, ID: "c1", Name: "Shell", ArgumentsDelta: `{"co`},
		ToolOutput{ID: "c1", Text: "a\n"},
		ToolResult{ID: "c1", Name: "Shell", Output: "a", Duration: time.Millisecond, Todos: []Todo{{Title: "t", Status: "done"}}},
		&ApprovalRequest{ToolCallID: "c1", Tool: "Shell", Action: "run shell command", Command: "rm -rf x"},
		Backtrack{CheckpointID: 1, Discarded: 3, NewGen: 2},
		Error{Message: "boom", Temporary: true},
		RunEnd{Reason: "done", Steps: 2},
		LoopWarning{Command: "ls", Count: 3},
	}
	for _, e := range events {
		line, err := MarshalEvent(e)
		if err != nil {
			t.Fatal(err)
		}
		got, err := UnmarshalEvent(line)
		if err != nil {
			t.Fatalf("%s: %v", e.EventType(), err)
		}
		if !reflect.DeepEqual(got, e) {
			t.Errorf("%s: got %#v, want %#v", e.EventType(), got, e)
		}
	}
	if _, err := UnmarshalEvent([]byte(`{"type":"Nope","payload":{}}`)); !errors.Is(err, ErrUnknownEvent) {
		t.Errorf("unknown type: %v", err)
	}
}
