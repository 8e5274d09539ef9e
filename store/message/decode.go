package message

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// decoder reads a message in one pass over its JSON: it checks the syntax
// as encoding/json's scanner does (the same inputs are accepted, to the
// same nesting limit) and decodes the fields rewind knows as it meets them,
// so no part of a body is looked at twice. Strings decode as json.Unmarshal
// decodes them (invalid UTF-8 and lone surrogates become U+FFFD), and a key
// that comes twice counts once, the last time, as in a decoded map.
// FuzzDecodeAgrees holds it to the map-based decoder it replaced.
type decoder struct {
	data  []byte
	i     int
	depth int
	// borrow: a string that needs no decoding is data's bytes, not a
	// copy (see Message.DecodeBorrowed)
	borrow bool
}

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// syntaxError is a message body that is not JSON.
type syntaxError struct {
	Offset int // where it goes wrong, in bytes from the start
	msg    string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at offset %d: %s", e.Offset, e.msg)
}

func (d *decoder) fail(what string) error {
	if d.i >= len(d.data) {
		return &syntaxError{Offset: len(d.data), msg: "unexpected end of JSON input"}
	}
	return &syntaxError{Offset: d.i, msg: fmt.Sprintf("invalid character %q %s", d.data[d.i], what)}
}

// peek skips whitespace and returns the next byte (0 at the end).
func (d *decoder) peek() byte {
	for d.i < len(d.data) {
		switch c := d.data[d.i]; c {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return c
		}
	}
	return 0
}

// end checks that only whitespace follows the top-level value.
func (d *decoder) end() error {
	if d.peek(); d.i < len(d.data) {
		return d.fail("after top-level value")
	}
	return nil
}

