package peers

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/rewind-agent/rewind/store/message"
)

// codexParser reads a codex rollout: {timestamp, type, payload} lines.
type codexParser struct{}

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type codexItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Summary   []codexText     `json:"summary"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	ID        string          `json:"id"`
	Output    json.RawMessage `json:"output"`
	Action    *struct {
		Command    []string `json:"command"`
		WorkingDir string   `json:"working_directory"`
	} `json:"action"`
}

type codexText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// codexBookkeeping are the line types that hold nothing for the history
// (rollout state, UI events, usage kept by event_msg token_count).
var codexBookkeeping = map[string]bool{"world_state": true, "token_usage_record": true}

// codexRecord decodes a line and its payload in one pass: the payload's
// fields of every line type, none of which share a key with another type.
type codexRecord struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Payload   *struct {
		codexItem
		Cwd     string `json:"cwd"`
		Model   string `json:"model"`
		Message string `json:"message"`
		Info    *struct {
			Last struct {
				Input  int `json:"input_tokens"`
				Output int `json:"output_tokens"`
				Total  int `json:"total_tokens"`
			} `json:"last_token_usage"`
		} `json:"info"`
	} `json:"payload"`
}

func (c codexParser) line(b *builder, raw []byte) error {
	// A line whose payload is missing, null or does not fit codexRecord
	// (a field of the wrong type, even one its type does not read) is read
	// in two passes as before, so its errors and its reading are unchanged.
	var r codexRecord
	if json.Unmarshal(raw, &r) != nil || r.Payload == nil {
		return c.lineTwoPass(b, raw)
	}
	b.setTime(r.Timestamp)
	p := r.Payload
	switch r.Type {
	case "session_meta":
		if b.s.ID == "" {
			b.s.ID, b.s.WorkDir = p.ID, p.Cwd
		}
	case "turn_context":
		if p.Model != "" {
			b.s.Model = p.Model
		}
		if b.s.WorkDir == "" {
			b.s.WorkDir = p.Cwd
		}
	case "response_item":
		codexResponseItem(b, p.codexItem)
	case "event_msg":
		if p.Type == "token_count" && p.Info != nil {
			n := p.Info.Last.Total
			if n == 0 {
				n = p.Info.Last.Input + p.Info.Last.Output
			}
			b.usage(n)
		}
	case "compacted":
		b.compact(p.Message)
	default:
		if !codexBookkeeping[r.Type] {
			b.s.Unknown[r.Type]++
		}
	}
	return nil
}

// lineTwoPass reads the line, then its payload as its type has it.
func (codexParser) lineTwoPass(b *builder, raw []byte) error {
	var l codexLine
	if err := json.Unmarshal(raw, &l); err != nil {
		return fmt.Errorf("not a codex rollout line: %v", err)
	}
	b.setTime(l.Timestamp)
	switch l.Type {
	case "session_meta":
		var p struct {
			ID  string `json:"id"`
			Cwd string `json:"cwd"`
		}
		if json.Unmarshal(l.Payload, &p) == nil && b.s.ID == "" {
			b.s.ID, b.s.WorkDir = p.ID, p.Cwd
		}
	case "turn_context":
		var p struct {
			Model string `json:"model"`
			Cwd   string `json:"cwd"`
		}
		if json.Unmarshal(l.Payload, &p) == nil {
			if p.Model != "" {
				b.s.Model = p.Model
			}
			if b.s.WorkDir == "" {
				b.s.WorkDir = p.Cwd
			}
		}
	case "response_item":
		var it codexItem
		if err := json.Unmarshal(l.Payload, &it); err != nil {
			return fmt.Errorf("response_item: %v", err)
		}
		codexResponseItem(b, it)
	case "event_msg":
		var p struct {
			Type string `json:"type"`
			Info *struct {
				Last struct {
					Input  int `json:"input_tokens"`
					Output int `json:"output_tokens"`
					Total  int `json:"total_tokens"`
				} `json:"last_token_usage"`
			} `json:"info"`
		}
		if json.Unmarshal(l.Payload, &p) == nil && p.Type == "token_count" && p.Info != nil {
			n := p.Info.Last.Total
			if n == 0 {
				n = p.Info.Last.Input + p.Info.Last.Output
			}
			b.usage(n)
		}
	case "compacted":
		var p struct {
			Message string `json:"message"`
		}
		if err := json.Unmarshal(l.Payload, &p); err != nil {
			return fmt.Errorf("compacted: %v", err)
		}
		b.compact(p.Message)
	default:
		if !codexBookkeeping[l.Type] {
			b.s.Unknown[l.Type]++
		}
	}
	return nil
}

// codexContextTag matches the user messages codex writes itself (the
// environment, AGENTS.md instructions, an aborted turn's note): one tagged
// block.
var codexContextTag = regexp.MustCompile(`(?s)^\s*<([a-z_]+)>.*</([a-z_]+)>\s*$`)

// codexFailure finds exec_command's exit code in its output text.
var codexExitCode = regexp.MustCompile(`(?m)^Process exited with code (-?\d+)$`)

func codexResponseItem(b *builder, it codexItem) {
	switch it.Type {
	case "message":
		text := codexContentText(it.Content)
		switch it.Role {
		case "user":
			if m := codexContextTag.FindStringSubmatch(text); m != nil && m[1] == m[2] {
				return // codex's own context
			}
			if strings.TrimSpace(text) != "" {
				b.prompt(text)
			}
		case "assistant":
			b.assistant("", text, nil)
		}
		// developer and system messages are codex's instructions
	case "reasoning":
		var parts []string
		for _, s := range it.Summary {
			if s.Text != "" {
				parts = append(parts, s.Text)
			}
		}
		if len(parts) == 0 {
			parts = append(parts, codexContentText(it.Content))
		}
		b.assistant(strings.TrimSpace(strings.Join(parts, "\n\n")), "", nil)
	case "function_call":
		b.assistant("", "", []message.ToolCall{translateCall(it.CallID, it.Name, it.Arguments)})
	case "custom_tool_call":
		args, _ := marshalArgs(map[string]string{"input": it.Input})
		b.assistant("", "", []message.ToolCall{translateCall(it.CallID, it.Name, string(args))})
	case "local_shell_call":
		if it.Action == nil {
			b.s.Unknown["response_item/local_shell_call without action"]++
			return
		}
		argv := make([]any, len(it.Action.Command))
		for i, a := range it.Action.Command {
			argv[i] = a
		}
		args, _ := marshalArgs(map[string]any{"command": argv, "workdir": it.Action.WorkingDir})
		id := it.CallID
		if id == "" {
			id = it.ID
		}
		b.assistant("", "", []message.ToolCall{translateCall(id, "local_shell", string(args))})
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		out, failed := codexOutput(it.Output)
		b.result(it.CallID, out, failed)
	default:
		b.s.Unknown["response_item/"+it.Type]++
	}
}

// codexOutput is a tool output's text and whether the call failed: a
// string, or {content, success} (older codex: content the JSON of
// {output, metadata: {exit_code}}).
func codexOutput(raw json.RawMessage) (string, bool) {
	var s string
	failed := false
	if json.Unmarshal(raw, &s) != nil {
		var o struct {
			Content json.RawMessage `json:"content"`
			Success *bool           `json:"success"`
		}
		if json.Unmarshal(raw, &o) != nil {
			return string(raw), false
		}
		if json.Unmarshal(o.Content, &s) != nil {
			s = codexContentText(o.Content)
		}
		failed = o.Success != nil && !*o.Success
	}
	var old struct {
		Output   string `json:"output"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if strings.HasPrefix(s, "{") && json.Unmarshal([]byte(s), &old) == nil && old.Metadata.ExitCode != nil {
		return old.Output, failed || *old.Metadata.ExitCode != 0
	}
	if m := codexExitCode.FindStringSubmatch(s); m != nil {
		if code, err := strconv.Atoi(m[1]); err == nil && code != 0 {
			failed = true
		}
	}
	return s, failed
}

// codexContentText joins the text parts of a content list (input_text,
// output_text, text, reasoning_text), or is the string content.
func codexContentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []codexText
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}
