package peers

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/rewind-agent/rewind/store"
)

// TestImportClaude10Sidechains imports Claude Code 1.0's files, which hold
// their sub-agents' records (isSidechain) in the parent's own file: each
// sub-agent run is a sub-agent session of its parent, linked to its Task
// call, typed and titled by it, as a newer version's sub-agent files are;
// the parent's view holds none of their messages. Importing again changes
// nothing, and a file imported half first ends as a whole import.
func TestImportClaude10Sidechains(t *testing.T) {
	t.Parallel()
	const home = "testdata/claude-1.0-home"
	check := func(t *testing.T, db *store.DB) {
		t.Helper()
		byTitle := sessionsByTitle(t, db)
		if len(byTitle) != 2 {
			t.Fatalf("listed sessions %v, want the two parents only", byTitle)
		}
		want := map[string][]string{
			"Delegate a look around.": {"Look around general-purpose 1 calls"},
			"Two helpers at once.":    {"Count files general-purpose 1 calls", "Show the date general-purpose 2 calls"},
		}
		for title, kidsWant := range want {
			parent := byTitle[title]
			calls := map[string]bool{}
			for _, m := range viewMessages(t, db, parent.ID) {
				for _, c := range m.ToolCalls {
					if c.Name != "Task" {
						t.Errorf("%s: the parent's view holds a %s call: a sidechain's", title, c.Name)
					}
					calls[c.ID] = true
				}
			}
			kids, err := db.SubagentsOf(context.Background(), []string{parent.ID})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, k := range kids {
				if !calls[k.SubagentCall] || k.Origin != store.OriginClaude || k.WorkDir != parent.WorkDir {
					t.Errorf("%s: sub-agent %+v: want it linked to one of the parent's Task calls %v", title, k, calls)
				}
				n := 0
				for _, m := range viewMessages(t, db, k.ID) {
					n += len(m.ToolCalls)
				}
				got = append(got, k.Title+" "+k.SubagentType+" "+string(rune('0'+n))+" calls")
			}
			sort.Strings(got)
			if len(got) != len(kidsWant) || len(got) > 0 && got[0] != kidsWant[0] || len(got) > 1 && got[1] != kidsWant[1] {
				t.Errorf("%s: sub-agents %q, want %q", title, got, kidsWant)
			}
		}
	}
	db := openDB(t)
	if res := importPath(t, db, home); res.Imported != 5 {
		t.Fatalf("import %+v, want 5 sessions (2 parents, 3 sub-agents)", res)
	}
	check(t, db)
	if res := importPath(t, db, home); res.Imported != 0 || res.Updated != 0 || res.Unchanged != 5 {
		t.Errorf("again: %+v, want 5 unchanged", res)
	}
	check(t, db)

	// The file of two sub-agents, cut in the middle of the second's run.
	rel := "projects/-tmp-peers-old-fx-owork/22db6885-bb01-4061-b2bb-47a323fac1a5.jsonl"
	whole, err := os.ReadFile(filepath.Join(home, rel))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(whole, []byte("\n"))
	grown := t.TempDir()
	path := filepath.Join(grown, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Join(lines[:11], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(grown, "projects/-tmp-peers-old-fx-owork/d363673b-8b91-43e1-bf8a-f9f9fc444a63.jsonl"),
		must(os.ReadFile(filepath.Join(home, "projects/-tmp-peers-old-fx-owork/d363673b-8b91-43e1-bf8a-f9f9fc444a63.jsonl"))), 0o644); err != nil {
		t.Fatal(err)
	}
	db = openDB(t)
	if res := importPath(t, db, grown); res.Imported != 5 {
		t.Fatalf("the half file: %+v, want 5 sessions (the second sub-agent has started)", res)
	}
	if err := os.WriteFile(path, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	if res := importPath(t, db, grown); res.Updated != 2 || res.Unchanged != 3 {
		t.Errorf("the whole file: %+v, want the parent and its second sub-agent updated", res)
	}
	check(t, db)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
