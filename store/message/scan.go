package message

import (
	"strconv"
	"unicode/utf8"
)

// Scanner reads a JSON text a value at a time with the decoder behind
// Message.UnmarshalJSON: its syntax is checked as it is read (what
// json.Unmarshal accepts), strings decode as json.Unmarshal decodes them,
// and no byte is looked at twice. It is for parsers of other agents' lines
// (store/peers) that decode each line once, into their own fields, without
// encoding/json's reflection. A value of another kind than the method
// asks for is read and taken as absent: String of a number is "", Object
// of a list calls nothing. Keys match exactly (encoding/json would also
// take "Type" for "type"). Errors are the input's syntax only.
type Scanner struct{ d decoder }

// Reset starts reading data.
func (s *Scanner) Reset(data []byte) { s.d = decoder{data: data} }

// Kind is the first byte of the next value ('{', '[', '"', 'n', 't',
// 'f', '-' or a digit), or 0 at the end.
func (s *Scanner) Kind() byte { return s.d.peek() }

// Object reads an object, calling field with each key and the scanner at
// its value, which field must read (or Skip).
func (s *Scanner) Object(field func(key []byte) error) error {
	if s.d.peek() != '{' {
		return s.d.skip()
	}
	return s.d.object(field)
}

// List reads a list, calling elem with the scanner at each element, which
// elem must read.
func (s *Scanner) List(elem func() error) error {
	if s.d.peek() != '[' {
		return s.d.skip()
	}
	return s.d.list(elem)
}

// String reads a value: a string's text, "" for any other.
func (s *Scanner) String() (string, error) {
	v, _, err := s.d.stringOrNot()
	return v, err
}

// Bytes is String without making a string: the text's bytes are part of
// the data when the JSON string has no escape (valid until the data
// changes), else a copy; nil for a value that is not a string.
func (s *Scanner) Bytes() ([]byte, error) {
	if s.d.peek() != '"' {
		return nil, s.d.skip()
	}
	raw, clean, err := s.d.str()
	if err != nil || clean {
		return raw, err
	}
	return []byte(unescape(raw)), nil
}

// Number reads a value: a number's value, 0 and false for any other.
func (s *Scanner) Number() (float64, bool, error) {
	c := s.d.peek()
	start := s.d.i
	if err := s.d.skip(); err != nil || c != '-' && (c < '0' || c > '9') {
		return 0, false, err
	}
	f, err := strconv.ParseFloat(string(s.d.data[start:s.d.i]), 64)
	return f, err == nil, nil
}

// Int reads a value: a number's integer part, 0 for any other.
func (s *Scanner) Int() (int, error) {
	f, _, err := s.Number()
	return int(f), err
}

// Bool reads a value: true only for true.
func (s *Scanner) Bool() (bool, error) {
	c := s.d.peek()
	return c == 't', s.d.skip()
}

// Raw reads a value and returns its bytes (part of the data, not a copy).
func (s *Scanner) Raw() ([]byte, error) {
	s.d.peek()
	start := s.d.i
	err := s.d.skip()
	return s.d.data[start:s.d.i], err
}

// Skip reads a value.
func (s *Scanner) Skip() error { return s.d.skip() }

// End checks that only whitespace is left.
func (s *Scanner) End() error { return s.d.end() }

// AppendString appends s as a JSON string, escaped as encoding/json
// escapes it: with escapeHTML as json.Marshal (<, > and & too), without as
// an Encoder with SetEscapeHTML(false).
func AppendString(dst []byte, s string, escapeHTML bool) []byte {
	if escapeHTML {
		return appendString(dst, s)
	}
	return appendStringWith(dst, s, &jsonSafe)
}

// jsonSafe marks the ASCII bytes encoding/json writes as they are in a
// string when it does not escape HTML.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
