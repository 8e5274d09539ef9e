package message

import (
	"bytes"
	"encoding/json"
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

// FuzzUnmarshalString: the fast path decodes every JSON value exactly as
// json.Unmarshal into a string does, error or not.
func FuzzUnmarshalString(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\"b"`, `"\u00e9t\u00e9"`, "\"caf\xc3\xa9\"", "\"bad \xff utf8\"", `""`, `null`, `12`, `"\n"`, `"<system>CHECKPOINT 3</system>"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return // callers pass values a whole decode has checked
		}
		var want, got string
		werr := json.Unmarshal(raw, &want)
		gerr := unmarshalString(raw, &got)
		if (werr == nil) != (gerr == nil) || got != want {
			t.Fatalf("%q: got %q, %v; json.Unmarshal: %q, %v", raw, got, gerr, want, werr)
		}
	})
}
