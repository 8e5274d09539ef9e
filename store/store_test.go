package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store/message"
)

var bg = context.Background()

func newSession(t testing.TB, db *DB, title, dir string) Session {
	t.Helper()
	s, err := db.CreateSession(bg, NewSession{Title: title, WorkDir: dir, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// texts is a view's message texts, "role:text", for compact comparisons.
func texts(v View) []string {
	var out []string
	for _, m := range v.Messages() {
		s := m.Content.PlainText()
		if len(m.ToolCalls) > 0 {
			s += "+calls"
		}
		out = append(out, m.Role+":"+s)
	}
	return out
}

// checkCounters compares the stored counters with counting the view.
func checkCounters(t testing.TB, db *DB, sid string) View {
	t.Helper()
	v := must[View](t)(db.View(bg, sid))
	msgs, next, tokens := 0, 0, 0
	for _, r := range v.Records {
		switch r.Kind {
		case KindMessage:
			msgs++
		case KindCheckpoint:
			next = r.CheckpointID + 1
		case KindUsage:
			tokens = r.TokenCount
		}
	}
	g := v.Generation
	if g.Messages != msgs || g.NextCheckpointID != next || g.Tokens != tokens || v.Tokens != tokens || v.NextCheckpointID != next {
		t.Fatalf("counters messages=%d next=%d tokens=%d (view %d/%d), counted %d/%d/%d",
			g.Messages, g.NextCheckpointID, g.Tokens, v.NextCheckpointID, v.Tokens, msgs, next, tokens)
	}
	s := must[Session](t)(db.GetSession(bg, sid))
	if s.Messages != msgs || s.Checkpoints != next || s.Tokens != tokens || s.CurrentGen != g.Gen {
		t.Fatalf("session counters %+v, counted %d/%d/%d gen %d", s, msgs, next, tokens, g.Gen)
	}
	for i := 1; i < len(v.Records); i++ {
		if v.Records[i].SessionID == v.Records[i-1].SessionID && v.Records[i].Seq <= v.Records[i-1].Seq {
			t.Fatalf("records out of order at %d", i)
		}
	}
	return v
}

func countRows(t testing.TB, db *DB, table string) int {
	t.Helper()
	var n int
	if err := db.Reader().QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// turn appends checkpoint (with marker), a user message and one step.
func turn(t testing.TB, db *DB, sid string, text string, tokens int) int {
	t.Helper()
	id := must[int](t)(db.Checkpoint(bg, sid, true))
	must[Record](t)(db.AppendMessage(bg, sid, message.NewText("user", text)))
	asst := message.NewText("assistant", "")
	asst.ToolCalls = []message.ToolCall{{ID: "c1", Name: "Shell", Args: `{"command":"ls ` + text + `"}`}}
	must[[]Record](t)(db.CommitStep(bg, sid, Step{
		Assistant:   asst,
		ToolResults: []message.Message{{Role: "tool", ToolCallID: "c1", Content: message.TextContent("out " + text)}},
		TokenCount:  tokens,
	}))
	return id
}

func TestSessions(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	a := newSession(t, db, "alpha", "/w/a")
	b := newSession(t, db, "", "/w/b")
	c := newSession(t, db, "gamma", "/w/a")
	if a.CurrentGen != 0 || a.Generations != 1 || a.ID != strings.ToLower(a.ID) || len(a.ID) != 26 {
		t.Fatalf("new session %+v", a)
	}
	gens := must[[]Generation](t)(db.Generations(bg, a.ID))
	if len(gens) != 1 || gens[0].Cause != CauseStart || gens[0].Archived() {
		t.Fatalf("gens %+v", gens)
	}
	must[Record](t)(db.AppendMessage(bg, b.ID, message.NewText("user", "hi")))

	ids := func(o ListOptions) string {
		var out []string
		for _, s := range must[[]Session](t)(db.ListSessions(bg, o)) {
			out = append(out, s.Title)
		}
		return strings.Join(out, ",")
	}
	if err := db.SetTitleIfEmpty(bg, b.ID, "beta"); err != nil {
		t.Fatal(err)
	}
	if err := db.SetTitleIfEmpty(bg, a.ID, "not this"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		o    ListOptions
		want string
	}{
		{"all newest first", ListOptions{}, "beta,gamma,alpha"},
		{"work dir", ListOptions{WorkDir: "/w/a"}, "gamma,alpha"},
		{"limit", ListOptions{Limit: 1}, "beta"},
	}
	// b was updated by its append after c was created; make the order
	// unambiguous even within one millisecond.
	if _, err := db.writer.Exec("UPDATE sessions SET updated_at = updated_at + 10 WHERE id = ?", b.ID); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ids(tc.o); got != tc.want {
				t.Fatalf("got %s want %s", got, tc.want)
			}
		})
	}
	if err := db.RenameSession(bg, c.ID, "gamma2"); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteSession(bg, c.ID); err != nil {
		t.Fatal(err)
	}
	if got := ids(ListOptions{}); got != "beta,alpha" {
		t.Fatalf("after delete: %s", got)
	}
	if got := ids(ListOptions{IncludeDeleted: true}); got != "beta,gamma2,alpha" {
		t.Fatalf("include deleted: %s", got)
	}
	if s := must[Session](t)(db.GetSession(bg, c.ID)); !s.Deleted || s.Title != "gamma2" {
		t.Fatalf("deleted session %+v", s)
	}
	if err := db.UndeleteSession(bg, c.ID); err != nil {
		t.Fatal(err)
	}
	if got := ids(ListOptions{}); got != "beta,gamma2,alpha" {
		t.Fatalf("after undelete: %s", got)
	}

	// Prefixes: a unique prefix resolves, a shared one is ambiguous.
	if s := must[Session](t)(db.GetSession(bg, a.ID[:25])); s.ID != a.ID {
		t.Fatalf("prefix got %s", s.ID)
	}
	if s := must[Session](t)(db.GetSession(bg, strings.ToUpper(a.ID))); s.ID != a.ID {
		t.Fatalf("upper case id got %s", s.ID)
	}
	if _, err := db.GetSession(bg, a.ID[:1]); !errors.Is(err, ErrAmbiguousID) {
		t.Fatalf("short prefix: %v", err)
	}
	for _, id := range []string{"zzzz", "", a.ID + "x"} {
		if _, err := db.GetSession(bg, id); !errors.Is(err, ErrSessionNotFound) {
			t.Fatalf("missing %q: %v", id, err)
		}
	}
	for name, err := range map[string]error{
		"rename": db.RenameSession(bg, "nope", "x"),
		"delete": db.DeleteSession(bg, "nope"),
	} {
		if !errors.Is(err, ErrSessionNotFound) || !strings.Contains(err.Error(), "nope") {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := db.AppendMessage(bg, "nope", message.NewText("user", "x")); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("append to missing: %v", err)
	}
}

func TestCheckpointAndAppend(t *testing.T) {
	t.Parallel()
	for _, withMsg := range []bool{false, true} {
		t.Run(fmt.Sprint("user message ", withMsg), func(t *testing.T) {
			db := openTest(t)
			s := newSession(t, db, "t", "/w")
			for want := 0; want < 3; want++ {
				id := must[int](t)(db.Checkpoint(bg, s.ID, withMsg))
				if id != want {
					t.Fatalf("checkpoint id %d want %d", id, want)
				}
			}
			must[Record](t)(db.AppendUsage(bg, s.ID, 77))
			v := checkCounters(t, db, s.ID)
			wantRecords := 4
			if withMsg {
				wantRecords = 7
				if got := texts(v); strings.Join(got, "|") != "user:<system>CHECKPOINT 0</system>|user:<system>CHECKPOINT 1</system>|user:<system>CHECKPOINT 2</system>" {
					t.Fatalf("messages %v", got)
				}
			}
			if len(v.Records) != wantRecords || v.Tokens != 77 || v.NextCheckpointID != 3 {
				t.Fatalf("view %d records tokens %d next %d", len(v.Records), v.Tokens, v.NextCheckpointID)
			}
		})
	}
}

func TestCommitStepAtomic(t *testing.T) {
	// Not parallel: it sets the package-global afterInsertHook.
	db := openTest(t)
	s := newSession(t, db, "t", "/w")
	turn(t, db, s.ID, "first", 10)
	before := checkCounters(t, db, s.ID)
	step := Step{
		Assistant: message.Message{Role: "assistant", Content: message.Content{IsNull: true},
			ToolCalls: []message.ToolCall{{ID: "a", Name: "Shell", Args: "{}"}, {ID: "b", Name: "Shell", Args: "{}"}}},
		ToolResults: []message.Message{message.NewText("tool", "ra"), message.NewText("tool", "rb")},
		TokenCount:  99,
	}
	bad := step
	bad.ToolResults = []message.Message{message.NewText("tool", "ra"), {Role: "tool", Extra: map[string]json.RawMessage{"x": json.RawMessage("{nope")}}}
	cases := []struct {
		name  string
		ctx   func() context.Context
		step  Step
		hook  func(Record) error
		match func(error) bool
	}{
		{"invalid tool result body", func() context.Context { return bg }, bad, nil, nil},
		{"failure after assistant", func() context.Context { return bg }, step, func(r Record) error {
			if r.Role == "assistant" {
				return errors.New("injected")
			}
			return nil
		}, nil},
		{"failure at usage", func() context.Context { return bg }, step, func(r Record) error {
			if r.Kind == KindUsage {
				return errors.New("injected")
			}
			return nil
		}, nil},
		{"context cancelled mid-step", func() context.Context { return bg }, step, nil, func(err error) bool { return errors.Is(err, context.Canceled) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx()
			hook := tc.hook
			if tc.match != nil {
				c, cancel := context.WithCancel(bg)
				ctx = c
				hook = func(r Record) error {
					if r.Role == "tool" {
						cancel()
					}
					return nil
				}
			}
			afterInsertHook = hook
			_, err := db.CommitStep(ctx, s.ID, tc.step)
			afterInsertHook = nil
			if err == nil {
				t.Fatal("step committed")
			}
			if tc.match != nil && !tc.match(err) {
				t.Fatalf("error %v", err)
			}
			after := checkCounters(t, db, s.ID)
			if len(after.Records) != len(before.Records) || after.Tokens != before.Tokens {
				t.Fatalf("partial step visible: %d → %d records", len(before.Records), len(after.Records))
			}
			var n int
			if err := db.Reader().QueryRow("SELECT count(*) FROM context_fts WHERE context_fts MATCH 'ra'").Scan(&n); err != nil || n != 0 {
				t.Fatalf("search index kept %d rows of the failed step (%v)", n, err)
			}
		})
	}
	recs := must[[]Record](t)(db.CommitStep(bg, s.ID, step))
	if len(recs) != 4 || recs[1].Kind != KindUsage || recs[0].Seq+3 != recs[3].Seq || recs[3].Role != "tool" {
		t.Fatalf("records %+v", recs)
	}
	if v := checkCounters(t, db, s.ID); v.Tokens != 99 || len(v.Records) != len(before.Records)+4 {
		t.Fatalf("after good step: %d records %d tokens", len(v.Records), v.Tokens)
	}
}

// TestStartTurnAtomic: a turn's checkpoint, its marker and its prompt are
// one transaction: a failure at the prompt leaves neither the checkpoint
// nor the marker (an empty turn in the timeline, a stray marker sent to
// the model).
func TestStartTurnAtomic(t *testing.T) {
	// Not parallel: it sets the package-global afterInsertHook.
	db := openTest(t)
	s := newSession(t, db, "t", "/w")
	turn(t, db, s.ID, "first", 10)
	before := checkCounters(t, db, s.ID)
	prompt := message.NewText("user", "fix the parser")
	for _, marker := range []bool{false, true} {
		t.Run(fmt.Sprintf("marker=%v", marker), func(t *testing.T) {
			afterInsertHook = func(r Record) error {
				if r.Kind == KindMessage && strings.Contains(string(r.Body), "fix the parser") {
					return errors.New("injected")
				}
				return nil
			}
			_, err := db.StartTurn(bg, s.ID, marker, prompt)
			afterInsertHook = nil
			if err == nil {
				t.Fatal("turn started")
			}
			after := checkCounters(t, db, s.ID)
			if len(after.Records) != len(before.Records) || after.NextCheckpointID != before.NextCheckpointID {
				t.Fatalf("a failed turn start left %d records; next checkpoint %d, was %d",
					len(after.Records)-len(before.Records), after.NextCheckpointID, before.NextCheckpointID)
			}
		})
	}
	id := must[int](t)(db.StartTurn(bg, s.ID, true, prompt))
	v := checkCounters(t, db, s.ID)
	added := v.Records[len(before.Records):]
	if id != before.NextCheckpointID || len(added) != 3 || added[0].Kind != KindCheckpoint || added[0].CheckpointID != id {
		t.Fatalf("turn %d: records %+v", id, added)
	}
	if got := texts(View{Records: added[1:]}); !slices.Equal(got, []string{fmt.Sprintf("user:<system>CHECKPOINT %d</system>", id), "user:fix the parser"}) {
		t.Fatalf("turn's messages %q", got)
	}
}

func TestRevertRestoreChains(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	s := newSession(t, db, "t", "/w")
	sid := s.ID
	turn(t, db, sid, "a", 100) // checkpoint 0
	turn(t, db, sid, "b", 200) // checkpoint 1
	turn(t, db, sid, "c", 300) // checkpoint 2
	full := checkCounters(t, db, sid)
	if len(texts(full)) != 12 {
		t.Fatalf("full view %v", texts(full))
	}

	writes := func(fn func()) (gens, recs int) {
		g0, r0, f0 := countRows(t, db, "generations"), countRows(t, db, "context"), countRows(t, db, "context_fts_docsize")
		fn()
		g1, r1, f1 := countRows(t, db, "generations"), countRows(t, db, "context"), countRows(t, db, "context_fts_docsize")
		return g1 - g0, (r1 - r0) + (f1 - f0)
	}

	// revert to 2: view = turns a and b; tokens from the last usage before it.
	var g Generation
	if dg, dr := writes(func() { g = must[Generation](t)(db.RevertTo(bg, sid, 2, CauseRevert, "")) }); dg != 1 || dr != 0 {
		t.Fatalf("revert wrote %d generations %d records", dg, dr)
	}
	if g.Gen != 1 || g.Cause != CauseRevert || *g.ParentGen != 0 || g.NextCheckpointID != 2 || g.Tokens != 200 || g.Messages != 8 {
		t.Fatalf("revert generation %+v", g)
	}
	v := checkCounters(t, db, sid)
	if got := strings.Join(texts(v), "|"); !strings.HasSuffix(got, "tool:out b") || strings.Contains(got, " c") {
		t.Fatalf("after revert: %s", got)
	}
	gens := must[[]Generation](t)(db.Generations(bg, sid))
	if !gens[0].Archived() || gens[1].Archived() {
		t.Fatalf("archive flags %+v", gens)
	}
	// The archived generation's view is intact.
	if old := must[View](t)(db.GenerationView(bg, sid, 0)); len(old.Records) != len(full.Records) || old.Tokens != 300 {
		t.Fatalf("archived view %d records", len(old.Records))
	}

	// New work in gen 1 gets checkpoint 2 again, then revert within gen 1's
	// own records and then to a checkpoint inherited from gen 0.
	if id := turn(t, db, sid, "b2", 250); id != 2 {
		t.Fatalf("checkpoint after revert %d", id)
	}
	turn(t, db, sid, "b3", 260) // checkpoint 3
	checkCounters(t, db, sid)
	g = must[Generation](t)(db.RevertTo(bg, sid, 3, CauseBacktrack, "note"))
	if g.Cause != CauseBacktrack || g.Note != "note" || *g.ParentGen != 1 || g.Tokens != 250 {
		t.Fatalf("backtrack %+v", g)
	}
	if got := texts(checkCounters(t, db, sid)); got[len(got)-1] != "tool:out b2" {
		t.Fatalf("after backtrack %v", got)
	}
	g = must[Generation](t)(db.RevertTo(bg, sid, 1, "", ""))
	if g.Cause != CauseRevert || *g.ParentGen != 0 || g.Tokens != 100 || g.Messages != 4 {
		t.Fatalf("revert to inherited checkpoint %+v", g)
	}
	checkCounters(t, db, sid)

	// Revert to 0: empty view, no tokens.
	g = must[Generation](t)(db.RevertTo(bg, sid, 0, CauseRevert, ""))
	if v := checkCounters(t, db, sid); len(v.Records) != 0 || g.Tokens != 0 || g.NextCheckpointID != 0 {
		t.Fatalf("revert to 0: %d records %+v", len(v.Records), g)
	}
	// Missing checkpoints.
	for _, id := range []int{0, 5, -1} {
		if _, err := db.RevertTo(bg, sid, id, CauseRevert, ""); !errors.Is(err, ErrCheckpointNotFound) || !strings.Contains(err.Error(), sid) {
			t.Fatalf("missing checkpoint %d: %v", id, err)
		}
	}

	// Restore gen 2 (the b2/b3 view), then revert inside it.
	cur := must[Session](t)(db.GetSession(bg, sid)).CurrentGen
	if dg, dr := writes(func() { g = must[Generation](t)(db.Restore(bg, sid, 2)) }); dg != 1 || dr != 0 {
		t.Fatalf("restore wrote %d generations %d records", dg, dr)
	}
	if g.Gen != cur+1 || g.Cause != CauseRestore || *g.ParentGen != 2 || g.ForkSeq != nil {
		t.Fatalf("restore %+v", g)
	}
	restored := checkCounters(t, db, sid)
	if strings.Join(texts(restored), "|") != strings.Join(texts(must[View](t)(db.GenerationView(bg, sid, 2))), "|") {
		t.Fatalf("restored view differs")
	}
	g = must[Generation](t)(db.RevertTo(bg, sid, 2, CauseRevert, ""))
	if got := texts(checkCounters(t, db, sid)); len(got) != 8 {
		t.Fatalf("revert after restore %v", got)
	}
	if _, err := db.Restore(bg, sid, 99); !errors.Is(err, ErrGenerationNotFound) {
		t.Fatalf("restore missing gen: %v", err)
	}
	if _, err := db.GenerationView(bg, sid, 99); !errors.Is(err, ErrGenerationNotFound) {
		t.Fatalf("view missing gen: %v", err)
	}
	// Every generation's view still matches its counters.
	for _, gen := range must[[]Generation](t)(db.Generations(bg, sid)) {
		v := must[View](t)(db.GenerationView(bg, sid, gen.Gen))
		msgs := len(v.Messages())
		if msgs != gen.Messages {
			t.Fatalf("gen %d: %d messages counted, %d stored", gen.Gen, msgs, gen.Messages)
		}
	}
}

func TestClearAndCompact(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	sid := newSession(t, db, "t", "/w").ID
	turn(t, db, sid, "a", 10)
	turn(t, db, sid, "b", 20)
	g := must[Generation](t)(db.Clear(bg, sid))
	if v := checkCounters(t, db, sid); len(v.Records) != 0 || g.Cause != CauseClear || g.ParentGen != nil {
		t.Fatalf("clear: %d records %+v", len(v.Records), g)
	}
	if _, err := db.RevertTo(bg, sid, 0, CauseRevert, ""); !errors.Is(err, ErrCheckpointNotFound) {
		t.Fatalf("revert after clear: %v", err)
	}
	must[Generation](t)(db.Restore(bg, sid, 0))
	turn(t, db, sid, "c", 30) // checkpoint 2 in gen 2
	src := must[Session](t)(db.GetSession(bg, sid)).CurrentGen
	g = must[Generation](t)(db.StartCompacted(bg, sid, []message.Message{message.NewText("user", "summary"), message.NewText("assistant", "kept")}, src, 42, false))
	if g.Cause != CauseCompact || g.SourceGen == nil || *g.SourceGen != src || g.Tokens != 42 || g.Messages != 2 || g.NextCheckpointID != 1 {
		t.Fatalf("compact %+v", g)
	}
	// As kimi-cli writes a compacted context: checkpoint 0, the summary, the usage.
	if v := checkCounters(t, db, sid); len(v.Records) != 4 || v.Records[0].Kind != KindCheckpoint || v.Records[0].CheckpointID != 0 || v.Records[3].Kind != KindUsage {
		t.Fatalf("compacted view %+v", v.Records)
	}
	id := turn(t, db, sid, "d", 50)
	if id != 1 {
		t.Fatalf("first checkpoint after compaction %d", id)
	}
	if _, err := db.RevertTo(bg, sid, 2, CauseRevert, ""); !errors.Is(err, ErrCompactedRegion) || !strings.Contains(err.Error(), fmt.Sprint("generation ", src)) {
		t.Fatalf("compacted region: %v", err)
	}
	if _, err := db.RevertTo(bg, sid, 7, CauseRevert, ""); !errors.Is(err, ErrCheckpointNotFound) {
		t.Fatalf("never existed: %v", err)
	}
	must[Generation](t)(db.RevertTo(bg, sid, 1, CauseRevert, ""))
	if got := texts(checkCounters(t, db, sid)); strings.Join(got, "|") != "user:summary|assistant:kept" {
		t.Fatalf("revert in compacted gen: %v", got)
	}
	must[Generation](t)(db.RevertTo(bg, sid, 0, CauseRevert, "")) // kimi-cli's revert_to(0): before the summary
	if got := texts(checkCounters(t, db, sid)); len(got) != 0 {
		t.Fatalf("revert to checkpoint 0 of a compacted gen: %v", got)
	}
	if _, err := db.StartCompacted(bg, sid, nil, 99, 0, false); !errors.Is(err, ErrGenerationNotFound) {
		t.Fatalf("compact from missing gen: %v", err)
	}
}

func TestFork(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	src := newSession(t, db, "source", "/w")
	turn(t, db, src.ID, "a", 10)
	turn(t, db, src.ID, "b", 20)
	turn(t, db, src.ID, "c", 30)
	records := countRows(t, db, "context")

	whole := must[Session](t)(db.ForkSession(bg, src.ID, -1, -1))
	atCP := must[Session](t)(db.ForkSession(bg, src.ID[:22], 0, 1))
	if countRows(t, db, "context") != records {
		t.Fatal("fork copied records")
	}
	if whole.ID == src.ID || whole.Title != "source" || whole.WorkDir != "/w" {
		t.Fatalf("fork session %+v", whole)
	}
	vs, vw, vc := checkCounters(t, db, src.ID), checkCounters(t, db, whole.ID), checkCounters(t, db, atCP.ID)
	if strings.Join(texts(vs), "|") != strings.Join(texts(vw), "|") {
		t.Fatalf("whole fork differs")
	}
	if len(texts(vc)) != 4 || vc.NextCheckpointID != 1 || vc.Tokens != 10 {
		t.Fatalf("fork at checkpoint 1: %v next %d tokens %d", texts(vc), vc.NextCheckpointID, vc.Tokens)
	}
	g := must[[]Generation](t)(db.Generations(bg, atCP.ID))[0]
	if g.Cause != CauseFork || g.ParentSession != src.ID || *g.SourceGen != 0 {
		t.Fatalf("fork generation %+v", g)
	}

	// Diverge independently.
	turn(t, db, atCP.ID, "fork-only", 11)
	turn(t, db, src.ID, "source-only", 40)
	if got := strings.Join(texts(checkCounters(t, db, atCP.ID)), "|"); strings.Contains(got, "source-only") || !strings.Contains(got, "fork-only") {
		t.Fatalf("fork view %s", got)
	}
	if got := strings.Join(texts(checkCounters(t, db, src.ID)), "|"); strings.Contains(got, "fork-only") {
		t.Fatalf("source view %s", got)
	}
	// Revert in the fork to a checkpoint held by the source's records, then
	// to one of its own; the source is untouched.
	must[Generation](t)(db.RevertTo(bg, whole.ID, 1, CauseRevert, ""))
	if got := texts(checkCounters(t, db, whole.ID)); len(got) != 4 {
		t.Fatalf("fork revert %v", got)
	}
	turn(t, db, whole.ID, "x", 5) // checkpoint 1 again, in the fork
	turn(t, db, whole.ID, "y", 6) // checkpoint 2
	must[Generation](t)(db.RevertTo(bg, whole.ID, 2, CauseRevert, ""))
	if got := texts(checkCounters(t, db, whole.ID)); len(got) != 8 || got[7] != "tool:out x" {
		t.Fatalf("fork revert to own checkpoint %v", got)
	}
	must[Generation](t)(db.RevertTo(bg, whole.ID, 0, CauseRevert, ""))
	checkCounters(t, db, whole.ID)
	checkCounters(t, db, src.ID)
	// A fork of a fork.
	ff := must[Session](t)(db.ForkSession(bg, atCP.ID, -1, 1))
	if got := texts(checkCounters(t, db, ff.ID)); len(got) != 4 || got[3] != "tool:out a" {
		t.Fatalf("fork of fork %v", got)
	}
	if _, err := db.ForkSession(bg, src.ID, 0, 9); !errors.Is(err, ErrCheckpointNotFound) {
		t.Fatalf("fork at missing checkpoint: %v", err)
	}
	if _, err := db.ForkSession(bg, src.ID, 42, -1); !errors.Is(err, ErrGenerationNotFound) {
		t.Fatalf("fork of missing gen: %v", err)
	}
}

func TestSessionVersion(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	sid := newSession(t, db, "t", "/w").ID
	v0 := must[Version](t)(db.SessionVersion(bg, sid))
	turn(t, db, sid, "a", 1)
	v1 := must[Version](t)(db.SessionVersion(bg, sid))
	if v1.MaxSeq <= v0.MaxSeq || v1.CurrentGen != 0 {
		t.Fatalf("append: %+v → %+v", v0, v1)
	}
	must[Generation](t)(db.RevertTo(bg, sid, 0, CauseRevert, ""))
	v2 := must[Version](t)(db.SessionVersion(bg, sid))
	if v2 == v1 || v2.CurrentGen != 1 || v2.Generations != 2 {
		t.Fatalf("revert: %+v → %+v", v1, v2)
	}
	if v := must[Version](t)(db.SessionVersion(bg, sid[:20])); v != v2 {
		t.Fatalf("prefix version %+v", v)
	}
	if _, err := db.SessionVersion(bg, "nope"); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("missing: %v", err)
	}
}

func TestImportSession(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	body := func(m message.Message) json.RawMessage { b, _ := json.Marshal(m); return b }
	gens := []ImportedGeneration{
		{Records: []Record{
			{Kind: KindCheckpoint, CheckpointID: 0},
			{Kind: KindMessage, Body: body(message.NewText("user", "old question"))},
			{Kind: KindUsage, TokenCount: 5},
		}},
		{Cause: CauseCompact, Records: []Record{
			{Kind: KindMessage, Role: "user", Body: body(message.NewText("user", "new question"))},
			{Kind: KindCheckpoint, CheckpointID: 0},
			{Kind: KindCheckpoint, CheckpointID: 1},
			{Kind: KindUsage, TokenCount: 9},
		}},
	}
	s := must[Session](t)(db.ImportSession(bg, NewSession{Title: "imp", WorkDir: "/i"}, gens))
	if s.CurrentGen != 1 || s.Messages != 1 || s.Checkpoints != 2 || s.Tokens != 9 {
		t.Fatalf("imported %+v", s)
	}
	got := must[[]Generation](t)(db.Generations(bg, s.ID))
	if len(got) != 2 || !got[0].Archived() || got[1].Archived() || got[0].Cause != CauseImport || got[1].Cause != CauseCompact || got[0].Tokens != 5 {
		t.Fatalf("generations %+v", got)
	}
	checkCounters(t, db, s.ID)
	must[Generation](t)(db.RevertTo(bg, s.ID, 1, CauseRevert, ""))
	checkCounters(t, db, s.ID)
	if hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "old question"})); len(hits) != 1 || hits[0].Gen != 0 {
		t.Fatalf("imported text not searchable: %+v", hits)
	}
	// A bad record imports nothing.
	n := countRows(t, db, "sessions")
	bad := []ImportedGeneration{{Records: []Record{{Kind: KindMessage, Body: body(message.NewText("user", "x"))}, {Kind: KindMessage, Body: json.RawMessage("{bad")}}}}
	if _, err := db.ImportSession(bg, NewSession{}, bad); err == nil {
		t.Fatal("bad body imported")
	}
	if countRows(t, db, "sessions") != n {
		t.Fatal("failed import left a session")
	}
}

