package message

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// The map-based encoder AppendJSON replaced, kept as the reference
// FuzzEncodeAgrees holds it to: json.Marshal of refEncoded writes what
// rewind stored before.

type refEncoded struct{ m Message }

func (r refEncoded) MarshalJSON() ([]byte, error) { return refMarshalMessage(r.m) }

// MarshalJSON writes the message in kimi-cli's context.jsonl shape.
func refMarshalMessage(m Message) ([]byte, error) {
	obj := map[string]json.RawMessage{}
	for k, v := range m.Extra {
		obj[k] = v
	}
	put := func(k string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("marshal %s: %w", k, err)
		}
		obj[k] = b
		return nil
	}
	if err := put("role", m.Role); err != nil {
		return nil, err
	}
	switch {
	case m.Content.Omitted:
	case m.Content.IsNull:
		obj["content"] = json.RawMessage("null")
	case m.Content.Parts != nil:
		parts := make([]json.RawMessage, 0, len(m.Content.Parts))
		for _, p := range m.Content.Parts {
			b, err := refMarshalPart(p)
			if err != nil {
				return nil, err
			}
			parts = append(parts, b)
		}
		if err := put("content", parts); err != nil {
			return nil, err
		}
	default:
		if err := put("content", m.Content.Text); err != nil {
			return nil, err
		}
	}
	if len(m.ToolCalls) > 0 {
		calls := make([]json.RawMessage, 0, len(m.ToolCalls))
		for _, c := range m.ToolCalls {
			b, err := refMarshalCall(c)
			if err != nil {
				return nil, err
			}
			calls = append(calls, b)
		}
		if err := put("tool_calls", calls); err != nil {
			return nil, err
		}
	}
	if m.ToolCallID != "" {
		if err := put("tool_call_id", m.ToolCallID); err != nil {
			return nil, err
		}
	}
	if m.Name != "" {
		if err := put("name", m.Name); err != nil {
			return nil, err
		}
	}
	return refMarshalOrdered(obj, []string{"role", "content", "tool_calls", "tool_call_id", "name"})
}

// MarshalJSON writes the part. An imported part whose type, text and think
// are unchanged is written exactly as it came (unknown types and fields
// included); otherwise the part is built from its fields.
func refMarshalPart(p Part) ([]byte, error) {
	if len(p.Raw) > 0 {
		if typ, text, think, err := partHead(p.Raw); err == nil && typ == p.Type && text == p.Text && think == p.Think {
			return p.Raw, nil
		}
	}
	switch p.Type {
	case "think":
		return json.Marshal(struct {
			Type  string `json:"type"`
			Think string `json:"think"`
		}{p.Type, p.Think})
	default:
		return json.Marshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{p.Type, p.Text})
	}
}

// MarshalJSON writes an OpenAI-style tool call.
func refMarshalCall(c ToolCall) ([]byte, error) {
	fn := map[string]json.RawMessage{}
	for k, v := range c.FnExtra {
		fn[k] = v
	}
	name, _ := json.Marshal(c.Name)
	args, _ := json.Marshal(c.Args)
	if len(c.argsJSON) > 0 && string(c.argsJSON) == c.Args {
		args = c.argsJSON
	}
	fn["name"], fn["arguments"] = name, args
	fnJSON, err := refMarshalOrdered(fn, []string{"name", "arguments"})
	if err != nil {
		return nil, err
	}
	obj := map[string]json.RawMessage{}
	for k, v := range c.Extra {
		obj[k] = v
	}
	typ := c.Type
	if typ == "" {
		typ = "function"
	}
	id, _ := json.Marshal(c.ID)
	t, _ := json.Marshal(typ)
	obj["id"], obj["type"], obj["function"] = id, t, fnJSON
	return refMarshalOrdered(obj, []string{"type", "id", "function"})
}

// refMarshalOrdered writes obj with the given keys first (in that order) and the
// rest sorted, so output is stable and reads like kimi-cli's.
func refMarshalOrdered(obj map[string]json.RawMessage, first []string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	write := func(k string, v json.RawMessage) {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(v)
	}
	seen := map[string]bool{}
	for _, k := range first {
		if v, ok := obj[k]; ok {
			write(k, v)
			seen[k] = true
		}
	}
	rest := make([]string, 0, len(obj))
	for k := range obj {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		write(k, obj[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
