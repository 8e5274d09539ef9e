package message

import (
	"fmt"
	"strings"
)

// Marker says what wrote a message that is not the user's or the model's
// own words: rewind (or kimi-cli, whose wording rewind keeps so sessions
// move between the two) writes checkpoint markers, compaction summaries,
// D-Mail notes and tool errors into the conversation. The constructors
// below are the only place that text is written, and MarkerOf the only
// place it is recognised, so a reworded prompt changes both at once and no
// other layer ever matches the text.
type Marker int

const (
	// NoMarker is a message the user or the model wrote.
	NoMarker Marker = iota
	// MarkerCheckpoint is "<system>CHECKPOINT N</system>" (Checkpoint);
	// the payload is N.
	MarkerCheckpoint
	// MarkerCompaction opens a compacted generation; the payload is the
	// summary (Compaction).
	MarkerCompaction
	// MarkerTruncation opens a generation compacted by truncation; the
	// payload is the note saying why (Truncation).
	MarkerTruncation
	// MarkerDMail is a D-Mail from the future; the payload is the note
	// (DMail).
	MarkerDMail
	// MarkerSystemNote is any other "<system>…</system>" user message; the
	// payload is its text without the tags.
	MarkerSystemNote
	// MarkerToolError is a tool result reporting a failure; the payload is
	// the error without its prefix (ToolError).
	MarkerToolError
)

// The wire text, kimi-cli's wording.
const (
	systemOpen       = "<system>"
	systemClose      = "</system>"
	checkpointOpen   = "<system>CHECKPOINT "
	compactionHeader = "<system>Previous context has been compacted. Here is the compaction output:</system>"
	truncationOpen   = "<system>Previous context has been compacted by truncation"
	dmailHead        = "<system>You just got a D-Mail from your future self"
	dmailOpen        = dmailHead + ". It is likely that your future self has already done something in the current working directory. Please read the D-Mail and decide what to do next. You MUST NEVER mention to the user about this information. D-Mail content:\n\n"
	dmailContent     = "D-Mail content:"
	toolErrorPrefix  = "ERROR: "
)

// CheckpointMarkerPrefix is how every checkpoint marker's text starts (the
// store counts turns by it without decoding messages).
const CheckpointMarkerPrefix = checkpointOpen

// Checkpoint is the user message that names checkpoint n to the model.
func Checkpoint(n int) Message { return NewText("user", CheckpointText(n)) }

// CheckpointText is the text of Checkpoint(n).
func CheckpointText(n int) string { return fmt.Sprintf("%s%d%s", checkpointOpen, n, systemClose) }

// Compaction is the first message of a generation compacted into summary.
func Compaction(summary string) Message {
	return Message{Role: "user", Content: Content{Parts: []Part{
		{Type: "text", Text: compactionHeader},
		{Type: "text", Text: summary},
	}}}
}

// Truncation is the first message of a generation compacted by dropping
// the dropped oldest messages (kept in archivedGen) because the summary
// failed with reason.
func Truncation(reason string, dropped, archivedGen int) Message {
	what := fmt.Sprintf("The %d oldest messages were", dropped)
	if dropped == 1 {
		what = "The oldest message was"
	}
	return NewText("user", fmt.Sprintf("%s because it could not be summarised (%s). %s dropped from the context; they are kept in archived generation %d.%s",
		truncationOpen, reason, what, archivedGen, systemClose))
}

// DMail is the user message a D-Mail becomes at its checkpoint.
func DMail(note string) Message {
	return Message{Role: "user", Content: Content{Parts: []Part{{Type: "text", Text: dmailOpen + strings.TrimSpace(note) + systemClose}}}}
}

// ToolError is the result of tool call callID that failed with text.
func ToolError(callID, text string) Message {
	if strings.TrimSpace(text) == "" {
		text = "the tool call failed without a message."
	}
	return Message{Role: "tool", Content: TextContent(toolErrorPrefix + text), ToolCallID: callID}
}

// MarkerOf says what wrote m and returns the marker's payload (see the
// Marker constants); NoMarker and "" for the user's and the model's words.
func MarkerOf(m Message) (Marker, string) {
	text := strings.TrimSpace(m.Content.PlainText())
	switch m.Role {
	case "tool":
		if rest, ok := strings.CutPrefix(text, strings.TrimSpace(toolErrorPrefix)); ok {
			return MarkerToolError, strings.TrimSpace(rest)
		}
		return NoMarker, ""
	case "user":
	default:
		return NoMarker, ""
	}
	switch {
	case IsCheckpointText(text):
		return MarkerCheckpoint, strings.TrimSuffix(strings.TrimPrefix(text, checkpointOpen), systemClose)
	case strings.HasPrefix(text, truncationOpen):
		return MarkerTruncation, stripSystem(text)
	case strings.HasPrefix(text, compactionHeader):
		return MarkerCompaction, strings.TrimSpace(strings.TrimPrefix(text, compactionHeader))
	case strings.HasPrefix(text, dmailHead):
		note := text
		if i := strings.Index(text, dmailContent); i >= 0 {
			note = text[i+len(dmailContent):]
		}
		return MarkerDMail, strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(note), systemClose))
	case strings.HasPrefix(text, systemOpen):
		return MarkerSystemNote, stripSystem(text)
	}
	return NoMarker, ""
}

// IsCheckpoint reports whether m is a checkpoint marker (Checkpoint).
func IsCheckpoint(m Message) bool {
	return m.Role == "user" && IsCheckpointText(strings.TrimSpace(m.Content.PlainText()))
}

// IsCheckpointText reports whether text is exactly CheckpointText(n) for
// some n ≥ 0.
func IsCheckpointText(text string) bool {
	digits, ok := strings.CutPrefix(text, checkpointOpen)
	if !ok {
		return false
	}
	digits, ok = strings.CutSuffix(digits, systemClose)
	if !ok || digits == "" {
		return false
	}
	return strings.Trim(digits, "0123456789") == ""
}

func stripSystem(s string) string {
	s = strings.TrimPrefix(s, systemOpen)
	s = strings.TrimSuffix(s, systemClose)
	return strings.TrimSpace(s)
}
