package llm

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// decodeFast decodes the usual chunk of a streamed answer, a content or
// reasoning delta, without encoding/json: per token, that decoder's
// reflection and two passes over the payload were half of the
// stream's reading. It reports false, leaving *c to be decoded by
// encoding/json, for anything outside the shape it knows: a tool call,
// usage other than null, an error, a key it knows in another case (encoding/json matches
// keys without case), an escaped key, a \u escape, bytes that are not
// UTF-8, a nested value under a key it does not know, a duplicate
// "choices", or a payload encoding/json would refuse. What it accepts,
// it decodes as json.Unmarshal would (FuzzDecodeFastAgrees).
func decodeFast(payload []byte, c *chunk) bool {
	d := fastDecoder{b: payload}
	choices := c.Choices[:cap(c.Choices)]
	clear(choices)
	*c = chunk{Choices: choices[:0]}
	for more, ok := d.open('{'); more || !ok; more, ok = d.after('}') {
		if !ok {
			return false
		}
		key, ok := d.key()
		if !ok {
			return false
		}
		switch string(key) {
		case "choices":
			if len(c.Choices) > 0 {
				return false
			}
			for more, ok := d.open('['); more || !ok; more, ok = d.after(']') {
				if !ok {
					return false
				}
				c.Choices = slices.Grow(c.Choices, 1)
				c.Choices = c.Choices[:len(c.Choices)+1]
				if !d.choice(&c.Choices[len(c.Choices)-1]) {
					return false
				}
			}
		case "usage":
			c.Usage = nil
			if !d.literal("null") { // usage itself: encoding/json
				return false
			}
		default:
			if foldsTo(key, "choices", "usage", "error") || !d.skip() {
				return false
			}
		}
	}
	d.ws()
	return d.i == len(d.b)
}

// choice decodes one element of "choices".
func (d *fastDecoder) choice(ch *chunkChoice) bool {
	for more, ok := d.open('{'); more || !ok; more, ok = d.after('}') {
		if !ok {
			return false
		}
		key, ok := d.key()
		if !ok {
			return false
		}
		switch string(key) {
		case "index":
			ok = d.int(&ch.Index)
		case "finish_reason":
			s := string(ch.FinishReason)
			ok = d.str(&s)
			ch.FinishReason = openai.FinishReason(s)
		case "delta":
			ok = d.delta(ch)
		default:
			ok = !foldsTo(key, "index", "finish_reason", "delta") && d.skip()
		}
		if !ok {
			return false
		}
	}
	return true
}

