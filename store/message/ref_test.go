package message

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// The map-based decoder the single-pass one replaced, built on
// encoding/json, kept as the reference FuzzDecodeAgrees holds the decoder
// to: every input decodes to the same message, or fails in both.

var refMessageKeys = map[string]bool{"role": true, "content": true, "tool_calls": true, "tool_call_id": true, "name": true}

var refCallKeys = map[string]bool{"id": true, "type": true, "function": true}

// UnmarshalJSON reads a kimi-cli message line, keeping unknown fields. The
// named fields tool_calls, tool_call_id and name, when present but empty
// (null, [] or ""), are kept in Extra as they came so that writing the
// message back reproduces them; setting the typed field overrides them.
func refMessage(m *Message, data []byte) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return err
	}
	if obj == nil {
		return fmt.Errorf("message: want a JSON object, got null")
	}
	*m = Message{}
	keep := func(k string, v json.RawMessage) {
		if m.Extra == nil {
			m.Extra = map[string]json.RawMessage{}
		}
		m.Extra[k] = v
	}
	if raw, ok := obj["role"]; ok {
		if err := refString(raw, &m.Role); err != nil {
			return fmt.Errorf("role: %w", err)
		}
	}
	if raw, ok := obj["content"]; !ok {
		m.Content.Omitted = true
	} else if err := refContent(&m.Content, raw); err != nil {
		return err
	}
	if raw, ok := obj["tool_calls"]; ok {
		var calls []json.RawMessage
		if err := json.Unmarshal(raw, &calls); err != nil {
			return fmt.Errorf("tool_calls: %w", err)
		}
		for i, c := range calls {
			var tc ToolCall
			if err := refToolCall(&tc, c); err != nil {
				return fmt.Errorf("tool_calls[%d]: %w", i, err)
			}
			m.ToolCalls = append(m.ToolCalls, tc)
		}
		if len(m.ToolCalls) == 0 {
			keep("tool_calls", raw)
		}
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"tool_call_id", &m.ToolCallID}, {"name", &m.Name}} {
		raw, ok := obj[f.key]
		if !ok {
			continue
		}
		if err := refString(raw, f.dst); err != nil {
			return fmt.Errorf("%s: %w", f.key, err)
		}
		if *f.dst == "" {
			keep(f.key, raw)
		}
	}
	for k, v := range obj {
		if !refMessageKeys[k] {
			keep(k, v)
		}
	}
	return nil
}

// unmarshalString is json.Unmarshal into a string, without a second pass
// over a value the caller's decode has already checked, when the value is
// a string that needs no unescaping (nearly all are).
func refString(raw []byte, dst *string) error {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && bytes.IndexByte(raw[1:n-1], '\\') < 0 && bytes.IndexByte(raw[1:n-1], '"') < 0 && utf8.Valid(raw) {
		*dst = string(raw[1 : n-1])
		return nil
	}
	return json.Unmarshal(raw, dst)
}

func refContent(c *Content, raw json.RawMessage) error {
	trimmed := bytes.TrimSpace(raw)
	switch {
	case string(trimmed) == "null":
		c.IsNull = true
	case len(trimmed) > 0 && trimmed[0] == '"':
		if err := refString(trimmed, &c.Text); err != nil {
			return fmt.Errorf("content: %w", err)
		}
	case len(trimmed) > 0 && trimmed[0] == '[':
		var parts []json.RawMessage
		if err := json.Unmarshal(trimmed, &parts); err != nil {
			return fmt.Errorf("content: %w", err)
		}
		c.Parts = make([]Part, 0, len(parts))
		for _, pr := range parts {
			var p Part
			if err := refPart(&p, pr); err != nil {
				return fmt.Errorf("content part: %w", err)
			}
			c.Parts = append(c.Parts, p)
		}
	default:
		return fmt.Errorf("content: want a string, a list of parts or null, got %.40s", trimmed)
	}
	return nil
}

// UnmarshalJSON reads a part, keeping the raw object. Only string values of
// "type", "text" and "think" are taken into the fields; a part of an unknown
// type may use those keys for anything and is still kept whole in Raw.
func refPart(p *Part, data []byte) error {
	typ, text, think, err := refPartHead(data)
	if err != nil {
		return err
	}
	*p = Part{Type: typ, Text: text, Think: think, Raw: append(json.RawMessage(nil), data...)}
	return nil
}

// partHead reads the string fields type, text and think of a part object.
func refPartHead(data []byte) (typ, text, think string, err error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return "", "", "", err
	}
	if obj == nil {
		return "", "", "", fmt.Errorf("part: want an object, got null")
	}
	str := func(k string) string {
		var s string
		if v, ok := obj[k]; ok {
			_ = refString(v, &s) // non-string values stay in Raw only
		}
		return s
	}
	return str("type"), str("text"), str("think"), nil
}

// UnmarshalJSON reads an OpenAI-style tool call, keeping unknown fields.
func refToolCall(c *ToolCall, data []byte) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return err
	}
	if obj == nil {
		return fmt.Errorf("tool call: want a JSON object, got null")
	}
	*c = ToolCall{}
	if raw, ok := obj["id"]; ok {
		_ = refString(raw, &c.ID)
	}
	if raw, ok := obj["type"]; ok {
		_ = refString(raw, &c.Type)
	}
	if raw, ok := obj["function"]; ok {
		var fn map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fn); err != nil {
			return fmt.Errorf("function: %w", err)
		}
		for k, v := range fn {
			switch k {
			case "name":
				_ = refString(v, &c.Name)
			case "arguments":
				if err := refString(v, &c.Args); err != nil || string(v) == "null" {
					// Some servers send arguments as an object; keep it as
					// text, and as JSON for writing it back unchanged.
					c.Args = string(v)
					c.argsJSON = append(json.RawMessage(nil), v...)
				}
			default:
				if c.FnExtra == nil {
					c.FnExtra = map[string]json.RawMessage{}
				}
				c.FnExtra[k] = v
			}
		}
	}
	for k, v := range obj {
		if !refCallKeys[k] {
			if c.Extra == nil {
				c.Extra = map[string]json.RawMessage{}
			}
			c.Extra[k] = v
		}
	}
	return nil
}
