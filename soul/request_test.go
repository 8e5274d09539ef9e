package soul

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/store/message"
)

func call(id, name, args string) message.ToolCall {
	return message.ToolCall{ID: id, Type: "function", Name: name, Args: args}
}

func toolMsg(id, text string) message.Message {
	return message.Message{Role: "tool", Content: message.TextContent(text), ToolCallID: id}
}

func assistantCalls(calls ...message.ToolCall) message.Message {
	return message.Message{Role: "assistant", Content: message.Content{IsNull: true}, ToolCalls: calls}
}

// checkRequestValid fails unless msgs make a valid request (requestProblem).
func checkRequestValid(t *testing.T, msgs []message.Message) {
	t.Helper()
	if err := requestProblem(msgs); err != nil {
		t.Fatal(err)
	}
}

// requestProblem says why msgs are not a valid request: every assistant tool
// call must be followed by exactly its results in order, every tool message
// must answer a call, and every argument string must be a JSON object.
func requestProblem(msgs []message.Message) error {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == "tool" {
			return fmt.Errorf("message %d: tool result %q answers no preceding call", i, m.ToolCallID)
		}
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		for k, c := range m.ToolCalls {
			if c.ID == "" {
				return fmt.Errorf("message %d: call %d has no id", i, k)
			}
			var obj map[string]any
			if err := json.Unmarshal([]byte(c.Args), &obj); err != nil {
				return fmt.Errorf("message %d: call %s arguments %q are not a JSON object: %v", i, c.ID, c.Args, err)
			}
			j := i + 1 + k
			if j >= len(msgs) || msgs[j].Role != "tool" || msgs[j].ToolCallID != c.ID {
				return fmt.Errorf("message %d: call %s is not followed by its result", i, c.ID)
			}
		}
		i += len(m.ToolCalls)
	}
	return nil
}

func TestBuildRequestSanitises(t *testing.T) {
	t.Parallel()
	hist := []message.Message{
		message.NewText("user", "hi"),
		toolMsg("orphan", "no call before me"),
		assistantCalls(call("a", "ReadFile", `{"path":"x"}`), call("b", "Shell", `{"command": "ls"`), call("c", "Think", "")),
		toolMsg("c", "third"), // out of order
		toolMsg("a", "first"),
		toolMsg("a", "duplicate"),
		toolMsg("zzz", "stranger"),
		// b has no result at all
		message.NewText("user", "next"),
		assistantCalls(call("", "Glob", `[1,2]`), call("", "Glob", `{}`)),
		message.NewText("user", "and then"), // (two assistant messages in a row are one: mergeAnswers)
		{Role: "assistant", Content: message.Content{IsNull: true}},
	}
	orig, _ := json.Marshal(hist)
	out := buildRequest("SYS", hist)
	checkRequestValid(t, out)
	if out[0].Role != "system" || out[0].Content.Text != "SYS" {
		t.Fatalf("first message = %+v", out[0])
	}
	// The history itself is untouched.
	after, _ := json.Marshal(hist)
	if string(orig) != string(after) {
		t.Fatal("buildRequest modified its input")
	}
	// Results kept in call order with their texts; missing one filled.
	want := []string{"first", missingResult, "third"}
	for k, w := range want {
		if got := out[3+k].Content.PlainText(); got != w {
			t.Errorf("result %d = %q, want %q", k, got, w)
		}
	}
	if out[2].ToolCalls[0].Args != `{"path":"x"}` || out[2].ToolCalls[1].Args != "{}" || out[2].ToolCalls[2].Args != "{}" {
		t.Errorf("args = %q %q %q", out[2].ToolCalls[0].Args, out[2].ToolCalls[1].Args, out[2].ToolCalls[2].Args)
	}
	last := out[len(out)-1]
	if last.Role != "assistant" || last.Content.IsNull {
		t.Errorf("empty assistant message not given empty content: %+v", last.Content)
	}
	for _, m := range out {
		if strings.Contains(m.Content.PlainText(), "stranger") || strings.Contains(m.Content.PlainText(), "no call before me") || strings.Contains(m.Content.PlainText(), "duplicate") {
			t.Errorf("stray result sent: %q", m.Content.PlainText())
		}
	}
}

func TestSplitForCompaction(t *testing.T) {
	t.Parallel()
	hist := []message.Message{
		message.NewText("user", "<system>CHECKPOINT 0</system>"),
		message.NewText("user", "task one"),
		assistantCalls(call("a", "Shell", `{"command":"ls"}`)),
		toolMsg("a", "files"),
		message.NewText("assistant", "done one"),
		message.NewText("user", "<system>CHECKPOINT 3</system>"),
		message.NewText("user", "task two"),
		assistantCalls(call("b", "Shell", `{"command":"make"}`)),
		toolMsg("b", "ok"),
		message.NewText("user", "<system>CHECKPOINT 4</system>"),
	}
	toCompact, keep := splitForCompaction(hist)
	if len(keep) != 3 || keep[0].Content.PlainText() != "task two" || keep[2].Role != "tool" {
		t.Fatalf("preserved = %s", describe(keep))
	}
	if len(toCompact) != 4 || toCompact[0].Content.PlainText() != "task one" {
		t.Fatalf("to compact = %s", describe(toCompact))
	}
	for _, m := range append(toCompact, keep...) {
		if message.IsCheckpoint(m) {
			t.Errorf("checkpoint marker kept: %q", m.Content.PlainText())
		}
	}
	if c, k := splitForCompaction(hist[:2]); len(c) != 0 || len(k) != 1 {
		t.Errorf("short history: compact %d keep %d", len(c), len(k))
	}
}

