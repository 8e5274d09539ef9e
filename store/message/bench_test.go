package message

import (
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkDecode decodes the three messages of a turn (a prompt, an
// assistant's text and tool call, a tool result) with the single-pass
// decoder, through json.Unmarshal (which checks the whole line first: what
// the kimi-cli import pays) and with the map-based reference it replaced.
func BenchmarkDecode(b *testing.B) {
	text := strings.Repeat("the parser keeps the session index in a table ", 3)
	var bodies [][]byte
	for _, m := range []Message{
		NewText("user", text),
		{Role: "assistant", Content: TextContent(text), ToolCalls: []ToolCall{{ID: "call_1", Name: "Shell", Args: `{"command":"grep -rn parser ."}`}}},
		{Role: "tool", ToolCallID: "call_1", Content: TextContent(text + "\n" + text)},
	} {
		body, err := json.Marshal(m)
		if err != nil {
			b.Fatal(err)
		}
		bodies = append(bodies, body)
	}
	for _, c := range []struct {
		name   string
		decode func(*Message, []byte) error
	}{
		{"single-pass", (*Message).UnmarshalJSON},
		{"json.Unmarshal", func(m *Message, b []byte) error { return json.Unmarshal(b, m) }},
		{"reference", refMessage},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, body := range bodies {
					var m Message
					if err := c.decode(&m, body); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// TestDecodeAllocates: decoding a message allocates its strings and little
// else (the map-based decoder made 63 allocations for this one: a map of
// raw values at every level, a copy of each value, a second decode of
// each).
func TestDecodeAllocates(t *testing.T) {
	body := []byte(`{"role":"assistant","content":"let me look","tool_calls":[{"type":"function","id":"call_1","function":{"name":"Shell","arguments":"{\"command\":\"ls\"}"}}]}`)
	allocs := testing.AllocsPerRun(100, func() {
		var m Message
		if err := m.UnmarshalJSON(body); err != nil {
			t.Fatal(err)
		}
	})
	// content, the call list, id, name, arguments (the role and the
	// call's type are the common words, not copied)
	if allocs > 5 {
		t.Errorf("decoding a message made %v allocations, want at most 5", allocs)
	}
}
