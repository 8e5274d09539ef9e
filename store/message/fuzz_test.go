package message

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// FuzzMessageJSON: any line that decodes as a message writes back as JSON
// that decodes to the same message and writes back byte for byte the same
// (the lossless round trip kimi-cli import/export relies on).
func FuzzMessageJSON(f *testing.F) {
	f.Add([]byte(`{"role":"user","content":"hello"}`))
	f.Add([]byte(`{"role":"assistant","content":[{"type":"think","think":"hmm","encrypted":null},{"type":"text","text":"hi"}],"tool_calls":[{"type":"function","id":"c1","function":{"name":"Shell","arguments":"{\"command\":\"ls\"}"}}]}`))
	f.Add([]byte(`{"role":"tool","content":[{"type":"text","text":"<system>ERROR: x</system>"}],"tool_call_id":"c1","extra":{"a":[1,2]}}`))
	f.Add([]byte(`{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"ReadFile","arguments":{"path":"a"}}}],"name":""}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var m Message
		if err := json.Unmarshal(line, &m); err != nil {
			return
		}
		first, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("decoded %q but cannot encode it: %v", line, err)
		}
		var again Message
		if err := json.Unmarshal(first, &again); err != nil {
			t.Fatalf("encoded %q does not decode: %v", first, err)
		}
		second, err := json.Marshal(again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, second) {
			t.Fatalf("round trip drifts:\n in %q\n 1st %q\n 2nd %q", line, first, second)
		}
	})
}

// FuzzUnmarshalString: the decoder reads every input as json.Unmarshal
// into a string does, error or not.
func FuzzUnmarshalString(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\"b"`, `"\u00e9t\u00e9"`, "\"caf\xc3\xa9\"", "\"bad \xff utf8\"", `""`, `null`, `12`, `"\n"`, `"<system>CHECKPOINT 3</system>"`} {
		f.Add([]byte(s))
	}
	for _, s := range []string{` "x" `, `"x" y`, `"\ud800\udc00"`, `"\ud800x"`, `"\udc00\ud800"`, `"a`, `tru`, `[1]`, "\"\x01\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want, got string
		werr := json.Unmarshal(raw, &want)
		gerr := unmarshalString(raw, &got)
		if (werr == nil) != (gerr == nil) || got != want {
			t.Fatalf("%q: got %q, %v; json.Unmarshal: %q, %v", raw, got, gerr, want, werr)
		}
	})
}

// FuzzDecodeAgrees: the single-pass decoder agrees with the map-based one
// it replaced (ref_test.go, built on encoding/json) on any input: the same
// message (UnmarshalJSON and DecodeBorrowed), tool call or part, or an
// error from both.
func FuzzDecodeAgrees(f *testing.F) {
	for _, s := range []string{
		`{"role":"user","content":"hello"}`,
		` {"role" : "assistant" , "content" : [ {"type":"think","think":"hmm"} , {"type":"text","text":"a\nb\u00e9\ud83d\ude00"} ] , "tool_calls" : [ {"id":"c1","type":"function","function":{"name":"Shell","arguments":"{\"command\":\"ls\"}","strict":true},"index":0} ] } `,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c2","function":{"name":"R","arguments":{"path" : "a"}}}],"name":""}`,
		`{"role":"tool","content":"ok","tool_call_id":null,"name":"","tool_calls":[],"x":[1,-2.5e+3,true,false,null,{}]}`,
		`{"role":5,"role":"user","content":7,"content":"x","tool_calls":{},"tool_calls":null}`,
		`{"role":"user","content":[1]}`,
		`{"role":"user","content":[null]}`,
		`{"role":"user","tool_calls":[null]}`,
		`{"role":"user","tool_calls":[{"function":5}]}`,
		`{"role":"user","tool_calls":[{"function":5,"function":null}]}`,
		`{"ro\u006ce":"user","na\u006de":"n","bad":"\ud800","\ud800":1}`,
		"{\"role\":\"caf\xe9\",\"content\":[{\"type\":\"te\xffxt\",\"text\":1}],\"k\xff\":2}",
		`{"role":"user","content":"x"} `,
		`{"role":"user","content":"x"}}`,
		`{"role":"user",}`,
		`{"role":"user" "content":"x"}`,
		`{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":1e}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":nul}`,
		`null`, `[]`, `"x"`, `12`, ``, ` `, `{`, `{"a"`, `{"a":`, `{"a":[`,
		`{"a":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
		`{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
		`{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got, want Message
		gerr, werr := got.UnmarshalJSON(data), refMessage(&want, data)
		agree(t, "message", data, got, want, gerr, werr)
		var borrowed Message
		gerr = borrowed.DecodeBorrowed(bytes.Clone(data))
		agree(t, "borrowed message", data, borrowed, want, gerr, werr)
		var gc, wc ToolCall
		gerr, werr = gc.UnmarshalJSON(data), refToolCall(&wc, data)
		agree(t, "tool call", data, gc, wc, gerr, werr)
		var gp, wp Part
		gerr, werr = gp.UnmarshalJSON(data), refPart(&wp, data)
		agree(t, "part", data, gp, wp, gerr, werr)
	})
}

func agree(t *testing.T, what string, data []byte, got, want any, gerr, werr error) {
	t.Helper()
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%s %q: error %v, the reference's %v", what, data, gerr, werr)
	}
	if gerr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%s %q:\n got %#v\nwant %#v", what, data, got, want)
	}
}

// FuzzAppendIndent: AppendIndent writes what json.Indent of
// json.HTMLEscape writes a JSON value as, and fails on anything else
// (which the escape can make valid: "\&" becomes "\\u0026").
func FuzzAppendIndent(f *testing.F) {
	for _, s := range []string{
		`{"role":"user","content":"<b>a & b</b>\u2028 \u00e9"}`,
		" { \"a\" : [ 1 , -2.5e3 , true , null , { } , [ ] , \"x\" ] , \"b\":{\"c\":{}} } \n ",
		"{\"a\":\"\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\",\"\xe2\x80\xa8k\":1}",
		`[]`, `"s"`, `12`, ` null `, `{"a":1} x`, `{"a":01}`, `{"a":}`, ``, `{"a":"\x"}`, `[1,]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) { appendIndentAgrees(t, body, "      ", "  ") })
}

