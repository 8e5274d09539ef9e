package message

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
)

// AppendJSON appends the message in kimi-cli's context.jsonl shape, the
// bytes json.Marshal writes for it, without building a map of fields or
// scanning the output again: role, content, tool_calls, tool_call_id and
// name first, then the other fields of Extra sorted by key; strings
// escaped as encoding/json escapes them (HTML characters included), kept
// raw values compacted. FuzzEncodeAgrees holds it to the map-based encoder
// it replaced.
func (m Message) AppendJSON(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = append(dst, `{"role":`...)
	dst = appendString(dst, m.Role)
	var err error
	switch {
	case m.Content.Omitted:
		dst, err = appendExtra(dst, m.Extra, "content")
	case m.Content.IsNull:
		dst = append(dst, `,"content":null`...)
	case m.Content.Parts != nil:
		dst = append(dst, `,"content":[`...)
		for i, p := range m.Content.Parts {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = p.appendJSON(dst); err != nil {
				break
			}
		}
		dst = append(dst, ']')
	default:
		dst = append(dst, `,"content":`...)
		dst = appendString(dst, m.Content.Text)
	}
	if err == nil {
		if len(m.ToolCalls) > 0 {
			dst = append(dst, `,"tool_calls":[`...)
			for i, c := range m.ToolCalls {
				if i > 0 {
					dst = append(dst, ',')
				}
				if dst, err = c.appendJSON(dst); err != nil {
					break
				}
			}
			dst = append(dst, ']')
		} else {
			dst, err = appendExtra(dst, m.Extra, "tool_calls")
		}
	}
	if err == nil {
		dst, err = appendNamed(dst, m.Extra, "tool_call_id", m.ToolCallID)
	}
	if err == nil {
		dst, err = appendNamed(dst, m.Extra, "name", m.Name)
	}
	if err == nil {
		dst, err = appendRest(dst, m.Extra, messageKeys)
	}
	if err != nil {
		return dst[:start], fmt.Errorf("marshal message: %w", err)
	}
	return append(dst, '}'), nil
}

var (
	messageKeys  = []string{"role", "content", "tool_calls", "tool_call_id", "name"}
	toolCallKeys = []string{"type", "id", "function"}
	functionKeys = []string{"name", "arguments"}
)

// appendNamed appends the field key: the string s if it is not empty, else
// the raw value Extra keeps under key, if any.
func appendNamed(dst []byte, extra map[string]json.RawMessage, key, s string) ([]byte, error) {
	if s == "" {
		return appendExtra(dst, extra, key)
	}
	dst = append(dst, ',')
	dst = appendString(dst, key)
	dst = append(dst, ':')
	return appendString(dst, s), nil
}

// appendExtra appends ,"key":value for extra's raw value under key, if any.
func appendExtra(dst []byte, extra map[string]json.RawMessage, key string) ([]byte, error) {
	v, ok := extra[key]
	if !ok {
		return dst, nil
	}
	dst = append(dst, ',')
	dst = appendString(dst, key)
	dst = append(dst, ':')
	return appendRaw(dst, v)
}

// appendRest appends the fields of extra not named in known, sorted by key,
// each after a comma.
func appendRest(dst []byte, extra map[string]json.RawMessage, known []string) ([]byte, error) {
	if len(extra) == 0 {
		return dst, nil
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if !slices.Contains(known, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var err error
	for _, k := range keys {
		dst = append(dst, ',')
		dst = appendString(dst, k)
		dst = append(dst, ':')
		if dst, err = appendRaw(dst, extra[k]); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// appendRaw appends a kept JSON value as json.Marshal writes a
// json.RawMessage: checked, compacted, and with <, >, &, U+2028 and U+2029
// escaped.
func appendRaw(dst, raw []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return dst, err
	}
	compact := b.Bytes()
	start := 0
	for i := 0; i < len(compact); i++ {
		switch c := compact[i]; {
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, compact[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			start = i + 1
		case c == 0xE2 && i+2 < len(compact) && compact[i+1] == 0x80 && compact[i+2]&^1 == 0xA8:
			dst = append(dst, compact[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[compact[i+2]&0xF])
			i += 2
			start = i + 1
		}
	}
	return append(dst, compact[start:]...), nil
}

// appendJSON appends the part: as it came if its type, text and think are
// unchanged (see MarshalJSON), else built from its fields.
func (p Part) appendJSON(dst []byte) ([]byte, error) {
	if len(p.Raw) > 0 {
		if typ, text, think, err := partHead(p.Raw); err == nil && typ == p.Type && text == p.Text && think == p.Think {
			return appendRaw(dst, p.Raw)
		}
	}
	dst = append(dst, `{"type":`...)
	dst = appendString(dst, p.Type)
	if p.Type == "think" {
		dst = append(dst, `,"think":`...)
		dst = appendString(dst, p.Think)
	} else {
		dst = append(dst, `,"text":`...)
		dst = appendString(dst, p.Text)
	}
	return append(dst, '}'), nil
}

// appendJSON appends an OpenAI-style tool call: type, id, function (name,
// arguments, then the function's other fields), then the call's other
// fields.
func (c ToolCall) appendJSON(dst []byte) ([]byte, error) {
	typ := c.Type
	if typ == "" {
		typ = "function"
	}
	dst = append(dst, `{"type":`...)
	dst = appendString(dst, typ)
	dst = append(dst, `,"id":`...)
	dst = appendString(dst, c.ID)
	dst = append(dst, `,"function":{"name":`...)
	dst = appendString(dst, c.Name)
	dst = append(dst, `,"arguments":`...)
	var err error
	if len(c.argsJSON) > 0 && string(c.argsJSON) == c.Args {
		if dst, err = appendRaw(dst, c.argsJSON); err != nil {
			return dst, err
		}
	} else {
		dst = appendString(dst, c.Args)
	}
	if dst, err = appendRest(dst, c.FnExtra, functionKeys); err != nil {
		return dst, err
	}
	dst = append(dst, '}')
	if dst, err = appendRest(dst, c.Extra, toolCallKeys); err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

const hexDigits = "0123456789abcdef"

// htmlSafe marks the ASCII bytes encoding/json writes as they are in a
// string: not a control character (DEL is written as it is), the quote,
// the backslash or <, >, &.
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendString appends s quoted as encoding/json writes a string: HTML
// characters, U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD.
func appendString(dst []byte, s string) []byte { return appendStringWith(dst, s, &htmlSafe) }

// appendStringWith is appendString writing the ASCII bytes safe marks as
// they are.
func appendStringWith(dst []byte, s string, safe *[utf8.RuneSelf]bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if safe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