func TestSearch(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	a := newSession(t, db, "alpha", "/w/a")
	b := newSession(t, db, "beta", "/w/b")
	must[Record](t)(db.AppendMessage(bg, a.ID, message.NewText("user", "please refactor the frobnicator module")))
	asst := message.NewText("assistant", "")
	asst.ToolCalls = []message.ToolCall{{ID: "1", Name: "Grep", Args: `{"pattern":"widgetfactory"}`}}
	must[Record](t)(db.AppendMessage(bg, b.ID, asst))
	parts := message.Message{Role: "user", Content: message.Content{Parts: []message.Part{{Type: "text", Text: "frobnicator in parts"}, {Type: "think", Think: "secretthought"}}}}
	must[Record](t)(db.AppendMessage(bg, b.ID, parts))
	must[int](t)(db.Checkpoint(bg, a.ID, true))
	// Backdate one message to test date filters.
	old := time.Now().Add(-48 * time.Hour)
	if _, err := db.writer.Exec("UPDATE context SET created_at = ? WHERE session_key = (SELECT key FROM sessions WHERE id = ?) AND seq = 1", old.UnixMilli(), a.ID); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		o    SearchOptions
		want []string // session titles of hits, newest first
	}{
		{"word", SearchOptions{Query: "frobnicator"}, []string{"beta", "alpha"}},
		{"prefix", SearchOptions{Query: "frobni*"}, []string{"beta", "alpha"}},
		{"tool call arguments", SearchOptions{Query: "widgetfactory"}, []string{"beta"}},
		{"think parts not indexed", SearchOptions{Query: "secretthought"}, nil},
		{"checkpoint markers not indexed", SearchOptions{Query: "CHECKPOINT"}, nil},
		{"phrase", SearchOptions{Query: `"refactor the"`}, []string{"alpha"}},
		{"and", SearchOptions{Query: "frobnicator parts"}, []string{"beta"}},
		{"or", SearchOptions{Query: "refactor OR widgetfactory"}, []string{"beta", "alpha"}},
		{"work dir", SearchOptions{Query: "frobnicator", WorkDir: "/w/a"}, []string{"alpha"}},
		{"since", SearchOptions{Query: "frobnicator", Since: time.Now().Add(-time.Hour)}, []string{"beta"}},
		{"until", SearchOptions{Query: "frobnicator", Until: time.Now().Add(-time.Hour)}, []string{"alpha"}},
		{"limit", SearchOptions{Query: "frobnicator", Limit: 1}, []string{"beta"}},
		{"unbalanced quote", SearchOptions{Query: `"frobnicator module`}, []string{"alpha"}},
		{"syntax characters", SearchOptions{Query: `frobnicator) ( - * : ^"`}, []string{"beta", "alpha"}},
		{"only punctuation", SearchOptions{Query: `"*()-`}, nil},
		{"empty", SearchOptions{Query: ""}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := db.Search(bg, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, h.Title)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("got %v want %v", got, tc.want)
			}
		})
	}
	hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "refactor"}))
	if len(hits) != 1 || !strings.Contains(hits[0].Snippet, "«refactor»") || hits[0].Role != "user" || hits[0].WorkDir != "/w/a" || hits[0].Seq != 1 {
		t.Fatalf("hit %+v", hits)
	}
	if err := db.DeleteSession(bg, a.ID); err != nil {
		t.Fatal(err)
	}
	if hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "refactor"})); len(hits) != 0 {
		t.Fatalf("deleted session found: %+v", hits)
	}
}

