package timetravel

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/store/storetest"
)

// TestTurnsFoldStepsUnderPrompts: one turn per prompt, its steps under it,
// labels without markdown; a revert to a turn returns to its prompt and a
// revert to a step says what stays.
func TestTurnsFoldStepsUnderPrompts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testDB(t)
	s, err := db.CreateSession(ctx, store.NewSession{Title: "turns"})
	if err != nil {
		t.Fatal(err)
	}
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	turn := func(prompt string, steps ...message.Message) {
		must(db.Checkpoint(ctx, s.ID, false))
		must(db.AppendMessage(ctx, s.ID, message.NewText("user", prompt)))
		for _, a := range steps {
			must(db.Checkpoint(ctx, s.ID, false))
			must(db.CommitStep(ctx, s.ID, store.Step{Assistant: a}))
		}
	}
	shell := message.Message{Role: "assistant", ToolCalls: []message.ToolCall{{ID: "c", Name: "Shell", Args: `{"command":"go test"}`}}}
	turn("**fix** the build", shell, message.NewText("assistant", "## Done\nall green"))
	turn("run the loop", message.NewText("assistant", "ran"))

	v, err := db.View(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	turns := Turns(v)
	if len(turns) != 2 || turns[0].Checkpoint != 0 || turns[1].Checkpoint != 3 || len(turns[0].Steps) != 2 || len(turns[1].Steps) != 1 {
		t.Fatalf("turns: %+v", turns)
	}
	if got := turns[0].Label(); got != "fix the build" {
		t.Errorf("turn label %q", got)
	}
	if got := turns[0].Steps[0].String(); got != "step 1 · Shell go test" {
		t.Errorf("step label %q", got)
	}
	if got := turns[0].Steps[1].String(); got != "step 2 · answer: Done" {
		t.Errorf("answer label %q", got)
	}

	env := Env{DB: db, Session: s}
	p, err := PlanRevert(ctx, env, 3, Check{})
	if err != nil || p.ReturnTo != "run the loop" || p.Keeps != "" || p.Messages != 2 {
		t.Errorf("revert to turn 2: %+v %v", p, err)
	}
	p, err = PlanRevert(ctx, env, 2, Check{})
	if err != nil || p.ReturnTo != "" || p.Keeps != "You keep “fix the build” and its step 1; step 2 · answer: Done and everything after are archived." {
		t.Errorf("revert to a step: ReturnTo %q Keeps %q %v", p.ReturnTo, p.Keeps, err)
	}
}

// TestTurnBuilderAddsRecordsAsTheyCome: a builder fed a view's records in
// two parts, split anywhere (mid-turn, between a checkpoint and its
// message), reads the same turns as Turns on the whole view, and asking
// for the turns midway does not change what follows.
func TestTurnBuilderAddsRecordsAsTheyCome(t *testing.T) {
	t.Parallel()
	rec := func(kind store.Kind, cp int, m message.Message) store.Record {
		r := store.Record{Kind: kind, CheckpointID: cp, TokenCount: 7 * cp}
		if kind == store.KindMessage {
			r.Role = m.Role
			r.Body, _ = m.MarshalJSON()
		}
		return r
	}
	shell := message.Message{Role: "assistant", ToolCalls: []message.ToolCall{{ID: "c", Name: "Shell", Args: `{"command":"ls"}`}}}
	recs := []store.Record{
		rec(store.KindMessage, 0, message.NewText("user", "before any checkpoint")),
		rec(store.KindCheckpoint, 0, message.Message{}),
		rec(store.KindMessage, 0, message.NewText("user", "first")),
		rec(store.KindCheckpoint, 1, message.Message{}),
		rec(store.KindMessage, 0, shell),
		rec(store.KindUsage, 3, message.Message{}),
		rec(store.KindCheckpoint, 2, message.Message{}),
		rec(store.KindMessage, 0, message.NewText("assistant", "done")),
		rec(store.KindCheckpoint, 3, message.Message{}),
		rec(store.KindMessage, 0, message.NewText("user", "second")),
		rec(store.KindCheckpoint, 4, message.Message{}),
	}
	for n := 0; n <= len(recs); n++ {
		want := Turns(store.View{Records: recs})
		var b TurnBuilder
		b.Add(recs[:n]...)
		if mid := b.Turns(); !reflect.DeepEqual(mid, Turns(store.View{Records: recs[:n]})) {
			t.Fatalf("split at %d: the first part's turns\n%+v\nwant\n%+v", n, mid, Turns(store.View{Records: recs[:n]}))
		}
		b.Add(recs[n:]...)
		if got := b.Turns(); !reflect.DeepEqual(got, want) {
			t.Fatalf("split at %d:\n%+v\nwant\n%+v", n, got, want)
		}
		if k := min(n, len(want)-1); !reflect.DeepEqual(b.TurnsFrom(k), want[k:]) {
			t.Fatalf("TurnsFrom(%d):\n%+v\nwant\n%+v", k, b.TurnsFrom(k), want[k:])
		}
	}
}