func TestTruncateMessagesKeepsValidTail(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("word ", 2000)
	hist := []message.Message{
		message.NewText("user", "first "+big),
		assistantCalls(call("a", "Shell", `{}`)),
		toolMsg("a", big),
		message.NewText("user", "second"),
		assistantCalls(call("b", "Shell", `{}`)),
		toolMsg("b", "small"),
		message.NewText("assistant", "answer"),
	}
	kept, dropped := truncateMessages(hist, 500)
	if len(kept) == 0 || kept[0].Role != "user" || kept[0].Content.PlainText() != "second" {
		t.Fatalf("kept = %s", describe(kept))
	}
	if dropped != 3 || len(kept) != 4 {
		t.Fatalf("dropped %d kept %d", dropped, len(kept))
	}
	checkRequestValid(t, kept)

	// Nothing fits: the last user message survives, shortened.
	kept, _ = truncateMessages([]message.Message{message.NewText("user", big), message.NewText("assistant", big)}, 10)
	if len(kept) != 1 || kept[0].Role != "user" || len(kept[0].Content.PlainText()) >= len(big) {
		t.Fatalf("nothing-fits case kept %d messages", len(kept))
	}
}

func TestTitleFrom(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"\n\n  fix   the bug \nmore": "fix the bug",
		"":                           "",
		strings.Repeat("é", 100):     strings.Repeat("é", 79) + "…",
	}
	for in, want := range cases {
		if got := titleFrom(in); got != want {
			t.Errorf("titleFrom(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestElideKeepsUTF8(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("日本語", 1000)
	e := elide(s, 100)
	if !strings.Contains(e, "characters omitted") || !json.Valid([]byte(`"`+strings.ReplaceAll(e, "\n", `\n`)+`"`)) {
		t.Fatalf("elide broke the text: %q", e)
	}
	if elide("short", 100) != "short" {
		t.Fatal("short text changed")
	}
}

// describe is a short rendering of messages for failure output.
func describe(msgs []message.Message) string {
	var b strings.Builder
	for i, m := range msgs {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(m.Role)
		b.WriteString(":")
		b.WriteString(words.Clip(m.Content.PlainText(), 30))
		for _, c := range m.ToolCalls {
			b.WriteString(" call(" + c.ID + " " + c.Name + " " + words.Clip(c.Args, 20) + ")")
		}
		if m.ToolCallID != "" {
			b.WriteString(" for " + m.ToolCallID)
		}
	}
	return b.String()
}

func TestBuildRequestUsesImportedSystemPrompt(t *testing.T) {
	t.Parallel()
	msgs := []message.Message{
		message.NewText("_system_prompt", "imported prompt"),
		message.NewText("user", "hi"),
		message.NewText("_unknown", "never sent"),
		message.NewText("assistant", "hello"),
	}
	got := buildRequest("configured prompt", msgs)
	if len(got) != 3 {
		t.Fatalf("want system + 2 messages, got %d: %+v", len(got), got)
	}
	if got[0].Role != "system" || got[0].Content.PlainText() != "imported prompt" {
		t.Fatalf("system message = %+v, want the imported prompt", got[0])
	}
	for _, m := range got {
		if strings.HasPrefix(m.Role, "_") {
			t.Fatalf("pseudo-role %q sent to the model", m.Role)
		}
	}
}

func TestSplitImportedPromptKeepsItOutOfTheSummary(t *testing.T) {
	t.Parallel()
	msgs := []message.Message{
		message.NewText("_system_prompt", "imported prompt"),
		message.NewText("user", "a"),
		message.NewText("assistant", "b"),
	}
	prompt, rest := splitImportedPrompt(msgs)
	if len(prompt) != 1 || prompt[0].Content.PlainText() != "imported prompt" {
		t.Fatalf("prompt = %+v", prompt)
	}
	if len(rest) != 2 || rest[0].Role != "user" || rest[1].Role != "assistant" {
		t.Fatalf("rest = %+v", rest)
	}
}

// TestBuildRequestMergesAnAnswersLines: an imported answer is one
// assistant message per line of its source (reasoning, text, each call:
// codex and Claude Code write them so); the request sends them as one
// assistant message whose calls are each followed by exactly one result.
// Sent apart, the first call's result came after the second call's
// message: it got the "no result" placeholder and its real result was
// dropped as an orphan.
func TestBuildRequestMergesAnAnswersLines(t *testing.T) {
	think := message.Message{Role: "assistant", Content: message.Content{Parts: []message.Part{{Type: "think", Think: "plan"}}}}
	text := message.NewText("assistant", "Reading both.")
	msgs := []message.Message{
		message.NewText("user", "read a and b"),
		think, text,
		assistantCalls(call("c1", "ReadFile", `{"path":"a"}`)),
		assistantCalls(call("c2", "ReadFile", `{"path":"b"}`)),
		toolMsg("c1", "A"), toolMsg("c2", "B"),
		message.NewText("assistant", "Done."),
	}
	out := buildRequest("sys", msgs)
	checkRequestValid(t, out)
	if len(out) != 6 {
		t.Fatalf("got %d messages, want system, user, one assistant, two results, the answer: %+v", len(out), out)
	}
	a := out[2]
	if len(a.ToolCalls) != 2 || a.Content.Reasoning() != "plan" || a.Content.PlainText() != "Reading both." {
		t.Errorf("merged answer %+v: want both calls, the reasoning and the text", a)
	}
	if out[3].Content.PlainText() != "A" || out[4].Content.PlainText() != "B" {
		t.Errorf("results %q %q, want the real ones in call order", out[3].Content.PlainText(), out[4].Content.PlainText())
	}
	if len(msgs[3].ToolCalls) != 1 {
		t.Error("the view's messages were modified")
	}
}