// TestQueryPlans pins the indexes that keep revert and view reads
// independent of history size.
func TestQueryPlans(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	cases := []struct {
		name, query, index string
		args               []any
	}{
		{"checkpoint lookup", checkpointQuery, "context_checkpoint", []any{"s", 0, 1, 100}},
		{"segment read", segmentQuery, "context_segment", []any{"s", 0, 100}},
		{"checkpoints in a range of a segment", checkpointCountQuery, "context_checkpoint (session_key=? AND gen=?)", []any{"s", 0, 10, 100}},
		{"records after a seq", sinceQuery, "context_segment (session_key=? AND gen=? AND seq>?)", []any{"s", 90, 0}},
		{"records before a seq, newest first", beforeQuery, "context_segment (session_key=? AND gen=? AND seq<?)", []any{"s", 0, 100, 10}},
		{"list sessions", "SELECT " + sessionColumns + sessionFrom + " WHERE s.deleted_at IS NULL ORDER BY s.updated_at DESC, s.id DESC LIMIT 200", "sessions_updated", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := db.Reader().Query("EXPLAIN QUERY PLAN "+tc.query, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var plan []string
			for rows.Next() {
				var id, parent, unused int
				var detail string
				if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			got := strings.Join(plan, "; ")
			if !strings.Contains(got, tc.index) || strings.Contains(got, "TEMP B-TREE") {
				t.Fatalf("plan %q does not use %s", got, tc.index)
			}
		})
	}
}

// ListVersion moves with every change the session lists show, made by any
// connection, and not with another connection's lease heartbeats, which do
// move PRAGMA data_version.
func TestListVersion(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	other, err := Open(bg, db.path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	last := must[int64](t)(db.ListVersion(bg))
	moved := func(what string) {
		t.Helper()
		v := must[int64](t)(db.ListVersion(bg))
		if v == last {
			t.Errorf("%s: list version stayed at %d", what, v)
		}
		last = v
	}
	sid := newSession(t, other, "t", "/w").ID
	moved("create")
	turn(t, other, sid, "a", 1)
	moved("append")
	must[Generation](t)(other.RevertTo(bg, sid, 0, CauseRevert, ""))
	moved("revert")
	if err := other.RenameSession(bg, sid, "renamed"); err != nil {
		t.Fatal(err)
	}
	moved("rename")
	must[Session](t)(other.ForkSession(bg, sid, 0, 0))
	moved("fork")
	if err := other.DeleteSession(bg, sid); err != nil {
		t.Fatal(err)
	}
	moved("delete")
	if err := other.UndeleteSession(bg, sid); err != nil {
		t.Fatal(err)
	}
	moved("undelete")
	must[Session](t)(other.ImportSession(bg, NewSession{Title: "imp", WorkDir: "/i"},
		[]ImportedGeneration{{Records: []Record{{Kind: KindCheckpoint}}}}))
	moved("import")

	l, err := other.AcquireLease(bg, sid)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(bg)
	// A heartbeat in the same millisecond as the last one writes nothing:
	// renew until one moved the data version.
	dv := must[int64](t)(db.DataVersion(bg))
	for i := 0; must[int64](t)(db.DataVersion(bg)) == dv; i++ {
		if i == 100000 {
			t.Fatal("the heartbeats did not move the data version: the test checks nothing")
		}
		if err := l.renew(bg); err != nil {
			t.Fatal(err)
		}
	}
	if v := must[int64](t)(db.ListVersion(bg)); v != last {
		t.Errorf("lease heartbeats moved the list version: %d → %d", last, v)
	}
}

// TestForkOfAForkAtASharedCheckpoint: a fork cut at a checkpoint of a fork
// whose record the fork shares with its source names the fork it was made
// from (ForkOf, its title), not the source whose records it
// reads; its view is the fork's up to the checkpoint.
func TestForkOfAForkAtASharedCheckpoint(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	src := newSession(t, db, "source", "/w")
	turn(t, db, src.ID, "a", 10)
	turn(t, db, src.ID, "b", 20)
	mid := must[Session](t)(db.ForkSession(bg, src.ID, -1, -1))
	if err := db.RenameSession(bg, mid.ID, "intermediate otter"); err != nil {
		t.Fatal(err)
	}
	ff := must[Session](t)(db.ForkSession(bg, mid.ID, -1, 1)) // checkpoint 1: a record of src
	if ff.ForkOf != mid.ID || ff.ForkOfTitle != "intermediate otter" || ff.ForkCheckpoint != 1 {
		t.Fatalf("fork of %s (%q) @ checkpoint %d; want %s (intermediate otter) @ 1", ff.ForkOf, ff.ForkOfTitle, ff.ForkCheckpoint, mid.ID)
	}
	if got, want := ff.ListTitle(), "intermediate otter (fork of intermediate otter @ checkpoint 1)"; got != want && got != "fork of intermediate otter @ checkpoint 1" {
		t.Errorf("list title %q", got)
	}
	if got := texts(checkCounters(t, db, ff.ID)); len(got) != 4 || got[3] != "tool:out a" {
		t.Fatalf("view %v", got)
	}
	for _, s := range must[[]Session](t)(db.ListSessions(bg, ListOptions{})) {
		if s.ID == ff.ID && s.ForkOf != mid.ID {
			t.Errorf("listed as a fork of %s", s.ForkOf)
		}
	}
}