// TestTurnBuilderPrependsEarlierRecords: a builder that read the tail of a
// view and is then given the records before it, split anywhere, reads the
// same turns as Turns on the whole view and goes on as it would; in a
// long view it reads again only the first records of the tail (up to the
// second prompt: the first turn's tokens come from before it), not the whole tail: a session loaded page by page read
// every page again each time.
func TestTurnBuilderPrependsEarlierRecords(t *testing.T) {
	t.Parallel()
	rec := func(kind store.Kind, cp int, m message.Message) store.Record {
		r := store.Record{Kind: kind, CheckpointID: cp, TokenCount: 7 * cp}
		if kind == store.KindMessage {
			r.Role = m.Role
			r.Body, _ = m.MarshalJSON()
		}
		return r
	}
	shell := message.Message{Role: "assistant", ToolCalls: []message.ToolCall{{ID: "c", Name: "Shell", Args: `{"command":"ls"}`}}}
	mixed := []store.Record{
		rec(store.KindMessage, 0, message.NewText("user", "before any checkpoint")),
		rec(store.KindCheckpoint, 0, message.Message{}),
		rec(store.KindMessage, 0, message.NewText("user", "first")),
		rec(store.KindCheckpoint, 1, message.Message{}),
		rec(store.KindMessage, 0, shell),
		rec(store.KindUsage, 3, message.Message{}),
		rec(store.KindMessage, 0, message.NewText("user", "injected")),
		rec(store.KindCheckpoint, 2, message.Message{}),
		rec(store.KindMessage, 0, message.NewText("assistant", "done")),
		rec(store.KindCheckpoint, 3, message.Message{}),
		rec(store.KindMessage, 0, message.NewText("user", "second")),
		rec(store.KindUsage, 5, message.Message{}),
		rec(store.KindCheckpoint, 4, message.Message{}),
		rec(store.KindMessage, 0, shell),
		rec(store.KindCheckpoint, 5, message.Message{}),
	}
	for _, recs := range [][]store.Record{mixed, longRecords(3)} {
		for end := 1; end <= len(recs); end++ { // the view so far, then what it gains
			for n := 0; n <= end; n++ {
				var b TurnBuilder
				b.Add(recs[n:end]...)
				b.Prepend(recs[:n], recs[n:end])
				if got, want := b.Turns(), Turns(store.View{Records: recs[:end]}); !reflect.DeepEqual(got, want) {
					t.Fatalf("%d records, the first %d prepended:\n%+v\nwant\n%+v", end, n, got, want)
				}
				b.Add(recs[end:]...)
				if got, want := b.Turns(), Turns(store.View{Records: recs}); !reflect.DeepEqual(got, want) {
					t.Fatalf("%d records, the first %d prepended, then the rest:\n%+v\nwant\n%+v", end, n, got, want)
				}
			}
		}
	}

	long := longRecords(1000) // 7,000 records
	var b TurnBuilder
	b.Add(long[6300:]...)
	read, reread := long[6300:], 0
	for start := 6300; start > 0; start -= 700 {
		reread += b.Prepend(long[start-700:start], read)
		read = long[start-700:]
	}
	if got, want := b.Turns(), Turns(store.View{Records: long}); !reflect.DeepEqual(got, want) {
		t.Fatalf("after nine pages the turns differ from the whole view's (%d and %d turns)", len(got), len(want))
	}
	if reread > 9*9 {
		t.Errorf("nine pages read %d records of the tail again, want at most a turn and the next prompt (9) each", reread)
	}
}

