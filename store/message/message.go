package message

import (
	"encoding/json"
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

// MarshalJSON writes the message in kimi-cli's context.jsonl shape (see
// AppendJSON, which callers that build many bodies should use).
func (m Message) MarshalJSON() ([]byte, error) { return m.AppendJSON(nil) }

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

// DecodeBorrowed is UnmarshalJSON for a reader that uses the message and
// drops it before data changes, as `rewind show` does with each body of
// a long view: a string stored as it reads (no escape, valid UTF-8, most
// of a body's text) is data's own bytes, not a copy. data must not be
// modified while m or a string taken from it is still in use.
func (m *Message) DecodeBorrowed(data []byte) error {
	d := decoder{data: data, borrow: true}
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
// are unchanged is written as it came (unknown types and fields included,
// compacted); otherwise the part is built from its fields.
func (p Part) MarshalJSON() ([]byte, error) { return p.appendJSON(nil) }

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
func (c ToolCall) MarshalJSON() ([]byte, error) { return c.appendJSON(nil) }

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
