package message

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// canonJSON parses b and writes it back with sorted keys and no spaces,
// keeping numbers as written.
func canonJSON(t *testing.T, b []byte) string {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("canonJSON(%s): %v", b, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func decodeMessage(t *testing.T, line string) Message {
	t.Helper()
	var m Message
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("unmarshal %s: %v", line, err)
	}
	return m
}

func TestMessageRoundTrip(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"role":"user","content":"hello"}`,
		`{"role":"user","content":""}`,
		`{"role":"assistant","content":null,"tool_calls":[{"type":"function","id":"c1","function":{"name":"Shell","arguments":"{\"command\":\"ls\"}"}}]}`,
		`{"role":"assistant","tool_calls":[{"type":"function","id":"c1","function":{"name":"Shell","arguments":"{}"}}]}`,
		`{"role":"assistant","content":[{"type":"think","think":"hmm","encrypted":"xyz"},{"type":"text","text":"done"}]}`,
		`{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA","id":null}}]}`,
		`{"role":"user","content":[{"type":"audio_url","audio_url":{"url":"x"},"text":{"not":"a string"}}]}`,
		`{"role":"user","content":[]}`,
		`{"role":"tool","content":"ok","tool_call_id":"c1","name":"Shell"}`,
		`{"role":"assistant","content":"x","partial":true,"meta":{"a":[1,2.50,1e3]},"reasoning_content":"why"}`,
		// arguments as an object, as null, and unknown keys in the call and its function
		`{"role":"assistant","content":null,"tool_calls":[{"type":"function","id":"c2","index":0,"function":{"name":"ReadFile","arguments":{"path":"a.go"},"strict":true}}]}`,
		`{"role":"assistant","content":null,"tool_calls":[{"type":"function","id":"c3","function":{"name":"Think","arguments":null}}]}`,
		// named fields that came empty
		`{"role":"assistant","content":"x","tool_calls":[]}`,
		`{"role":"assistant","content":"x","tool_calls":null,"tool_call_id":null,"name":null}`,
		`{"role":"tool","content":"x","tool_call_id":"","name":""}`,
		`{"role":"user","content":"\u003cb\u003e \u2028 é 😀"}`,
	}
	for _, line := range lines {
		m := decodeMessage(t, line)
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("marshal %s: %v", line, err)
		}
		if got, want := canonJSON(t, out), canonJSON(t, []byte(line)); got != want {
			t.Errorf("round trip changed the message\n in: %s\nout: %s", want, got)
		}
		// A second pass is stable byte for byte.
		again, err := json.Marshal(decodeMessage(t, string(out)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, out) {
			t.Errorf("second round trip differs\n 1st: %s\n 2nd: %s", out, again)
		}
	}
}

func TestMessageContentKinds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		line             string
		text             string
		parts            int
		isNull, omitted  bool
		plain, reasoning string
	}{
		{line: `{"role":"user","content":"hi"}`, text: "hi", parts: -1, plain: "hi"},
		{line: `{"role":"assistant","content":null}`, parts: -1, isNull: true},
		{line: `{"role":"assistant"}`, parts: -1, omitted: true},
		{line: `{"role":"user","content":[]}`, parts: 0},
		{
			line:  `{"role":"assistant","content":[{"type":"think","think":"a"},{"type":"text","text":"b"},{"type":"image_url","image_url":{"url":"u"}},{"type":"think","think":"c"},{"type":"text","text":"d"}]}`,
			parts: 5, plain: "b\nd", reasoning: "a\nc",
		},
	}
	for _, c := range cases {
		m := decodeMessage(t, c.line)
		if m.Content.Text != c.text || m.Content.IsNull != c.isNull || m.Content.Omitted != c.omitted {
			t.Errorf("%s: content = %+v", c.line, m.Content)
		}
		if c.parts < 0 && m.Content.Parts != nil {
			t.Errorf("%s: Parts = %v, want nil", c.line, m.Content.Parts)
		}
		if c.parts >= 0 && (m.Content.Parts == nil || len(m.Content.Parts) != c.parts) {
			t.Errorf("%s: %d parts (nil=%v), want %d", c.line, len(m.Content.Parts), m.Content.Parts == nil, c.parts)
		}
		if got := m.Content.PlainText(); got != c.plain {
			t.Errorf("%s: PlainText = %q, want %q", c.line, got, c.plain)
		}
		if got := m.Content.Reasoning(); got != c.reasoning {
			t.Errorf("%s: Reasoning = %q, want %q", c.line, got, c.reasoning)
		}
	}
}

func TestMessageUnknownFieldsKept(t *testing.T) {
	t.Parallel()
	m := decodeMessage(t, `{"role":"user","content":[{"type":"video","video":{"id":7},"text":5}],"x_meta":{"k":1},"name":"bob"}`)
	if string(m.Extra["x_meta"]) != `{"k":1}` {
		t.Errorf("Extra[x_meta] = %s", m.Extra["x_meta"])
	}
	if _, ok := m.Extra["name"]; ok {
		t.Errorf("a non-empty name must not be kept in Extra: %v", m.Extra)
	}
	if m.Name != "bob" {
		t.Errorf("Name = %q", m.Name)
	}
	p := m.Content.Parts[0]
	if p.Type != "video" || p.Text != "" || !strings.Contains(string(p.Raw), `"video":{"id":7}`) {
		t.Errorf("part = %+v (raw %s)", p, p.Raw)
	}
}