// kind names a value by its first byte, for type errors.
func kind(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// open consumes the '{' or '[' at d.i and reports whether the container
// is empty (its closing byte consumed too).
func (d *decoder) open() (empty bool, err error) {
	closer := byte('}')
	if d.data[d.i] == '[' {
		closer = ']'
	}
	d.i++
	if d.depth++; d.depth > maxDepth {
		d.i--
		return false, d.fail("exceeds the nesting limit")
	}
	if d.peek() == closer {
		d.i++
		d.depth--
		return true, nil
	}
	return false, nil
}

// more consumes the ',' before the next element (true) or the closing byte
// (false) after an element of an object or list.
func (d *decoder) more(closer byte) (bool, error) {
	switch d.peek() {
	case ',':
		d.i++
		return true, nil
	case closer:
		d.i++
		d.depth--
		return false, nil
	}
	return false, d.fail("after an element")
}

// object reads the object at d.i, calling field with each key (decoded)
// and d at its value, which field must read.
func (d *decoder) object(field func(key []byte) error) error {
	empty, err := d.open()
	for more := !empty; err == nil && more; {
		raw, clean, kerr := d.key()
		if kerr != nil {
			return kerr
		}
		if err = field(keyBytes(raw, clean)); err == nil {
			more, err = d.more('}')
		}
	}
	return err
}

// list reads the list at d.i, calling elem with d at each element, which
// elem must read.
func (d *decoder) list(elem func() error) error {
	empty, err := d.open()
	for more := !empty; err == nil && more; {
		if err = elem(); err == nil {
			more, err = d.more(']')
		}
	}
	return err
}

// key reads an object's key and its colon, leaving d at the value (past
// any whitespace). The key
// is as the JSON has it (quotes removed); clean says it needs no decoding.
func (d *decoder) key() (raw []byte, clean bool, err error) {
	if d.peek() != '"' {
		return nil, false, d.fail("looking for the beginning of an object key")
	}
	raw, clean, err = d.str()
	if err != nil {
		return nil, false, err
	}
	if d.peek() != ':' {
		return nil, false, d.fail("after an object key")
	}
	d.i++
	d.peek()
	return raw, clean, nil
}

// strPlain marks the bytes a string holds as they are: not the quote, the
// backslash, a control character or a byte of a multi-byte sequence.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str reads the string at d.i, checking it, and returns its bytes between
// the quotes; clean says they are its text as they are (no escape, valid
// UTF-8).
func (d *decoder) str() (raw []byte, clean bool, err error) {
	data := d.data
	start := d.i + 1
	i := start
	escaped, high := false, false
	for {
		for i < len(data) && strPlain[data[i]] {
			i++
		}
		if i >= len(data) {
			d.i = i
			return nil, false, d.fail("")
		}
		switch c := data[i]; {
		case c == '"':
			d.i = i + 1
			raw = data[start:i]
			return raw, !escaped && (!high || utf8.Valid(raw)), nil
		case c == '\\':
			escaped = true
			if i+1 >= len(data) {
				d.i = len(data)
				return nil, false, d.fail("")
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for j := i + 2; j < i+6; j++ {
					if j >= len(data) {
						d.i = j
						return nil, false, d.fail("")
					}
					if !isHex(data[j]) {
						d.i = j
						return nil, false, d.fail("in \\u hexadecimal character escape")
					}
				}
				i += 6
			default:
				d.i = i + 1
				return nil, false, d.fail("in string escape code")
			}
		case c < 0x20:
			d.i = i
			return nil, false, d.fail("in string literal")
		default: // a byte ≥ 0x80
			high = true
			i++
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// keyBytes is a key's decoded bytes: raw itself when clean (nearly always).
func keyBytes(raw []byte, clean bool) []byte {
	if clean {
		return raw
	}
	return []byte(unescape(raw))
}

// unescape decodes a string's raw bytes as json.Unmarshal does: escapes
// replaced, invalid UTF-8 and lone surrogates made U+FFFD.
func unescape(raw []byte) string {
	var b strings.Builder
	b.Grow(len(raw))
	for r := 0; r < len(raw); {
		j := r
		for j < len(raw) && raw[j] != '\\' && raw[j] < utf8.RuneSelf {
			j++
		}
		b.Write(raw[r:j])
		if r = j; r >= len(raw) {
			break
		}
		if c := raw[r]; c != '\\' {
			rr, size := utf8.DecodeRune(raw[r:])
			b.WriteRune(rr) // an invalid byte becomes U+FFFD
			r += size
			continue
		}
		switch c := raw[r+1]; c {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			rr := hex4(raw[r+2:])
			r += 6
			if utf16.IsSurrogate(rr) {
				if r+6 <= len(raw) && raw[r] == '\\' && raw[r+1] == 'u' {
					if dec := utf16.DecodeRune(rr, hex4(raw[r+2:])); dec != unicode.ReplacementChar {
						b.WriteRune(dec)
						r += 6
						continue
					}
				}
				rr = unicode.ReplacementChar
			}
			b.WriteRune(rr)
			continue
		default: // '"', '\\', '/'
			b.WriteByte(c)
		}
		r += 2
	}
	return b.String()
}

// hex4 reads four hex digits str has checked.
func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r*16 + rune(c)
	}
	return r
}

// stringOrNot reads any value: a string's text, "" for anything else; c is
// the value's first byte.
func (d *decoder) stringOrNot() (s string, c byte, err error) {
	if c = d.peek(); c != '"' {
		return "", c, d.skip()
	}
	raw, clean, err := d.str()
	if err != nil {
		return "", c, err
	}
	if !clean {
		return unescape(raw), c, nil
	}
	if d.borrow && len(raw) > 0 {
		return unsafe.String(&raw[0], len(raw)), c, nil
	}
	return intern(raw), c, nil
}

// intern is string(b), without allocating for the roles and types most
// messages repeat.
func intern(b []byte) string {
	switch string(b) {
	case "user":
		return "user"
	case "assistant":
		return "assistant"
	case "tool":
		return "tool"
	case "function":
		return "function"
	case "text":
		return "text"
	case "think":
		return "think"
	}
	return string(b)
}

// skip reads one value, checking it.
func (d *decoder) skip() error {
	switch c := d.peek(); c {
	case '{', '[':
		return d.skipContainer()
	case '"':
		_, _, err := d.str()
		return err
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	default:
		if c == '-' || '0' <= c && c <= '9' {
			return d.number()
		}
		return d.fail("looking for beginning of value")
	}
}

// skipContainer reads the object or list at d.i.
func (d *decoder) skipContainer() error {
	closer := byte('}')
	if d.data[d.i] == '[' {
		closer = ']'
	}
	empty, err := d.open()
	if err != nil || empty {
		return err
	}
	for {
		if closer == '}' {
			if _, _, err := d.key(); err != nil {
				return err
			}
		}
		if err := d.skip(); err != nil {
			return err
		}
		more, err := d.more(closer)
		if err != nil || !more {
			return err
		}
	}
}

func (d *decoder) literal(word string) error {
	for j := 0; j < len(word); j++ {
		if d.i >= len(d.data) || d.data[d.i] != word[j] {
			return d.fail("in literal " + word)
		}
		d.i++
	}
	return nil
}

func (d *decoder) number() error {
	data := d.data
	digits := func() bool {
		start := d.i
		for d.i < len(data) && '0' <= data[d.i] && data[d.i] <= '9' {
			d.i++
		}
		return d.i > start
	}
	if data[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(data) && data[d.i] == '0':
		d.i++
	case !digits():
		return d.fail("in numeric literal")
	}
	if d.i < len(data) && data[d.i] == '.' {
		d.i++
		if !digits() {
			return d.fail("after decimal point in numeric literal")
		}
	}
	if d.i < len(data) && (data[d.i] == 'e' || data[d.i] == 'E') {
		d.i++
		if d.i < len(data) && (data[d.i] == '+' || data[d.i] == '-') {
			d.i++
		}
		if !digits() {
			return d.fail("in exponent of numeric literal")
		}
	}
	return nil
}

// raw reads a value and returns a copy of its bytes.
func (d *decoder) raw() (json.RawMessage, error) {
	d.peek()
	start := d.i
	if err := d.skip(); err != nil {
		return nil, err
	}
	return append(json.RawMessage(nil), d.data[start:d.i]...), nil
}

// notObject reads the rest of a top-level value that is not an object and
// says what it is (or why it is not JSON).
func (d *decoder) notObject(what string) error {
	c := d.peek()
	if err := d.skip(); err != nil {
		return err
	}
	if err := d.end(); err != nil {
		return err
	}
	return fmt.Errorf("%s: want a JSON object, got %s", what, kind(c))
}

// message reads a whole message body (see Message.UnmarshalJSON).
func (d *decoder) message(m *Message) error {
	*m = Message{}
	if d.peek() != '{' {
		return d.notObject("message")
	}
	var (
		roleErr, contentErr, callsErr, idErr, nameErr error
		sawContent                                    bool
		// the named fields that came empty, kept as they came
		keepCalls, keepID, keepName []byte
	)
	err := d.object(func(k []byte) (err error) {
		start := d.i
		switch string(k) {
		case "role":
			var c byte
			m.Role, c, err = d.stringOrNot()
			roleErr = stringField("role", c)
		case "content":
			sawContent = true
			m.Content = Content{}
			contentErr, err = d.content(&m.Content)
		case "tool_calls":
			m.ToolCalls, keepCalls = nil, nil
			if callsErr, err = d.toolCalls(m); callsErr == nil && len(m.ToolCalls) == 0 {
				keepCalls = d.data[start:d.i]
			}
		case "tool_call_id", "name":
			key, dst, keep, fieldErr := "tool_call_id", &m.ToolCallID, &keepID, &idErr
			if k[0] == 'n' {
				key, dst, keep, fieldErr = "name", &m.Name, &keepName, &nameErr
			}
			var c byte
			*dst, c, err = d.stringOrNot()
			*fieldErr, *keep = stringField(key, c), nil
			if *dst == "" {
				*keep = d.data[start:d.i]
			}
		default:
			err = d.extra(&m.Extra, k)
		}
		return err
	})
	if err != nil {
		return err
	}
	if err := d.end(); err != nil {
		return err
	}
	for _, err := range []error{roleErr, contentErr, callsErr, idErr, nameErr} {
		if err != nil {
			return err
		}
	}
	if !sawContent {
		m.Content.Omitted = true
	}
	for _, f := range []struct {
		key string
		raw []byte
	}{{"tool_calls", keepCalls}, {"tool_call_id", keepID}, {"name", keepName}} {
		if f.raw != nil {
			if m.Extra == nil {
				m.Extra = map[string]json.RawMessage{}
			}
			m.Extra[f.key] = append(json.RawMessage(nil), f.raw...)
		}
	}
	return nil
}

// stringField is the error of a field that must be a string (or null)
// whose value starts with c.
func stringField(key string, c byte) error {
	if c == '"' || c == 'n' {
		return nil
	}
	return fmt.Errorf("%s: want a string, got %s", key, kind(c))
}

// content reads a message's content: fieldErr is a content of the wrong
// shape, err a body that is not JSON.
func (d *decoder) content(c *Content) (fieldErr, err error) {
	switch d.peek() {
	case 'n':
		c.IsNull = true
		return nil, d.literal("null")
	case '"':
		c.Text, _, err = d.stringOrNot()
		return nil, err
	case '[':
	default:
		start := d.i
		if err := d.skip(); err != nil {
			return nil, err
		}
		return fmt.Errorf("content: want a string, a list of parts or null, got %.40s", d.data[start:d.i]), nil
	}
	c.Parts = []Part{}
	err = d.list(func() error {
		if d.peek() != '{' {
			if fieldErr == nil {
				fieldErr = fmt.Errorf("content part: want an object, got %s", kind(d.peek()))
			}
			return d.skip()
		}
		var p Part
		start := d.i
		if err := d.part(&p); err != nil {
			return err
		}
		p.Raw = append(json.RawMessage(nil), d.data[start:d.i]...)
		c.Parts = append(c.Parts, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return fieldErr, nil
}

// part reads a part object's type, text and think (strings only: a part
// of an unknown type may use those keys for anything).
func (d *decoder) part(p *Part) error {
	return d.object(func(k []byte) (err error) {
		var dst *string
		switch string(k) {
		case "type":
			dst = &p.Type
		case "text":
			dst = &p.Text
		case "think":
			dst = &p.Think
		default:
			return d.skip()
		}
		*dst, _, err = d.stringOrNot()
		return err
	})
}

// toolCalls reads a message's tool_calls into m.ToolCalls.
func (d *decoder) toolCalls(m *Message) (fieldErr, err error) {
	switch d.peek() {
	case 'n':
		return nil, d.literal("null")
	case '[':
	default:
		c := d.peek()
		if err := d.skip(); err != nil {
			return nil, err
		}
		return fmt.Errorf("tool_calls: want a list, got %s", kind(c)), nil
	}
	i := 0
	err = d.list(func() (err error) {
		var callErr error
		if c := d.peek(); c == '{' {
			var tc ToolCall
			if callErr, err = d.toolCall(&tc); err == nil {
				m.ToolCalls = append(m.ToolCalls, tc)
			}
		} else {
			callErr = fmt.Errorf("tool call: want a JSON object, got %s", kind(c))
			err = d.skip()
		}
		if callErr != nil && fieldErr == nil {
			fieldErr = fmt.Errorf("tool_calls[%d]: %w", i, callErr)
		}
		i++
		return err
	})
	if err != nil {
		return nil, err
	}
	return fieldErr, nil
}

// toolCall reads a tool call object (see ToolCall.UnmarshalJSON).
func (d *decoder) toolCall(c *ToolCall) (fieldErr, err error) {
	*c = ToolCall{}
	err = d.object(func(k []byte) (err error) {
		switch string(k) {
		case "id":
			c.ID, _, err = d.stringOrNot()
		case "type":
			c.Type, _, err = d.stringOrNot()
		case "function":
			c.Name, c.Args, c.argsJSON, c.FnExtra = "", "", nil, nil
			fieldErr, err = d.function(c)
		default:
			err = d.extra(&c.Extra, k)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return fieldErr, nil
}

// extra reads the value of a field the message type does not name into
// *m under key (the map made on first use), to be written back unchanged.
func (d *decoder) extra(m *map[string]json.RawMessage, key []byte) error {
	v, err := d.raw()
	if err != nil {
		return err
	}
	if *m == nil {
		*m = map[string]json.RawMessage{}
	}
	(*m)[string(key)] = v
	return nil
}

// function reads a tool call's function object.
func (d *decoder) function(c *ToolCall) (fieldErr, err error) {
	switch d.peek() {
	case 'n':
		return nil, d.literal("null")
	case '{':
	default:
		k := d.peek()
		if err := d.skip(); err != nil {
			return nil, err
		}
		return fmt.Errorf("function: want an object, got %s", kind(k)), nil
	}
	return nil, d.object(func(k []byte) (err error) {
		switch string(k) {
		case "name":
			c.Name, _, err = d.stringOrNot()
		case "arguments":
			if d.peek() == '"' {
				c.Args, _, err = d.stringOrNot()
				c.argsJSON = nil
				break
			}
			// Some servers send arguments as an object; keep it as text,
			// and as JSON for writing it back unchanged.
			if c.argsJSON, err = d.raw(); err == nil {
				c.Args = string(c.argsJSON)
			}
		default:
			err = d.extra(&c.FnExtra, k)
		}
		return err
	})
}
