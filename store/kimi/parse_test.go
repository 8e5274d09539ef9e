package kimi

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
)

// canon parses one JSON value and writes it back with sorted keys, no
// spaces, numbers as written: the normal form compared by round-trip tests.
func canon(t *testing.T, b []byte) string {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("canon(%.80s): %v", b, err)
	}
	if d.More() {
		t.Fatalf("canon(%.80s): more than one value", b)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// nonBlankLines splits a file's content into its non-blank lines.
func nonBlankLines(b []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// assertSameContext checks that got (exported) is want (a context file)
// after normalisation, line by line, and that got is compact JSON lines
// each ending in a newline.
func assertSameContext(t *testing.T, got, want []byte, label string) {
	t.Helper()
	if len(got) > 0 && got[len(got)-1] != '\n' {
		t.Errorf("%s: output does not end with a newline", label)
	}
	gl := bytes.Split(bytes.TrimSuffix(got, []byte("\n")), []byte("\n"))
	if len(got) == 0 {
		gl = nil
	}
	wl := nonBlankLines(want)
	if len(gl) != len(wl) {
		t.Fatalf("%s: %d lines exported, want %d\n--- got\n%s--- want\n%s", label, len(gl), len(wl), got, want)
	}
	for i := range wl {
		var c bytes.Buffer
		if err := json.Compact(&c, gl[i]); err != nil || !bytes.Equal(c.Bytes(), gl[i]) {
			t.Errorf("%s line %d: not compact JSON: %s", label, i+1, gl[i])
		}
		if g, w := canon(t, gl[i]), canon(t, wl[i]); g != w {
			t.Errorf("%s line %d differs\n got: %s\nwant: %s", label, i+1, g, w)
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseSingleFixture(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "single", "context.jsonl")
	f, err := ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !f.HasSystemPrompt || !strings.HasPrefix(f.SystemPrompt, "You are Kimi CLI") {
		t.Errorf("system prompt = %v %q", f.HasSystemPrompt, f.SystemPrompt)
	}
	type want struct {
		kind   store.Kind
		role   string
		cp, tk int
		body   bool
	}
	msg := func(role string) want { return want{kind: store.KindMessage, role: role, body: true} }
	cp := func(id int, body bool) want { return want{kind: store.KindCheckpoint, cp: id, body: body} }
	usage := func(n int, body bool) want { return want{kind: store.KindUsage, tk: n, body: body} }
	wants := []want{
		msg(RoleSystemPrompt), cp(0, false), msg("user"), cp(1, false), msg("user"), msg("assistant"), msg("tool"),
		usage(5123, false), cp(2, false), msg("assistant"), msg("tool"), msg("tool"), usage(6900, true),
		cp(3, true), msg("user"), msg("assistant"), usage(7345, false),
	}
	if len(f.Records) != len(wants) {
		t.Fatalf("%d records, want %d", len(f.Records), len(wants))
	}
	for i, w := range wants {
		r := f.Records[i]
		if r.Kind != w.kind || r.Role != w.role || r.CheckpointID != w.cp || r.TokenCount != w.tk || (len(r.Body) > 0) != w.body {
			t.Errorf("record %d = %+v (body %s), want %+v", i, r, r.Body, w)
		}
	}
	// Message bodies are the lines themselves, compacted.
	lines := nonBlankLines(readFile(t, path))
	for i, r := range f.Records {
		if r.Kind != store.KindMessage {
			continue
		}
		var c bytes.Buffer
		if err := json.Compact(&c, lines[i]); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(r.Body, c.Bytes()) {
			t.Errorf("record %d body\n got: %s\nwant: %s", i, r.Body, c.Bytes())
		}
	}
	// The assistant's calls decode, with the object arguments as text.
	m, err := f.Records[9].Message()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.ToolCalls) != 2 || m.ToolCalls[1].Name != "Grep" || canon(t, []byte(m.ToolCalls[1].Args)) != `{"path":"parser","pattern":"func Parse"}` {
		t.Errorf("tool calls = %+v", m.ToolCalls)
	}
}

func TestParseFormatRoundTripFixtures(t *testing.T) {
	t.Parallel()
	var paths []string
	for _, dir := range []string{"single", "session", "cleared"} {
		ps, err := filepath.Glob(filepath.Join("testdata", dir, "*.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, ps...)
	}
	if len(paths) != 6 {
		t.Fatalf("fixtures: %v", paths)
	}
	for _, p := range paths {
		f, err := ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := WriteRecords(&out, f.Records); err != nil {
			t.Fatal(err)
		}
		assertSameContext(t, out.Bytes(), readFile(t, p), p)
	}
}

func TestParseLayout(t *testing.T) {
	t.Parallel()
	in := "\xef\xbb\xbf{\"role\":\"user\",\"content\":\"a\"}\r\n\n   \n{\"role\":\"_usage\",\"token_count\":3}\n\t\n" +
		`{"role":"assistant","content":"no newline at the end"}`
	f, err := Parse(strings.NewReader(in), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Records) != 3 || f.Records[1].TokenCount != 3 || f.HasSystemPrompt {
		t.Fatalf("records = %+v", f.Records)
	}
	if string(f.Records[0].Body) != `{"role":"user","content":"a"}` || string(f.Records[2].Body) != `{"role":"assistant","content":"no newline at the end"}` {
		t.Errorf("bodies %s / %s", f.Records[0].Body, f.Records[2].Body)
	}
	for _, empty := range []string{"", "\n\n", "  \r\n"} {
		f, err := Parse(strings.NewReader(empty), "e.jsonl")
		if err != nil || len(f.Records) != 0 {
			t.Errorf("Parse(%q) = %+v, %v; want no records and no error", empty, f, err)
		}
	}
}

func TestParseLongLine(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 3<<20) // longer than any default scanner buffer
	in := `{"role":"tool","content":"` + big + `","tool_call_id":"a"}` + "\n" + `{"role":"_checkpoint","id":0}` + "\n"
	f, err := Parse(strings.NewReader(in), "big.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Records) != 2 || len(f.Records[0].Body) != len(in)-len(`{"role":"_checkpoint","id":0}`)-2 {
		t.Fatalf("%d records, body %d bytes", len(f.Records), len(f.Records[0].Body))
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		line int
		msg  string
	}{
		{`{"role":"user","content":"a"}` + "\n" + `{"role":"user","content":"b"`, 2, "invalid JSON"},
		{"\n\n" + `{"role":"user"} trailing`, 3, "invalid JSON"},
		{`[{"role":"user","content":"a"}]`, 1, "want a JSON object, got an array"},
		{`"just a string"`, 1, "want a JSON object, got a string"},
		{`null`, 1, "want a JSON object, got null"},
		{`42`, 1, "want a JSON object, got a number"},
		{`hello`, 1, "want a JSON object"},
		{`{"content":"who"}`, 1, `no "role" field`},
		{`{"role":7}`, 1, `"role" is not a string`},
		{`{"role":"_checkpoint"}`, 1, `_checkpoint: no "id" field`},
		{`{"role":"_checkpoint","id":"one"}`, 1, `"id" must be a non-negative integer`},
		{`{"role":"_checkpoint","id":-1}`, 1, `"id" must be a non-negative integer`},
		{`{"role":"_checkpoint","id":1.5}`, 1, `"id" must be a non-negative integer`},
		{`{"role":"_usage","token_count":null}`, 1, `"token_count" must be a non-negative integer`},
		{`{"role":"user","content":42}`, 1, "user message: content"},
		{`{"role":"assistant","tool_calls":"Shell"}`, 1, "assistant message: tool_calls"},
		{`{"role":"_system_prompt","content":{"a":1}}`, 1, "_system_prompt message: content"},
	}
	for _, c := range cases {
		_, err := Parse(strings.NewReader(c.in), "ctx.jsonl")
		var le *LineError
		if !errors.As(err, &le) {
			t.Errorf("%q: error %v is not a *LineError", c.in, err)
			continue
		}
		if le.File != "ctx.jsonl" || le.Line != c.line {
			t.Errorf("%q: at %s:%d, want line %d", c.in, le.File, le.Line, c.line)
		}
		prefix := "ctx.jsonl:" + strconv.Itoa(c.line) + ": "
		if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: error %q, want prefix %q and %q", c.in, err, prefix, c.msg)
		}
	}
}

func TestParseFixtureErrors(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		line int
		msg  string
	}{
		"bad_json.jsonl":       {4, "invalid JSON"},
		"array_line.jsonl":     {3, "got an array"},
		"no_role.jsonl":        {2, `no "role"`},
		"bad_checkpoint.jsonl": {3, `"id" must be a non-negative integer`},
		"bad_content.jsonl":    {1, "content"},
	}
	for name, c := range cases {
		p := filepath.Join("testdata", "malformed", name)
		_, err := ParseFile(p)
		var le *LineError
		if !errors.As(err, &le) || le.Line != c.line || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want line %d and %q", name, err, c.line, c.msg)
		}
	}
}

func TestSystemPromptAnywhereIsKeptInPlace(t *testing.T) {
	t.Parallel()
	in := `{"role":"user","content":"a"}` + "\n" + `{"role":"_system_prompt","content":"late"}` + "\n"
	f, err := Parse(strings.NewReader(in), "x")
	if err != nil {
		t.Fatal(err)
	}
	if !f.HasSystemPrompt || f.SystemPrompt != "late" || f.Records[1].Role != RoleSystemPrompt {
		t.Errorf("%+v", f)
	}
	var out bytes.Buffer
	if err := WriteRecords(&out, f.Records); err != nil {
		t.Fatal(err)
	}
	if out.String() != in {
		t.Errorf("got\n%s", out.String())
	}
}

func TestMarshalRecord(t *testing.T) {
	t.Parallel()
	cases := []struct {
		r    store.Record
		want string
	}{
		{store.Record{Kind: store.KindCheckpoint, CheckpointID: 7}, `{"role":"_checkpoint","id":7}`},
		{store.Record{Kind: store.KindUsage, TokenCount: 12345}, `{"role":"_usage","token_count":12345}`},
		{store.Record{Kind: store.KindMessage, Role: "user", Body: json.RawMessage("{ \"role\": \"user\",\n \"content\": \"a b\" }")}, `{"role":"user","content":"a b"}`},
		// a kept line is used while it agrees with the record …
		{store.Record{Kind: store.KindUsage, TokenCount: 5, Body: json.RawMessage(`{"role":"_usage","token_count":5,"m":"k2"}`)}, `{"role":"_usage","token_count":5,"m":"k2"}`},
		// … and ignored when it does not
		{store.Record{Kind: store.KindCheckpoint, CheckpointID: 2, Body: json.RawMessage(`{"role":"_checkpoint","id":1,"x":1}`)}, `{"role":"_checkpoint","id":2}`},
		{store.Record{Kind: store.KindCheckpoint, CheckpointID: 2, Body: json.RawMessage(`{"role":"_usage","id":2}`)}, `{"role":"_checkpoint","id":2}`},
	}
	for _, c := range cases {
		got, err := MarshalRecord(c.r)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("MarshalRecord(%+v) = %s, want %s", c.r, got, c.want)
		}
	}
	for _, bad := range []store.Record{
		{Kind: store.KindMessage, Role: "user"},
		{Kind: store.KindMessage, Body: json.RawMessage(`{"role":`)},
		{Kind: "note"},
	} {
		if got, err := MarshalRecord(bad); err == nil {
			t.Errorf("MarshalRecord(%+v) = %s, want an error", bad, got)
		}
	}
}

