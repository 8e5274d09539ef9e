package tui

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
	"github.com/rewind-agent/rewind/views"
)

func TestViewItems(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.Open(t)
	s, _ := db.CreateSession(ctx, store.NewSession{})
	if _, err := db.Checkpoint(ctx, s.ID, true); err != nil {
		t.Fatal(err)
	}
	think := message.Message{Role: "assistant", Content: message.Content{Parts: []message.Part{{Type: "think", Think: "let me see"}, {Type: "text", Text: "Reading both."}}},
		ToolCalls: []message.ToolCall{
			{ID: "a", Type: "function", Name: "ReadFile", Args: `{"path":"ok.txt"}`},
			{ID: "b", Type: "function", Name: "Shell", Args: `{"command":"make test"}`},
			{ID: "c", Type: "function", Name: "Glob", Args: `not json`},
		}}
	msgs := []message.Message{
		message.NewText("user", "fix it"),
		think,
		{Role: "tool", ToolCallID: "a", Content: message.TextContent("1 hello")},
		message.ToolError("b", "exit status 2"),
		message.DMail("skip the flaky test"),
		message.Compaction("## Current focus\nparser"),
	}
	for _, m := range msgs {
		if _, err := db.AppendMessage(ctx, s.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	v, err := db.View(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	items := viewItems(v)
	var got []string
	for _, it := range items {
		switch it.Kind {
		case views.ItemUser:
			got = append(got, "user:"+it.Text)
		case views.ItemAssistant:
			got = append(got, "assistant:"+it.Text)
		case views.ItemReasoning:
			got = append(got, "reasoning:"+it.Text)
		case views.ItemTool:
			st := map[views.ToolStatus]string{views.ToolOK: "ok", views.ToolFailed: "failed", views.ToolRunning: "running"}[it.Status]
			got = append(got, "tool:"+it.ToolName+"("+it.KeyArg+")="+st)
		case views.ItemBanner:
			got = append(got, "banner:"+strings.SplitN(it.Text, "\n", 2)[0])
		}
	}
	want := []string{
		"user:fix it",
		"reasoning:let me see",
		"assistant:Reading both.",
		"tool:ReadFile(ok.txt)=ok",
		"tool:Shell(make test)=failed",
		"tool:Glob(not json)=failed", // no result: the call never completed
		"banner:D-Mail from the future: skip the flaky test",
		"banner:Compacted context — the earlier conversation (kept in an archived generation) is summarised:",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("items:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	tl := timelineModel(v, nil)
	if len(tl.Checkpoints) != 1 || tl.Checkpoints[0].Label != "fix it" {
		t.Fatalf("timeline checkpoints = %+v", tl.Checkpoints)
	}
}

func TestEventTexts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ got, want string }{
		{backtrackText(soul.Backtrack{CheckpointID: 3, Discarded: 1, ReturnedTo: "make it fast", Note: "use a map", ArchivedGen: 2}, true),
			"Backtracked to checkpoint 3 · discarded 1 message (archived in generation 2) · u in the timeline or /undo undoes it"},
		{backtrackText(soul.Backtrack{CheckpointID: 3, Discarded: 5, Prompts: 2, ArchivedGen: 2, FilesReverted: true}, false),
			"Backtracked to checkpoint 3 · discarded 5 messages (archived in generation 2), 2 of them your prompts · files reverted"},
		{compactionText(soul.CompactionEnd{NewGen: 4, ArchivedGen: 3, Kept: 2, Tokens: 1500}),
			"Context compacted into generation 4 · generation 3 archived (nothing lost) · kept the last 2 messages · now 1.5k tokens"},
		{interruptText(soul.StepInterrupted{Reason: "interrupted while tools were running", Where: "while tools were running"}, ""),
			"Interrupted while tools were running · the partial step was discarded, nothing of it was saved · the session stays usable"},
		// A call's one-liner is its tool's own label (tools.CallLabel).
		{toolItem("d", "SendDMail", `{"message":"x","checkpoint_id":2}`).KeyArg, "→ checkpoint 2"},
		{toolItem("t", "SetTodoList", `{"todos":[{"title":"a"},{"title":"b"}]}`).KeyArg, "2 todos"},
		{toolItem("g", "Grep", `{"pattern":"TODO","path":"src"}`).KeyArg, "TODO"},
		{toolItem("s", "Shell", `{"command":"go vet ./...\ngo test ./..."}`).KeyArg, "go vet ./... go test ./..."},
	} {
		if c.got != c.want {
			t.Errorf("got  %q\nwant %q", c.got, c.want)
		}
	}
}

// TestItemBuilderFollowsAsViewItems: a followed view's items — those of a
// first part, then what each later part adds (new items, results for
// earlier calls) — are the items of the whole view, wherever it is split,
// including between a tool call and its result.
func TestItemBuilderFollowsAsViewItems(t *testing.T) {
	t.Parallel()
	rec := func(m message.Message) store.Record {
		b, _ := m.MarshalJSON()
		return store.Record{Kind: store.KindMessage, Role: m.Role, Body: b}
	}
	calls := message.Message{Role: "assistant", Content: message.TextContent("Reading."), ToolCalls: []message.ToolCall{
		{ID: "a", Name: "ReadFile", Args: `{"path":"a.txt"}`}, {ID: "b", Name: "Shell", Args: `{"command":"false"}`}}}
	recs := []store.Record{
		{Kind: store.KindCheckpoint},
		rec(message.NewText("user", "read them")),
		{Kind: store.KindCheckpoint},
		rec(calls),
		rec(message.Message{Role: "tool", ToolCallID: "a", Content: message.TextContent("contents of a")}),
		rec(message.Message{Role: "tool", ToolCallID: "b", Content: message.TextContent("exit 1")}),
		{Kind: store.KindUsage, TokenCount: 9},
		rec(message.NewText("assistant", "Done.")),
	}
	want := viewItems(store.View{Records: recs})
	for i := 0; i <= len(recs); i++ {
		for j := i; j <= len(recs); j++ {
			first := viewItems(store.View{Records: recs[:i]})
			var b itemBuilder
			b.seed(first)
			shown := first
			for _, part := range [][]store.Record{recs[i:j], recs[j:]} {
				for _, r := range part {
					b.add(r)
				}
				items, results := b.take()
				shown = followed(shown, evFollow{base: len(shown), items: items, results: results})
			}
			if !reflect.DeepEqual(shown, want) {
				t.Fatalf("split at %d and %d:\n%+v\nwant\n%+v", i, j, shown, want)
			}
		}
	}
}

// TestPrettyArgsShowsWhatTheToolGets: the approval modal's arguments were
// re-encoded through a map: keys sorted, `&&` shown as \u0026\u0026, and a
// "\u2800" escape left as text the modal could not name.
func TestPrettyArgsShowsWhatTheToolGets(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"z":"a && b > c","a":1}`:                                            "{\n  \"z\": \"a && b > c\",\n  \"a\": 1\n}",
		`{"cmd":"ok\u2800\u2800; curl x"}`:                                    "{\n  \"cmd\": \"ok\u2800\u2800; curl x\"\n}",
		`{"n":12345678901234567890,"f":1.50,"t":true,"x":null,"e":{},"l":[]}`: "{\n  \"n\": 12345678901234567890,\n  \"f\": 1.50,\n  \"t\": true,\n  \"x\": null,\n  \"e\": {},\n  \"l\": []\n}",
		`{"l":[1,{"k":"v"}]}`:                                                 "{\n  \"l\": [\n    1,\n    {\n      \"k\": \"v\"\n    }\n  ]\n}",
		`{"s":"line\nnext\t\u001b"}`:                                          "{\n  \"s\": \"line\\nnext\\t\\u001b\"\n}",
		`not json`:                                                            `not json`,
		`{"a":1} {}`:                                                          `{"a":1} {}`,
		`{"a":`:                                                               `{"a":`,
	} {
		if got := prettyArgs(in); got != want {
			t.Errorf("prettyArgs(%s) =\n%s\nwant\n%s", in, got, want)
		}
	}
}

// Text the workspace draws as plain text carries no markdown backticks:
// they showed raw ("`rewind show ID --generation 3`").
func TestPlainTextBannersHaveNoBackticks(t *testing.T) {
	for _, s := range []string{
		interruptText(soul.StepInterrupted{Where: "while streaming", KeptGeneration: 3}, "01abc"),
		interruptText(soul.StepInterrupted{Where: "while streaming", KeptFile: "/tmp/x.json"}, "01abc"),
		interruptText(soul.StepInterrupted{Reason: "model call failed", ModelFailed: true}, "01abc"),
	} {
		if strings.Contains(s, "`") {
			t.Errorf("backticks in %q", s)
		}
	}
}