func TestToolCallArguments(t *testing.T) {
	t.Parallel()
	m := decodeMessage(t, `{"role":"assistant","content":null,"tool_calls":[`+
		`{"type":"function","id":"a","function":{"name":"Shell","arguments":"{\"command\":\"ls\"}"}},`+
		`{"type":"function","id":"b","function":{"name":"ReadFile","arguments":{"path":"x"}}},`+
		`{"id":"c","function":{"name":"Think","arguments":null}}]}`)
	if len(m.ToolCalls) != 3 {
		t.Fatalf("%d calls", len(m.ToolCalls))
	}
	if got := m.ToolCalls[0].Args; got != `{"command":"ls"}` {
		t.Errorf("string arguments: Args = %q", got)
	}
	if got := m.ToolCalls[1].Args; got != `{"path":"x"}` {
		t.Errorf("object arguments: Args = %q", got)
	}
	if got := m.ToolCalls[2].Args; got != "null" {
		t.Errorf("null arguments: Args = %q", got)
	}

	out, err := json.Marshal(m.ToolCalls[1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"arguments":{"path":"x"}`) {
		t.Errorf("unchanged object arguments not written back as an object: %s", out)
	}
	// Changed arguments are written as the string the caller set.
	c := m.ToolCalls[1]
	c.Args = `{"path":"y"}`
	out, err = json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"arguments":"{\"path\":\"y\"}"`) {
		t.Errorf("changed arguments: %s", out)
	}
	// A call without a type is written as a function call.
	out, err = json.Marshal(m.ToolCalls[2])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), `{"type":"function","id":"c",`) {
		t.Errorf("call without type: %s", out)
	}
}

func TestMessageTypedFieldOverridesKeptEmpty(t *testing.T) {
	t.Parallel()
	m := decodeMessage(t, `{"role":"tool","content":"x","tool_call_id":null,"name":""}`)
	m.ToolCallID = "c9"
	m.Name = "Shell"
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), `{"role":"tool","content":"x","tool_call_id":"c9","name":"Shell"}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestPartChangedIsRebuilt(t *testing.T) {
	t.Parallel()
	m := decodeMessage(t, `{"role":"assistant","content":[{"type":"text","text":"old","extra":1},{"type":"think","think":"t","sig":"s"}]}`)
	m.Content.Parts[0].Text = "new"
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), `{"role":"assistant","content":[{"type":"text","text":"new"},{"type":"think","think":"t","sig":"s"}]}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestMessageMarshalShape(t *testing.T) {
	t.Parallel()
	cases := []struct {
		m    Message
		want string
	}{
		{NewText("user", "hi"), `{"role":"user","content":"hi"}`},
		{Message{Role: "assistant", Content: Content{IsNull: true}, ToolCalls: []ToolCall{{ID: "a", Name: "Shell", Args: `{}`}}},
			`{"role":"assistant","content":null,"tool_calls":[{"type":"function","id":"a","function":{"name":"Shell","arguments":"{}"}}]}`},
		{Message{Role: "assistant", Content: Content{Parts: []Part{{Type: "think", Think: "r"}, {Type: "text", Text: "t"}}}},
			`{"role":"assistant","content":[{"type":"think","think":"r"},{"type":"text","text":"t"}]}`},
		{Message{Role: "tool", Content: TextContent("out"), ToolCallID: "a", Extra: map[string]json.RawMessage{"z": json.RawMessage(`1`), "a": json.RawMessage(`2`)}},
			`{"role":"tool","content":"out","tool_call_id":"a","a":2,"z":1}`},
		{Message{Role: "assistant", Content: Content{Omitted: true}}, `{"role":"assistant"}`},
	}
	for _, c := range cases {
		out, err := json.Marshal(c.m)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != c.want {
			t.Errorf("got  %s\nwant %s", out, c.want)
		}
	}
}

func TestMessageUnmarshalErrors(t *testing.T) {
	t.Parallel()
	bad := []string{
		`[1,2]`,
		`null`,
		`"text"`,
		`{"role":5}`,
		`{"role":"user","content":5}`,
		`{"role":"user","content":{"a":1}}`,
		`{"role":"user","content":["plain string part"]}`,
		`{"role":"user","content":[null]}`,
		`{"role":"assistant","tool_calls":{"id":"a"}}`,
		`{"role":"assistant","tool_calls":[null]}`,
		`{"role":"assistant","tool_calls":[{"id":"a","function":"Shell"}]}`,
		`{"role":"tool","tool_call_id":7}`,
		`{"role":"tool","name":["x"]}`,
	}
	for _, line := range bad {
		var m Message
		if err := json.Unmarshal([]byte(line), &m); err == nil {
			t.Errorf("%s: no error, got %+v", line, m)
		}
	}
}

// TestDecodeBorrowedSharesText: DecodeBorrowed takes a string stored as
// it reads from the body itself (no copy, no allocation), and still
// decodes one with escapes into a string of its own.
func TestDecodeBorrowedSharesText(t *testing.T) {
	// not parallel: the allocation count is the process's
	body := []byte(`{"role":"tool","content":"a.go and b.go: some text to print","tool_call_id":"call_7"}`)
	var m Message
	if n := testing.AllocsPerRun(20, func() {
		if err := m.DecodeBorrowed(body); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("DecodeBorrowed allocated %.0f times, want 0", n)
	}
	if m.Content.Text != "a.go and b.go: some text to print" || m.ToolCallID != "call_7" {
		t.Errorf("decoded %+v", m)
	}
	copy(body[bytes.Index(body, []byte("call_7")):], "CALL")
	if m.ToolCallID != "CALL_7" {
		t.Errorf("tool_call_id %q does not share the body's bytes", m.ToolCallID)
	}
	escaped := []byte(`{"role":"user","content":"line\none"}`)
	if err := m.DecodeBorrowed(escaped); err != nil {
		t.Fatal(err)
	}
	copy(escaped[bytes.Index(escaped, []byte("line")):], "LINE")
	if m.Content.Text != "line\none" {
		t.Errorf("escaped content %q changed with the body", m.Content.Text)
	}
}