func TestTitle(t *testing.T) {
	t.Parallel()
	parse := func(lines ...string) File {
		f, err := Parse(strings.NewReader(strings.Join(lines, "\n")), "t")
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	cases := []struct {
		files []File
		want  string
	}{
		{[]File{parse(
			`{"role":"_system_prompt","content":"sys"}`,
			`{"role":"user","content":[{"type":"text","text":"<system>CHECKPOINT 0</system>"}]}`,
			`{"role":"assistant","content":"not me"}`,
			`{"role":"user","content":[{"type":"text","text":"<system>reminder\nmore</system>"},{"type":"text","text":"\n   Fix   the\tbug  \nsecond line"}]}`,
		)}, "Fix the bug"},
		{[]File{parse(`{"role":"user","content":"` + strings.Repeat("é", 70) + `"}`)}, strings.Repeat("é", 60) + "…"},
		{[]File{parse(), parse(`{"role":"user","content":"from the second file"}`)}, "from the second file"},
		{[]File{parse(`{"role":"assistant","content":"only me"}`)}, ""},
	}
	for _, c := range cases {
		if got := Title(c.files); got != c.want {
			t.Errorf("Title = %q, want %q", got, c.want)
		}
	}
}

// TestLongLineIsRefusedWithoutKeepingIt: a line over MaxLine is a
// *LineError naming its size (or, with SkipInvalid, skipped and reported)
// and the lines around it parse; it is not held whole. On the old code a
// 200 MB answer was decoded whole (3 GB to import, 43 s to open).
func TestLongLineIsKeptCutWithAMarker(t *testing.T) {
	t.Parallel()
	long := `{"role":"assistant","content":"` + strings.Repeat("x", 300<<10) + `"}` + "\n"
	data := lineUser + long + lineThink
	f, err := ParseWith(strings.NewReader(data), "big.jsonl", ParseOptions{MaxLine: 64 << 10})
	if err != nil || len(f.Records) != 3 {
		t.Fatalf("a long line: %d records, %v", len(f.Records), err)
	}
	m := f.Decoded[1]
	text := m.Content.PlainText()
	if m.Role != "assistant" || !strings.Contains(text, "[truncated at import: this message was 300.0 KiB") || !strings.Contains(text, "line 2 of big.jsonl") {
		t.Fatalf("the long line became %s %q", m.Role, text)
	}
	if len(f.Records[1].Body) > 1<<10 {
		t.Fatalf("the kept record is %d bytes", len(f.Records[1].Body))
	}
	if f, err := ParseWith(strings.NewReader(data), "big.jsonl", ParseOptions{}); err != nil || len(f.Records) != 3 || strings.Contains(f.Decoded[1].Content.PlainText(), "truncated") {
		t.Fatalf("under the default cap: %d records, %v", len(f.Records), err)
	}
}

// A long tool call and its long result stay a pair: the tail's ids and
// calls are kept, so a resumed session sends every call with its result.
func TestLongToolLinesKeepTheirPairing(t *testing.T) {
	t.Parallel()
	call := `{"role":"assistant","content":"` + strings.Repeat("y", 100<<10) + `","tool_calls":[{"type":"function","id":"Shell:7","function":{"name":"Shell","arguments":"{\"command\":\"ls\"}"}}]}` + "\n"
	result := `{"role":"tool","content":"` + strings.Repeat("z", 100<<10) + `","tool_call_id":"Shell:7"}` + "\n"
	f, err := ParseWith(strings.NewReader(lineUser+call+result), "t.jsonl", ParseOptions{MaxLine: 64 << 10})
	if err != nil || len(f.Decoded) != 3 {
		t.Fatalf("%d records, %v", len(f.Decoded), err)
	}
	c, r := f.Decoded[1], f.Decoded[2]
	if len(c.ToolCalls) != 1 || c.ToolCalls[0].ID != "Shell:7" || c.ToolCalls[0].Name != "Shell" || c.ToolCalls[0].Args != `{"command":"ls"}` {
		t.Fatalf("the call became %+v", c.ToolCalls)
	}
	if r.Role != "tool" || r.ToolCallID != "Shell:7" || !strings.Contains(r.Content.PlainText(), "truncated at import") {
		t.Fatalf("the result became %s %q %q", r.Role, r.ToolCallID, r.Content.PlainText())
	}
}
