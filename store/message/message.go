package message

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Message is one OpenAI-style chat message exactly as kimi-cli keeps it in
// context.jsonl. Fields rewind does not know are kept in Extra so that an
// import → export round trip loses nothing.
type Message struct {
	Role       string
	Content    Content
	ToolCalls  []ToolCall
	ToolCallID string
	Name       string
	// Extra holds every top-level field not named above, verbatim (and
	// tool_calls, tool_call_id or name when they came empty; see
	// UnmarshalJSON).
	Extra map[string]json.RawMessage
}

// Content is either a plain string or a list of typed parts.
type Content struct {
	Text    string // used when Parts is nil
	Parts   []Part // non-nil when the JSON held a list
	IsNull  bool   // the JSON held null (assistant messages with only tool calls)
	Omitted bool   // the JSON had no content key at all
}

// Part is one element of a list content: text, think, image_url, or a type
// rewind does not know. Raw keeps the original object so unknown part types
// and unknown fields survive a round trip.
type Part struct {
	Type  string
	Text  string // type "text"
	Think string // type "think"
	Raw   json.RawMessage
}

// ToolCall is an assistant's request to run a tool.
type ToolCall struct {
	ID      string
	Type    string // "function"
	Name    string
	Args    string // the arguments as the model sent them (a JSON string)
	Extra   map[string]json.RawMessage
	FnExtra map[string]json.RawMessage
	// argsJSON holds arguments that came as a JSON value other than a
	// string (some servers send an object); Args then holds its text, and
	// the value is written back as it came while Args is unchanged.
	argsJSON json.RawMessage
}

// TextContent builds string content.
func TextContent(s string) Content { return Content{Text: s} }

// PlainText is the message's readable text: the string content, or the text
// parts joined (think parts excluded).
func (c Content) PlainText() string {
	if c.Parts == nil {
		return c.Text
	}
	return c.joinParts("text", func(p Part) string { return p.Text })
}

// Reasoning joins the think parts of a list content.
func (c Content) Reasoning() string {
	return c.joinParts("think", func(p Part) string { return p.Think })
}

// joinParts joins field of the parts of type typ with newlines.
func (c Content) joinParts(typ string, field func(Part) string) string {
	var b strings.Builder
	for _, p := range c.Parts {
		if p.Type == typ {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(field(p))
		}
	}
	return b.String()
}

// NewText is a convenience constructor for a message with string content.
func NewText(role, text string) Message { return Message{Role: role, Content: TextContent(text)} }

// MarshalJSON writes the message in kimi-cli's context.jsonl shape.
func (m Message) MarshalJSON() ([]byte, error) {
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
			b, err := p.MarshalJSON()
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
			b, err := c.MarshalJSON()
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
	return marshalOrdered(obj, []string{"role", "content", "tool_calls", "tool_call_id", "name"})
}

// UnmarshalJSON reads a kimi-cli message line, keeping unknown fields. The
// named fields tool_calls, tool_call_id and name, when present but empty
// (null, [] or ""), are kept in Extra as they came so that writing the
// message back reproduces them; setting the typed field overrides them.
// It reads the line once (see decoder): call it directly rather than
// through json.Unmarshal, which first checks the whole line.
func (m *Message) UnmarshalJSON(data []byte) error {
	d := decoder{data: data}
	return d.message(m)
}

// unmarshalString is json.Unmarshal of a JSON value into a string by the
// decoder: a string's text, null leaves dst as it is, anything else is an
// error.
func unmarshalString(raw []byte, dst *string) error {
	d := decoder{data: raw}
	s, c, err := d.stringOrNot()
	if err == nil {
		err = d.end()
	}
	if err != nil {
		return err
	}
	if err := stringField("value", c); err != nil {
		return err
	}
	if c == '"' {
		*dst = s
	}
	return nil
}

// MarshalJSON writes the part. An imported part whose type, text and think
// are unchanged is written exactly as it came (unknown types and fields
// included); otherwise the part is built from its fields.
func (p Part) MarshalJSON() ([]byte, error) {
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

// UnmarshalJSON reads a part, keeping the raw object. Only string values of
// "type", "text" and "think" are taken into the fields; a part of an unknown
// type may use those keys for anything and is still kept whole in Raw.
func (p *Part) UnmarshalJSON(data []byte) error {
	typ, text, think, err := partHead(data)
	if err != nil {
		return err
	}
	*p = Part{Type: typ, Text: text, Think: think, Raw: append(json.RawMessage(nil), data...)}
	return nil
}

// partHead reads the string fields type, text and think of a part object.
func partHead(data []byte) (typ, text, think string, err error) {
	d := decoder{data: data}
	if d.peek() != '{' {
		return "", "", "", d.notObject("part")
	}
	var p Part
	if err := d.part(&p); err != nil {
		return "", "", "", err
	}
	if err := d.end(); err != nil {
		return "", "", "", err
	}
	return p.Type, p.Text, p.Think, nil
}

// MarshalJSON writes an OpenAI-style tool call.
func (c ToolCall) MarshalJSON() ([]byte, error) {
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
	fnJSON, err := marshalOrdered(fn, []string{"name", "arguments"})
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
	return marshalOrdered(obj, []string{"type", "id", "function"})
}

// UnmarshalJSON reads an OpenAI-style tool call, keeping unknown fields.
func (c *ToolCall) UnmarshalJSON(data []byte) error {
	d := decoder{data: data}
	if d.peek() != '{' {
		return d.notObject("tool call")
	}
	fieldErr, err := d.toolCall(c)
	if err == nil {
		err = d.end()
	}
	if err != nil {
		return err
	}
	return fieldErr
}

// marshalOrdered writes obj with the given keys first (in that order) and the
// rest sorted, so output is stable and reads like kimi-cli's.
func marshalOrdered(obj map[string]json.RawMessage, first []string) ([]byte, error) {
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