// TestAppendIndentNestingLimit: AppendIndent nests as deep as json.Indent
// does and no deeper (without an indent: a deep document indented writes
// the square of its depth).
//
// json.Indent's limit is its scanner's, which json.Valid shares; Indent
// itself loops over the depth at every newline (0.4 s at this depth), so
// it is compared whole at a small depth, and the deep documents with the
// same layout and json.Valid's verdict.
func TestAppendIndentNestingLimit(t *testing.T) {
	t.Parallel()
	nested := func(depth int) []byte {
		return []byte(strings.Repeat("[", depth) + strings.Repeat("]", depth))
	}
	indented := func(depth int) string {
		return strings.Repeat("[\n", depth-1) + "[]" + strings.Repeat("\n]", depth-1)
	}
	appendIndentAgrees(t, nested(5), "", "")
	if got, err := AppendIndent(nil, nested(5), "", ""); err != nil || string(got) != indented(5) {
		t.Fatalf("depth 5: %q %v", got, err)
	}
	for _, depth := range []int{10000, 10001} {
		got, err := AppendIndent(nil, nested(depth), "", "")
		if valid := json.Valid(nested(depth)); (err == nil) != valid {
			t.Fatalf("depth %d: error %v, json.Valid %v", depth, err, valid)
		}
		if err == nil && string(got) != indented(depth) {
			t.Fatalf("depth %d: %.200q", depth, got)
		}
	}
	if json.Valid(nested(10001)) || !json.Valid(nested(10000)) {
		t.Fatal("encoding/json's nesting limit is no longer 10000: the deep cases above test nothing")
	}
}

func appendIndentAgrees(t *testing.T, body []byte, prefix, indent string) {
	t.Helper()
	got, gerr := AppendIndent([]byte("head"), body, prefix, indent)
	if gerr != nil && string(got) != "head" {
		t.Fatalf("%q: failed but wrote %q", body, got)
	}
	var esc, want bytes.Buffer
	json.HTMLEscape(&esc, body)
	werr := json.Indent(&want, esc.Bytes(), prefix, indent)
	if !json.Valid(body) {
		werr = errors.New("not JSON")
	}
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%.200q: error %v, encoding/json's %v", body, gerr, werr)
	}
	if gerr == nil && !bytes.Equal(got[4:], want.Bytes()) {
		t.Fatalf("%.200q:\n got %.200q\nwant %.200q", body, got[4:], want.Bytes())
	}
}

// FuzzEncodeAgrees: AppendJSON writes byte for byte what json.Marshal of
// the map-based encoder it replaced (ref_encode_test.go) wrote, for any
// message the decoder reads, and for it with its strings set to s (any
// bytes, invalid UTF-8 included) and a part changed so it is rebuilt.
func FuzzEncodeAgrees(f *testing.F) {
	for _, s := range []string{
		`{"role":"user","content":"hello <b> & \u2028 \u007f \b\f\u0001"}`,
		`{"role":"assistant","content":[{"type":"think","think":"hmm","encrypted":null},{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":"data:x"}}],"tool_calls":[{"type":"function","id":"c1","function":{"name":"Shell","arguments":"{\"command\":\"ls\"}","strict" : true},"index":0}]}`,
		`{"role":"tool","content":[ {"type":"text","text":"<system>ERROR: x</system>"} ],"tool_call_id":"c1","extra":{"a" : [1, 2, "<&>"]},"b":null}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"ReadFile","arguments":{"path" : "a"}}}],"name":""}`,
		`{"role":"tool","tool_calls":[],"tool_call_id":null,"name":"","zz":1,"aa":"\u2029"}`,
		`{"role":"user","content":[]}`,
	} {
		f.Add([]byte(s), "x")
	}
	f.Add([]byte(`{"role":"user"}`), "caf\xe9 \xff <\u2028\u2029>\n\x7f\x00")
	f.Fuzz(func(t *testing.T, line []byte, s string) {
		var m Message
		if err := m.UnmarshalJSON(line); err != nil {
			return
		}
		agree := func(m Message) {
			want, werr := json.Marshal(refEncoded{m})
			got, gerr := m.AppendJSON([]byte("prefix"))
			if (werr == nil) != (gerr == nil) || (werr == nil && string(got) != "prefix"+string(want)) {
				t.Fatalf("%q:\n AppendJSON %q, %v\n reference  %q, %v", line, got, gerr, want, werr)
			}
		}
		agree(m)
		m.Role, m.Name, m.ToolCallID = s, s, s
		if len(m.Content.Parts) > 0 {
			m.Content.Parts = append([]Part(nil), m.Content.Parts...)
			m.Content.Parts[0].Text += s
		} else if !m.Content.IsNull && !m.Content.Omitted {
			m.Content.Text = s
		}
		m.ToolCalls = append(m.ToolCalls[:len(m.ToolCalls):len(m.ToolCalls)], ToolCall{ID: s, Name: s, Args: s})
		agree(m)
	})
}
