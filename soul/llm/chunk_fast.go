package llm

import (
	"bytes"
	"errors"

	openai "github.com/sashabaranov/go-openai"

	"github.com/rewind-agent/rewind/store/message"
)

// errNotUsual stops the fast path: the chunk goes to encoding/json.
var errNotUsual = errors.New("not the usual chunk")

// decodeFast decodes the usual chunk of a streamed answer, a content or
// reasoning delta, with message.Scanner (the project's one-pass JSON
// reader) instead of encoding/json: per token, that decoder's reflection
// and two passes over the payload were half of the stream's reading. It
// reports false, leaving *c to be decoded by encoding/json, for anything
// outside the shape it knows: a tool call, usage other than null, an
// error, a key it knows in another case (encoding/json matches keys
// without case), a value of another type than the field's (a number for
// a string, an index that is not an integer, choices or a delta that is
// not an object), a duplicate "choices", or a payload encoding/json would
// refuse. Strings (\u escapes and invalid UTF-8 too) and keys decode as
// encoding/json decodes them, and values under unknown keys are skipped
// as it skips them. What it accepts, it decodes as json.Unmarshal would
// (FuzzDecodeFastAgrees).
func decodeFast(payload []byte, c *chunk) bool {
	choices := c.Choices[:cap(c.Choices)]
	clear(choices)
	*c = chunk{Choices: choices[:0]}
	f := fastChunk{c: c}
	f.s.Reset(payload)
	if f.s.Kind() != '{' {
		return false
	}
	return f.s.Object(f.top) == nil && f.s.End() == nil
}

// fastChunk is decodeFast's state; its methods are the Scanner's
// callbacks (method values, not closures, so nothing is allocated).
type fastChunk struct {
	s  message.Scanner
	c  *chunk
	ch *chunkChoice
}

func (f *fastChunk) top(key []byte) error {
	switch string(key) {
	case "choices":
		if len(f.c.Choices) > 0 || f.s.Kind() != '[' {
			return errNotUsual
		}
		return f.s.List(f.choice)
	case "usage":
		if f.s.Kind() != 'n' { // usage itself: encoding/json
			return errNotUsual
		}
		f.c.Usage = nil
		return f.s.Skip()
	}
	if foldsTo(key, "choices", "usage", "error") {
		return errNotUsual
	}
	return f.s.Skip()
}

// choice decodes one element of "choices".
func (f *fastChunk) choice() error {
	if f.s.Kind() != '{' {
		return errNotUsual
	}
	f.c.Choices = append(f.c.Choices, chunkChoice{})
	f.ch = &f.c.Choices[len(f.c.Choices)-1]
	return f.s.Object(f.choiceField)
}

func (f *fastChunk) choiceField(key []byte) error {
	ch := f.ch
	switch string(key) {
	case "index":
		return f.int(&ch.Index)
	case "finish_reason":
		s := string(ch.FinishReason)
		err := f.str(&s)
		ch.FinishReason = openai.FinishReason(s)
		return err
	case "delta":
		if f.s.Kind() != '{' {
			return errNotUsual
		}
		return f.s.Object(f.deltaField)
	}
	if foldsTo(key, "index", "finish_reason", "delta") {
		return errNotUsual
	}
	return f.s.Skip()
}

// deltaField decodes a member of a choice's delta.
func (f *fastChunk) deltaField(key []byte) error {
	dl := &f.ch.Delta
	switch string(key) {
	case "content":
		return f.str(&dl.Content)
	case "role":
		return f.str(&dl.Role)
	case "refusal":
		return f.str(&dl.Refusal)
	case "reasoning_content":
		return f.str(&dl.ReasoningContent)
	case "reasoning":
		return f.str(&dl.Reasoning)
	}
	// tool_calls, function_call: encoding/json
	if foldsTo(key, "content", "role", "refusal", "reasoning_content", "reasoning", "tool_calls", "function_call") {
		return errNotUsual
	}
	return f.s.Skip()
}

// str reads a string or null (s left as it is, as encoding/json leaves it).
func (f *fastChunk) str(s *string) error {
	switch f.s.Kind() {
	case 'n':
		return f.s.Skip()
	case '"':
		v, err := f.s.String()
		if err == nil {
			*s = v
		}
		return err
	}
	return errNotUsual
}

// int reads an integer that surely fits an int, or null (n left as it
// is); a fraction or an exponent is encoding/json's to refuse.
func (f *fastChunk) int(n *int) error {
	switch f.s.Kind() {
	case 'n':
		return f.s.Skip()
	case '"', '{', '[', 't', 'f':
		return errNotUsual
	}
	raw, err := f.s.Raw() // a number, its syntax checked
	if err != nil {
		return err
	}
	digits := raw
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) > 18 {
		return errNotUsual
	}
	v := 0
	for _, d := range digits {
		if d < '0' || d > '9' {
			return errNotUsual
		}
		v = v*10 + int(d-'0')
	}
	if raw[0] == '-' {
		v = -v
	}
	*n = v
	return nil
}

// foldsTo reports whether key matches one of names without case, as
// encoding/json matches a field.
func foldsTo(key []byte, names ...string) bool {
	for _, n := range names {
		if bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}
