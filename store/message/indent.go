package message

// AppendIndent appends body as json.Indent writes json.HTMLEscape(body)
// with this prefix and indent (how `rewind show --json` nests a message in
// its document), in one pass over body instead of two of encoding/json's
// byte-at-a-time scanner. body must be one JSON value, as for json.Indent;
// on an error dst is returned as it was. FuzzAppendIndent holds it to
// encoding/json.
func AppendIndent(dst, body []byte, prefix, indent string) ([]byte, error) {
	d := decoder{data: body}
	d.peek() // leading space is dropped
	out, err := d.appendIndented(dst, prefix, indent, 0)
	if err != nil {
		return dst, err
	}
	rest := d.i
	if err := d.end(); err != nil {
		return dst, err
	}
	return append(out, body[rest:]...), nil // trailing space is kept
}

func (d *decoder) appendIndented(dst []byte, prefix, indent string, depth int) ([]byte, error) {
	switch c := d.peek(); c {
	case '{', '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		empty, err := d.open()
		if err != nil {
			return nil, err
		}
		dst = append(dst, c)
		if empty {
			return append(dst, closer), nil
		}
		for more := true; more; {
			dst = newline(dst, prefix, indent, depth+1)
			if closer == '}' {
				raw, _, err := d.key()
				if err != nil {
					return nil, err
				}
				dst = appendHTMLString(dst, raw)
				dst = append(dst, ':', ' ')
			}
			if dst, err = d.appendIndented(dst, prefix, indent, depth+1); err != nil {
				return nil, err
			}
			if more, err = d.more(closer); err != nil {
				return nil, err
			}
			if more {
				dst = append(dst, ',')
			}
		}
		dst = newline(dst, prefix, indent, depth)
		return append(dst, closer), nil
	case '"':
		raw, _, err := d.str()
		if err != nil {
			return nil, err
		}
		return appendHTMLString(dst, raw), nil
	default:
		start := d.i
		if err := d.skip(); err != nil {
			return nil, err
		}
		return append(dst, d.data[start:d.i]...), nil
	}
}

func newline(dst []byte, prefix, indent string, depth int) []byte {
	dst = append(dst, '\n')
	dst = append(dst, prefix...)
	for i := 0; i < depth && indent != ""; i++ {
		dst = append(dst, indent...)
	}
	return dst
}

// appendHTMLString appends a string's raw bytes, quoted, with <, >, & and
// U+2028, U+2029 escaped as json.HTMLEscape escapes them.
func appendHTMLString(dst, raw []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, raw[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			start = i + 1
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8:
			dst = append(dst, raw[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[raw[i+2]&0xF])
			i += 2
			start = i + 1
		}
	}
	dst = append(dst, raw[start:]...)
	return append(dst, '"')
}
