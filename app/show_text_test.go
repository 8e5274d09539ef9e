package app

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store/message"
)

// TestTranscriptTextHelpers: the writers show's text mode uses write what
// the string-building helpers they replaced made (oneLine's fast path, the
// indented block written piece by piece, a tool result's label appended
// in pieces when they are plain).
func TestTranscriptTextHelpers(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "a", "a b", " a", "a ", "a  b", "a\tb", "a\nb\n\n", "\n", "é ü", "a\u00a0b", "x\x1b[31my", "c1\u0085z", "line\r\nnext", "  two\n  lines  \n"} {
		if got, want := oneLine(s), strings.Join(strings.Fields(sanitize(s)), " "); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", s, got, want)
		}
		if got, want := string(appendIndented(nil, s)), "  "+strings.ReplaceAll(sanitize(strings.TrimRight(s, "\n")), "\n", "\n  ")+"\n"; got != want {
			t.Errorf("appendIndented(%q) = %q, want %q", s, got, want)
		}
		for _, id := range []string{"", "call_1", "c 1", " c", "c\x1b"} {
			m := message.Message{Role: "tool", Name: s, ToolCallID: id}
			label := "tool " + s
			if id != "" {
				label += " (" + id + ")"
			}
			if got, want := string(appendMessage(nil, m, nil)), "\n["+oneLine(label)+"]\n"; got != want {
				t.Errorf("tool %q (%q) labelled %q, want %q", s, id, got, want)
			}
		}
	}
}

// TestHasControlAgreesWithRunes: sanitize's byte scan finds a control
// character exactly where reading s rune by rune with isControl does,
// invalid UTF-8 and the bytes around the C1 range included.
func TestHasControlAgreesWithRunes(t *testing.T) {
	t.Parallel()
	byRunes := func(s string) bool {
		for _, r := range s {
			if isControl(r) {
				return true
			}
		}
		return false
	}
	var cases []string
	for c := 0; c < 256; c++ {
		cases = append(cases, string([]byte{byte(c)}), string([]byte{'a', byte(c), 'b'}), string([]byte{0xc2, byte(c)}), string([]byte{byte(c), 0x85}))
	}
	cases = append(cases, "\u0080", "\u009f", "\u00a0", "é", "\xc2", "a\xc2", "\xe2\x80\x85", "\u2028")
	for _, s := range cases {
		if got, want := hasControl(s), byRunes(s); got != want {
			t.Errorf("hasControl(%q) = %v, reading runes says %v", s, got, want)
		}
	}
}

// TestTranscriptToolNamesStayBounded: the names kept to label tool results
// do not grow with the session (they grew by one per call), and a result
// after its call is still named.
func TestTranscriptToolNamesStayBounded(t *testing.T) {
	t.Parallel()
	names := map[string]string{}
	for i := range 3 * maxToolNames {
		id := "call_" + strconv.Itoa(i)
		appendMessage(nil, message.Message{Role: "assistant", ToolCalls: []message.ToolCall{{ID: id, Name: "Shell", Args: "{}"}}}, names)
		b := appendMessage(nil, message.Message{Role: "tool", ToolCallID: id, Content: message.TextContent("ok")}, names)
		if got, want := string(b), "\n[tool Shell ("+id+")]\n  ok\n"; got != want {
			t.Fatalf("result %d: %q, want %q", i, got, want)
		}
	}
	if len(names) > maxToolNames {
		t.Errorf("%d tool names kept after %d calls, want at most %d", len(names), 3*maxToolNames, maxToolNames)
	}
}

// TestShowTextAllocatesLikeJSON: text mode's work per record costs no
// more allocations than --json's beyond the few a tool call needs (its
// slice, its unescaped arguments, the copy of its id and name kept to
// label its result). The reading both modes share
// allocates the same; text mode made four more per message (a copy of
// each decoded string, a label joined for each result), garbage that made
// it slower than --json.
func TestShowTextAllocatesLikeJSON(t *testing.T) {
	// not parallel: the allocation counts are the process's
	const turns = 500 // a Shell call each
	home, id := longSession(t, turns)
	rt := &Runtime{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }, Flags: Overrides{Home: &home}}
	allocs := map[bool]float64{}
	for _, asJSON := range []bool{false, true} {
		allocs[asJSON] = testing.AllocsPerRun(3, func() {
			if err := Show(context.Background(), rt, id, nil, asJSON); err != nil {
				t.Fatal(err)
			}
		})
	}
	if extra, most := allocs[false]-allocs[true], float64(3*turns+100); extra > most {
		t.Errorf("text mode made %.0f allocations, --json %.0f: %.1f more per tool call, want at most 3",
			allocs[false], allocs[true], extra/turns)
	}
}

// TestTranscriptToolNamesOwnTheirText: the call names kept to label
// results are copies, not the borrowed body's bytes: a body, which may be
// megabytes, is not kept alive by its call's id, and a name stays right
// whatever becomes of the body.
func TestTranscriptToolNamesOwnTheirText(t *testing.T) {
	t.Parallel()
	body := []byte(`{"role":"assistant","content":"looking","tool_calls":[{"id":"call_1","type":"function","function":{"name":"Shell","arguments":"{}"}}]}`)
	var m message.Message
	if err := m.DecodeBorrowed(body); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	appendMessage(nil, m, names)
	for i := range body {
		body[i] = 'x'
	}
	if got := names["call_1"]; got != "Shell" || len(names) != 1 {
		t.Errorf("names kept %q after the body changed, want call_1 → Shell", names)
	}
}