// delta decodes a choice's delta.
func (d *fastDecoder) delta(ch *chunkChoice) bool {
	dl := &ch.Delta
	for more, ok := d.open('{'); more || !ok; more, ok = d.after('}') {
		if !ok {
			return false
		}
		key, ok := d.key()
		if !ok {
			return false
		}
		switch string(key) {
		case "content":
			ok = d.str(&dl.Content)
		case "role":
			ok = d.str(&dl.Role)
		case "refusal":
			ok = d.str(&dl.Refusal)
		case "reasoning_content":
			ok = d.str(&dl.ReasoningContent)
		case "reasoning":
			ok = d.str(&dl.Reasoning)
		default: // tool_calls, function_call: encoding/json
			ok = !foldsTo(key, "content", "role", "refusal", "reasoning_content", "reasoning", "tool_calls", "function_call") && d.skip()
		}
		if !ok {
			return false
		}
	}
	return true
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

type fastDecoder struct {
	b []byte
	i int
}

func (d *fastDecoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next skips white space and reports whether the next byte is ch,
// taking it if so.
func (d *fastDecoder) next(ch byte) bool {
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == ch {
		d.i++
		return true
	}
	return false
}

// open takes the opening bracket of an object ('{') or array ('[') and
// reports whether a member or element follows (more) or the value is
// empty; ok is false when the bracket is not there.
func (d *fastDecoder) open(bracket byte) (more, ok bool) {
	if !d.next(bracket) {
		return false, false
	}
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == bracket+2 { // '}' or ']'
		d.i++
		return false, true
	}
	return true, true
}

// after takes the ',' after a member or element (more follows) or the
// closing bracket (the value ends).
func (d *fastDecoder) after(closing byte) (more, ok bool) {
	if d.next(',') {
		d.ws()
		return true, true
	}
	return false, d.next(closing)
}

// key reads a key (a string without escapes) and the colon after it.
func (d *fastDecoder) key() ([]byte, bool) {
	d.ws()
	raw, ok := d.rawString()
	if !ok || bytes.IndexByte(raw, '\\') >= 0 || !d.next(':') {
		return nil, false
	}
	d.ws()
	return raw, true
}

// rawString reads a string and returns its text between the quotes,
// escapes not decoded. It refuses control bytes, bytes that are not
// UTF-8, bad escapes and \u escapes.
func (d *fastDecoder) rawString() ([]byte, bool) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return nil, false
	}
	start := d.i + 1
	ascii := true
	for j := start; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '"':
			d.i = j + 1
			raw := d.b[start:j]
			if !ascii && !utf8.Valid(raw) {
				return nil, false
			}
			return raw, true
		case c == '\\':
			j++
			if j >= len(d.b) || strings.IndexByte(`"\/bfnrt`, d.b[j]) < 0 {
				return nil, false // \u, or not an escape
			}
		case c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// str reads a string (escapes decoded) or null (s left as it is).
func (d *fastDecoder) str(s *string) bool {
	if d.literal("null") {
		return true
	}
	raw, ok := d.rawString()
	if !ok {
		return false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		*s = string(raw)
		return true
	}
	var b strings.Builder
	b.Grow(len(raw))
	for k := 0; k < len(raw); k++ {
		c := raw[k]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		k++
		switch raw[k] {
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		default: // " \ /
			c = raw[k]
		}
		b.WriteByte(c)
	}
	*s = b.String()
	return true
}

// int reads an integer that fits an int, or null (n left as it is).
func (d *fastDecoder) int(n *int) bool {
	if d.literal("null") {
		return true
	}
	neg := d.i < len(d.b) && d.b[d.i] == '-'
	j := d.i
	if neg {
		j++
	}
	start := j
	v := 0
	for ; j < len(d.b) && d.b[j] >= '0' && d.b[j] <= '9'; j++ {
		if j-start >= 18 {
			return false
		}
		v = v*10 + int(d.b[j]-'0')
	}
	if j == start || d.b[start] == '0' && j-start > 1 {
		return false
	}
	if j < len(d.b) && (d.b[j] == '.' || d.b[j] == 'e' || d.b[j] == 'E') {
		return false // not an integer: encoding/json says so
	}
	if neg {
		v = -v
	}
	*n, d.i = v, j
	return true
}

// literal takes word (null, true, false) when it is next.
func (d *fastDecoder) literal(word string) bool {
	if len(d.b)-d.i >= len(word) && string(d.b[d.i:d.i+len(word)]) == word {
		d.i += len(word)
		return true
	}
	return false
}

// skip passes over the value of a key nobody reads: a string, a number,
// true, false or null. An object or array is refused.
func (d *fastDecoder) skip() bool {
	if d.i >= len(d.b) {
		return false
	}
	switch c := d.b[d.i]; {
	case c == '"':
		_, ok := d.rawString()
		return ok
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return d.literal("null") || d.literal("true") || d.literal("false")
}

// number passes over a JSON number.
func (d *fastDecoder) number() bool {
	b, j := d.b, d.i
	digits := func() int {
		k := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		return j - k
	}
	if j < len(b) && b[j] == '-' {
		j++
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case digits() == 0:
		return false
	}
	if j < len(b) && b[j] == '.' {
		j++
		if digits() == 0 {
			return false
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if digits() == 0 {
			return false
		}
	}
	d.i = j
	return true
}
