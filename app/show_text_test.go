package app

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store/message"
)

// TestTranscriptTextHelpers: the writers show's text mode uses write what
// the string-building helpers they replaced made (oneLine's fast path, the
// indented block written piece by piece).
func TestTranscriptTextHelpers(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "a", "a b", " a", "a ", "a  b", "a\tb", "a\nb\n\n", "\n", "é ü", "a\u00a0b", "x\x1b[31my", "c1\u0085z", "line\r\nnext", "  two\n  lines  \n"} {
		if got, want := oneLine(s), strings.Join(strings.Fields(sanitize(s)), " "); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", s, got, want)
		}
		var b bytes.Buffer
		w := errWriter{w: &b}
		writeIndented(&w, s)
		if got, want := b.String(), "  "+strings.ReplaceAll(sanitize(strings.TrimRight(s, "\n")), "\n", "\n  ")+"\n"; got != want {
			t.Errorf("writeIndented(%q) wrote %q, want %q", s, got, want)
		}
	}
}

// TestTranscriptToolNamesStayBounded: the names kept to label tool results
// do not grow with the session (they grew by one per call), and a result
// after its call is still named.
func TestTranscriptToolNamesStayBounded(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := errWriter{w: &b}
	names := map[string]string{}
	for i := range 3 * maxToolNames {
		id := "call_" + strconv.Itoa(i)
		writeMessage(&w, message.Message{Role: "assistant", ToolCalls: []message.ToolCall{{ID: id, Name: "Shell", Args: "{}"}}}, names)
		b.Reset()
		writeMessage(&w, message.Message{Role: "tool", ToolCallID: id, Content: message.TextContent("ok")}, names)
		if got, want := b.String(), "\n[tool Shell ("+id+")]\n  ok\n"; got != want {
			t.Fatalf("result %d: %q, want %q", i, got, want)
		}
	}
	if len(names) > maxToolNames {
		t.Errorf("%d tool names kept after %d calls, want at most %d", len(names), 3*maxToolNames, maxToolNames)
	}
}
