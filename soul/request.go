package soul

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rewind-agent/rewind/store/message"
)

// importedSystemPromptRole marks the system prompt line of an imported
// kimi-cli context.jsonl (see store/kimi).
const importedSystemPromptRole = "_system_prompt"

// missingResult is sent (never stored) for a tool call of the history that
// has no result, e.g. in an imported session cut off mid-step.
const missingResult = "<system>This tool call has no result: it did not complete.</system>"

// buildRequest is what the model is sent: the system prompt and the view's
// messages, sanitised so that any history, including imported or damaged
// ones, makes a valid request:
//   - every assistant tool call is followed by exactly one result, in call
//     order (a missing one gets a placeholder, duplicates are dropped);
//   - tool results that answer no call of the assistant message before them
//     are dropped;
//   - arguments that are not a JSON object are replaced by "{}" (the stored
//     message keeps what the model sent);
//   - a tool call without an id gets one;
//   - consecutive assistant messages are sent as one (mergeAnswers): an
//     imported codex or Claude Code answer is one message per line of its
//     source (reasoning, text, each call);
//   - an imported kimi-cli system prompt (role "_system_prompt") replaces the
//     configured one, and no other "_" pseudo-role is ever sent.
//
// The view's messages are not modified.
func buildRequest(system string, msgs []message.Message) []message.Message {
	msgs = mergeAnswers(msgs)
	out := make([]message.Message, 0, len(msgs)+1)
	for _, m := range msgs {
		if m.Role == importedSystemPromptRole {
			system = m.Content.PlainText()
		}
	}
	if system != "" {
		out = append(out, message.NewText("system", system))
	}
	for i := 0; i < len(msgs); {
		m := msgs[i]
		switch {
		case strings.HasPrefix(m.Role, "_"):
			i++ // a pseudo-role of the kimi-cli file format, never a message
		case m.Role == "tool":
			i++ // orphan result: answers no call
		case m.Role == "assistant" && len(m.ToolCalls) > 0:
			j := i + 1
			results := map[string]message.Message{}
			for ; j < len(msgs) && msgs[j].Role == "tool"; j++ {
				if _, dup := results[msgs[j].ToolCallID]; !dup {
					results[msgs[j].ToolCallID] = msgs[j]
				}
			}
			a := m
			a.ToolCalls = make([]message.ToolCall, len(m.ToolCalls))
			var tail []message.Message
			seen := map[string]bool{}
			for k, c := range m.ToolCalls {
				orig := c.ID
				if c.ID == "" || seen[c.ID] {
					c.ID = fmt.Sprintf("call_fix_%d_%d", i, k)
				}
				seen[c.ID] = true
				c.Args = sanitiseArgs(c.Args)
				if c.Type == "" {
					c.Type = "function"
				}
				a.ToolCalls[k] = c
				r, ok := results[orig]
				if ok && orig == c.ID {
					delete(results, orig)
				} else {
					r = message.Message{Role: "tool", Content: message.TextContent(missingResult)}
				}
				r.ToolCallID = c.ID
				tail = append(tail, r)
			}
			if a.Content.Omitted {
				a.Content = message.Content{IsNull: true}
			}
			out = append(out, a)
			out = append(out, tail...)
			i = j
		default:
			if m.Role == "assistant" && (m.Content.IsNull || m.Content.Omitted) {
				m.Content = message.TextContent("")
			}
			out = append(out, m)
			i++
		}
	}
	return out
}

// mergeAnswers joins each run of consecutive assistant messages into one:
// their parts in order (reasoning, text) and their tool calls, so the
// calls of one answer are followed by their results. msgs is not modified;
// without such a run it is returned as it is.
func mergeAnswers(msgs []message.Message) []message.Message {
	var out []message.Message
	for i := 0; i < len(msgs); i++ {
		if i == 0 || msgs[i].Role != "assistant" || msgs[i-1].Role != "assistant" {
			if out != nil {
				out = append(out, msgs[i])
			}
			continue
		}
		if out == nil {
			out = append(make([]message.Message, 0, len(msgs)), msgs[:i]...)
		}
		last := &out[len(out)-1]
		m := msgs[i]
		parts := append(answerParts(last.Content), answerParts(m.Content)...)
		merged := message.Message{Role: "assistant", Extra: last.Extra, Name: last.Name,
			ToolCalls: append(append([]message.ToolCall(nil), last.ToolCalls...), m.ToolCalls...)}
		switch {
		case len(parts) == 0:
			merged.Content = message.Content{IsNull: true}
		case len(parts) == 1 && parts[0].Type == "text":
			merged.Content = message.TextContent(parts[0].Text)
		default:
			merged.Content = message.Content{Parts: parts}
		}
		*last = merged
	}
	if out == nil {
		return msgs
	}
	return out
}

// answerParts is an assistant content as parts: its parts, or its text.
func answerParts(c message.Content) []message.Part {
	if c.Parts != nil {
		return append([]message.Part(nil), c.Parts...)
	}
	if c.Text != "" {
		return []message.Part{{Type: "text", Text: c.Text}}
	}
	return nil
}

// sanitiseArgs returns args if they are a JSON object, else "{}".
func sanitiseArgs(args string) string {
	if validArgs(args) {
		return args
	}
	return "{}"
}

// validArgs reports whether args is a JSON object (what tools accept).
func validArgs(args string) bool {
	t := strings.TrimSpace(args)
	if t == "" || t[0] != '{' {
		return false
	}
	return json.Valid([]byte(t))
}