// TestPlanRevertInALongTurn: a revert planned deep in a long view reads
// only the pages around the checkpoint, and says what a read of the whole
// view says, also for a step whose turn started pages of records before
// it, and for the checkpoints at the start and end of the view.
func TestPlanRevertInALongTurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testDB(t)
	recs := longRecords(300) // 2,100 records: checkpoints 0–599
	long := longRecords(1)
	long[1].Body, _ = json.Marshal(message.NewText("user", "the long turn"))
	recs = append(recs, long[:2]...)
	recs[len(recs)-2].CheckpointID = 600
	for i := range 800 { // one turn of 800 steps, 2,400 records
		recs = append(recs, store.Record{Kind: store.KindCheckpoint, CheckpointID: 601 + i}, long[2], long[3])
	}
	s, err := db.ImportSession(ctx, store.NewSession{Title: "long"}, []store.ImportedGeneration{{Records: recs}})
	if err != nil {
		t.Fatal(err)
	}
	env := Env{DB: db, Session: s}
	whole, err := db.View(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, cp := range []int{0, 1, 299, 598, 599, 600, 601, 1000, 1400} {
		p, err := PlanRevert(ctx, env, cp, Check{})
		if err != nil {
			t.Fatalf("plan a revert to %d: %v", cp, err)
		}
		if want := planFromView(t, whole, cp); p.Messages != want.Messages || p.ReturnTo != want.ReturnTo || p.Keeps != want.Keeps || p.seq != want.seq {
			t.Errorf("plan of a revert to %d: %+v, the whole view's %+v", cp, p, want)
		}
	}
	p, err := PlanRevert(ctx, env, 1400, Check{})
	if err != nil || !strings.HasPrefix(p.Keeps, "You keep “the long turn” and its steps 1–799; step 800 · Shell echo 0") {
		t.Errorf("revert to the long turn's last step keeps %q (%v)", p.Keeps, err)
	}
	if _, err := PlanRevert(ctx, env, 5000, Check{}); !errors.Is(err, store.ErrCheckpointNotFound) {
		t.Errorf("plan of a revert to a checkpoint not in the view: %v, want ErrCheckpointNotFound", err)
	}
}

// testDB is a real store in a temp dir, closed when the test ends.
func testDB(t *testing.T) *store.DB {
	t.Helper()
	db := storetest.Open(t)
	return db
}

// TestStepLabelsAreTheToolsOwn: a step is named by its calls' own labels,
// the ones the conversation shows (Grep by its pattern, not its path;
// SendDMail by its checkpoint), and an MCP tool by its key argument.
func TestStepLabelsAreTheToolsOwn(t *testing.T) {
	t.Parallel()
	m := message.Message{Role: "assistant", ToolCalls: []message.ToolCall{
		{ID: "a", Name: "Grep", Args: `{"pattern":"TODO","path":"src"}`},
		{ID: "b", Name: "SendDMail", Args: `{"message":"use the cache","checkpoint_id":2}`},
		{ID: "c", Name: "mcp__gh__search", Args: `{"query":"is:open"}`},
		{ID: "d", Name: "Think", Args: `{"thought":"**plan** it\nthen act"}`},
	}}
	if got, want := stepLabel(m), "Grep TODO, SendDMail → checkpoint 2, mcp__gh__search is:open, Think **plan** it"; got != want {
		t.Errorf("step label %q, want %q", got, want)
	}
}

// TestCompactedTurnIsLabelledAsSummary: a compacted generation starts with
// checkpoint 0 and the summary (as kimi-cli writes it); its row says it is
// the compaction, not the summary's first heading as if typed.
func TestCompactedTurnIsLabelledAsSummary(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testDB(t)
	s, err := db.CreateSession(ctx, store.NewSession{Title: "compacted"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.StartTurn(ctx, s.ID, true, message.NewText("user", "first")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.StartCompacted(ctx, s.ID, []message.Message{message.Compaction("## Current focus\nthe parser")}, 0, 10, true); err != nil {
		t.Fatal(err)
	}
	v, err := db.View(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	turns := Turns(v)
	if len(turns) != 1 || turns[0].Checkpoint != 0 || !turns[0].Summary || turns[0].Label() != "compacted: Current focus" {
		t.Fatalf("turns %+v, label %q", turns, turns[0].Label())
	}
}
