package message

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// scanAny reads any value with a Scanner into what json.Unmarshal into an
// any makes of it.
func scanAny(s *Scanner) (any, error) {
	switch c := s.Kind(); c {
	case '{':
		m := map[string]any{}
		err := s.Object(func(k []byte) error {
			v, err := scanAny(s)
			m[string(k)] = v
			return err
		})
		return m, err
	case '[':
		l := []any{}
		err := s.List(func() error {
			v, err := scanAny(s)
			l = append(l, v)
			return err
		})
		return l, err
	case '"':
		return s.String()
	case 't', 'f':
		return s.Bool()
	case 'n':
		return nil, s.Skip()
	default:
		f, ok, err := s.Number()
		if err == nil && !ok {
			err = errors.New("not a number")
		}
		return f, err
	}
}

// FuzzScannerAgrees: the Scanner accepts the inputs json.Unmarshal
// accepts, and reads them into the same values (keys matched exactly, the
// last of a repeated key taken).
func FuzzScannerAgrees(f *testing.F) {
	for _, s := range []string{
		`{"type":"user","message":{"content":[{"type":"text","text":"a\u00e9\ud83d\ude00"}],"usage":{"input_tokens":12}},"isMeta":true,"parentUuid":null}`,
		`{"a":1,"a":"two"}`, `[1,-2.5e3,"x",null,false,{}]`, `"\ud800x"`, `{"a":}`, `{"a" 1}`, `[1,]`, `-`, `1e`, " {} ", `{"a":1} x`,
		"\"bad \xff utf8\"", `{"\u0074ype":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want any
		werr := json.Unmarshal(data, &want)
		var s Scanner
		s.Reset(data)
		got, gerr := scanAny(&s)
		if gerr == nil {
			gerr = s.End()
		}
		var te *json.UnmarshalTypeError
		if errors.As(werr, &te) {
			return // a number out of float64's range
		}
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%q: scanner %v, json.Unmarshal %v", data, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: scanner read %#v, json.Unmarshal %#v", data, got, want)
		}
	})
}

// FuzzAppendString: AppendString writes what encoding/json writes, with
// and without HTML escaping.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"plain", "a > b && c < d", "\u2028\u2029", "bad \xff", "\x00\x1f\"\\", "é😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		html, _ := json.Marshal(s)
		if got := AppendString(nil, s, true); !bytes.Equal(got, html) {
			t.Fatalf("%q: AppendString(html) %s, json.Marshal %s", s, got, html)
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		if got := AppendString(nil, s, false); !bytes.Equal(got, bytes.TrimSuffix(b.Bytes(), []byte("\n"))) {
			t.Fatalf("%q: AppendString %s, Encoder without HTML escaping %s", s, got, b.Bytes())
		}
	})
}
