package kimi

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// TestExportWritesAsKimiDoes: a rewind-native session with a revert, a
// compaction and a D-Mail exports as the files kimi-cli would have
// written: each starts with the _system_prompt line, a compacted context
// with _checkpoint 0 before its summary, and each step's _usage right
// after the assistant message (before the tool results). The directory
// imports back to the same generations.
func TestExportWritesAsKimiDoes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	s, err := db.CreateSession(ctx, store.NewSession{Title: "t", WorkDir: "/w", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	step := func(prompt string) {
		t.Helper()
		if _, err := db.StartTurn(ctx, s.ID, true, message.NewText("user", prompt)); err != nil {
			t.Fatal(err)
		}
		asst := message.NewText("assistant", "")
		asst.ToolCalls = []message.ToolCall{{ID: "c-" + prompt, Name: "Shell", Args: `{"command":"ls"}`}}
		if _, err := db.CommitStep(ctx, s.ID, store.Step{Assistant: asst, TokenCount: 120,
			ToolResults: []message.Message{{Role: "tool", ToolCallID: "c-" + prompt, Content: message.TextContent("a.go")}}}); err != nil {
			t.Fatal(err)
		}
	}
	step("one")
	step("two")
	if _, err := db.RevertTo(ctx, s.ID, 1, store.CauseRevert, ""); err != nil {
		t.Fatal(err)
	}
	step("three")
	if _, err := db.StartCompacted(ctx, s.ID, []message.Message{message.Compaction("what happened")}, 1, 40, true); err != nil {
		t.Fatal(err)
	}
	step("four")
	if _, err := db.RevertTo(ctx, s.ID, 1, store.CauseBacktrack, "try b"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.StartTurn(ctx, s.ID, true, message.DMail("try b")); err != nil {
		t.Fatal(err)
	}

	dir := filepath.Join(t.TempDir(), "kimi-session")
	files, err := ExportSession(ctx, db, s.ID, dir, "You are rewind. <tools> & more", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Fatalf("files %v", files)
	}
	lines := func(name string) []string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	}
	for _, f := range files {
		if l := lines(filepath.Base(f)); l[0] != `{"role":"_system_prompt","content":"You are rewind. <tools> & more"}` {
			t.Errorf("%s starts with %s", filepath.Base(f), l[0])
		}
	}
	// context_3.jsonl is the compacted generation (archived by the D-Mail).
	compacted := lines("context_3.jsonl")
	if len(compacted) < 5 || compacted[1] != `{"role":"_checkpoint","id":0}` ||
		!strings.Contains(compacted[2], "CHECKPOINT 0") || !strings.Contains(compacted[3], "what happened") ||
		compacted[4] != `{"role":"_usage","token_count":40}` {
		t.Fatalf("the compacted context is not written as kimi-cli writes one:\n%s", strings.Join(compacted, "\n"))
	}
	for i, l := range compacted {
		if strings.Contains(l, `"tool_calls"`) && (i+2 >= len(compacted) || compacted[i+1] != `{"role":"_usage","token_count":120}` || !strings.Contains(compacted[i+2], `"role":"tool"`)) {
			t.Fatalf("a step's _usage is not right after its assistant message:\n%s", strings.Join(compacted, "\n"))
		}
	}

	// An imported session's own system prompt is kept, never doubled.
	back, err := ImportPath(ctx, db, dir, "/w")
	if err != nil {
		t.Fatal(err)
	}
	gens, err := db.Generations(ctx, back.ID)
	if err != nil || len(gens) != 4 {
		t.Fatalf("re-imported %d generations (%v)", len(gens), err)
	}
	for i, f := range files {
		got := export(t, db, back.ID, i)
		var b strings.Builder
		if err := Export(ctx, db, back.ID, i, "another prompt", &b); err != nil {
			t.Fatal(err)
		}
		if b.String() != string(got) || strings.Count(b.String(), "_system_prompt") != 1 {
			t.Errorf("%s: a second system prompt was added to an imported one", filepath.Base(f))
		}
		assertSameContext(t, got, readFile(t, f), "re-import "+filepath.Base(f))
	}
}
