package timetravel

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// A model-based property test of time travel: random sequences of prompt,
// step, revert, restore, undo, compact, clear, backtrack, interrupt and fork
// run against the real store (through this package for revert, restore
// and undo) and against a plain in-memory model of the views. After every
// operation the store's current view is the model's; at the end of every
// sequence every message ever shown is still in some generation, and every
// generation's view is the model's.

// modelGen is one generation of the model: its view (records as strings,
// "cp:N" or "role:text") and cause.
type modelGen struct {
	view  []string
	cause store.Cause
}

type model struct {
	gens   []modelGen
	cur    int
	rows   [][2]int // logged rewinds: before, after
	shown  map[string]bool
	serial int
}

func (m *model) view() []string { return m.gens[m.cur].view }

// start makes a new current generation with view v.
func (m *model) start(v []string, cause store.Cause) {
	m.gens = append(m.gens, modelGen{view: slices.Clone(v), cause: cause})
	m.cur = len(m.gens) - 1
	for _, r := range v {
		if !strings.HasPrefix(r, "cp:") {
			m.shown[r] = true
		}
	}
}

func (m *model) appendRecs(recs ...string) {
	g := &m.gens[m.cur]
	g.view = append(slices.Clone(g.view), recs...)
	for _, r := range recs {
		if !strings.HasPrefix(r, "cp:") {
			m.shown[r] = true
		}
	}
}

func (m *model) nextCP() int {
	n := 0
	for _, r := range m.view() {
		if strings.HasPrefix(r, "cp:") {
			n++
		}
	}
	return n
}

func (m *model) text(kind string) string {
	m.serial++
	return fmt.Sprintf("%s %d", kind, m.serial)
}

// checkpoints lists the checkpoint ids of the current view.
func (m *model) checkpoints() []int {
	var out []int
	for _, r := range m.view() {
		if id, ok := strings.CutPrefix(r, "cp:"); ok {
			var n int
			fmt.Sscan(id, &n)
			out = append(out, n)
		}
	}
	return out
}

func (m *model) before(cp int) []string {
	v := m.view()
	i := slices.Index(v, fmt.Sprintf("cp:%d", cp))
	return v[:i]
}

// records renders a store view as the model does.
func records(v store.View) []string {
	var out []string
	for _, r := range v.Records {
		switch r.Kind {
		case store.KindCheckpoint:
			out = append(out, fmt.Sprintf("cp:%d", r.CheckpointID))
		case store.KindMessage:
			msg, err := r.Message()
			if err != nil {
				out = append(out, "undecodable")
				continue
			}
			out = append(out, msg.Role+":"+msg.Content.PlainText())
		}
	}
	return out
}

// runSequence runs n random operations on a new session of db.
func runSequence(t *testing.T, ctx context.Context, db *store.DB, seed int64, n int) {
	rng := rand.New(rand.NewSource(seed))
	s, err := db.CreateSession(ctx, store.NewSession{Title: fmt.Sprint(seed)})
	if err != nil {
		t.Fatal(err)
	}
	m := &model{gens: []modelGen{{cause: store.CauseStart}}, shown: map[string]bool{}}
	env := Env{DB: db, Session: s}
	conv := StoreConversation{DB: db, SessionID: s.ID}
	var log []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d after %s: %s", seed, strings.Join(log, ", "), fmt.Sprintf(format, args...))
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			fail("%v", err)
		}
	}
	for i := 0; i < n; i++ {
		cps := m.checkpoints()
		op := rng.Intn(11)
		switch {
		case op <= 2: // prompt
			text := m.text("prompt")
			_, err := db.Checkpoint(ctx, s.ID, false)
			must(err)
			_, err = db.AppendMessage(ctx, s.ID, message.NewText("user", text))
			must(err)
			m.appendRecs(fmt.Sprintf("cp:%d", m.nextCP()), "user:"+text)
			log = append(log, "prompt")
		case op <= 4: // step
			text := m.text("answer")
			_, err := db.Checkpoint(ctx, s.ID, false)
			must(err)
			_, err = db.CommitStep(ctx, s.ID, store.Step{Assistant: message.NewText("assistant", text)})
			must(err)
			m.appendRecs(fmt.Sprintf("cp:%d", m.nextCP()), "assistant:"+text)
			log = append(log, "step")
		case op == 5 && len(cps) > 0: // revert through this package
			cp := cps[rng.Intn(len(cps))]
			p, err := PlanRevert(ctx, env, cp, Check{})
			must(err)
			if want := planFromView(ctx, t, db, s.ID, cp); p.Messages != want.Messages || p.ReturnTo != want.ReturnTo || p.Keeps != want.Keeps || p.seq != want.seq {
				t.Fatalf("after %v: plan of a revert to %d %+v, the whole view's %+v", log, cp, p, want)
			}
			_, err = Apply(ctx, env, conv, p, ConversationOnly)
			must(err)
			m.rows = append(m.rows, [2]int{m.cur, len(m.gens)})
			m.start(m.before(cp), store.CauseRevert)
			log = append(log, fmt.Sprintf("revert %d", cp))
		case op == 6 && m.cur > 0: // restore an older generation
			g := rng.Intn(m.cur)
			p, err := PlanRestore(ctx, env, g, Check{})
			must(err)
			_, err = Apply(ctx, env, conv, p, ConversationOnly)
			must(err)
			m.rows = append(m.rows, [2]int{m.cur, len(m.gens)})
			m.start(m.gens[g].view, store.CauseRestore)
			log = append(log, fmt.Sprintf("restore %d", g))
		case op == 7: // undo the last rewind
			p, err := PlanUndo(ctx, env, Check{})
			must(err)
			target := -1
			switch {
			case m.gens[m.cur].cause == store.CauseBacktrack && (len(m.rows) == 0 || m.rows[len(m.rows)-1][1] < m.cur):
				target = m.cur - 1
			case len(m.rows) > 0:
				target = m.rows[len(m.rows)-1][0]
			}
			if target < 0 {
				if p.Nothing == "" {
					fail("undo with no rewind planned %+v", p)
				}
				log = append(log, "undo (nothing)")
				break
			}
			if p.Gen != target {
				fail("undo would bring back generation %d, the model says %d", p.Gen, target)
			}
			_, err = Apply(ctx, env, conv, p, ConversationOnly)
			must(err)
			m.rows = append(m.rows, [2]int{m.cur, len(m.gens)})
			m.start(m.gens[target].view, store.CauseRestore)
			log = append(log, fmt.Sprintf("undo → %d", target))
		case op == 8: // compact or clear
			if rng.Intn(2) == 0 {
				text := m.text("summary")
				_, err := db.StartCompacted(ctx, s.ID, []message.Message{message.NewText("user", text)}, m.cur, 0)
				must(err)
				m.start([]string{"user:" + text}, store.CauseCompact)
				log = append(log, "compact")
			} else {
				_, err := db.Clear(ctx, s.ID)
				must(err)
				m.start(nil, store.CauseClear)
				log = append(log, "clear")
			}
		case op == 9 && len(cps) > 0: // backtrack (a D-Mail)
			cp := cps[rng.Intn(len(cps))]
			note := m.text("dmail")
			_, err := db.RevertTo(ctx, s.ID, cp, store.CauseBacktrack, note)
			must(err)
			m.start(m.before(cp), store.CauseBacktrack)
			_, err = db.Checkpoint(ctx, s.ID, false)
			must(err)
			_, err = db.AppendMessage(ctx, s.ID, message.NewText("user", note))
			must(err)
			m.appendRecs(fmt.Sprintf("cp:%d", cp), "user:"+note)
			log = append(log, fmt.Sprintf("backtrack %d", cp))
		case op == 10: // interrupt, or fork now and then
			if rng.Intn(4) == 0 {
				g := rng.Intn(m.cur + 1)
				f, err := db.ForkSession(ctx, s.ID, g, -1)
				must(err)
				fv, err := db.View(ctx, f.ID)
				must(err)
				if got := records(fv); !slices.Equal(got, m.gens[g].view) {
					fail("fork of generation %d has view %q, the model %q", g, got, m.gens[g].view)
				}
				log = append(log, fmt.Sprintf("fork %d", g))
				break
			}
			text := m.text("partial")
			_, _, err := db.KeepInterrupted(ctx, s.ID, message.NewText("assistant", text))
			must(err)
			prev := m.view()
			m.start(append(slices.Clone(prev), "assistant:"+text), store.CauseInterrupt)
			m.start(prev, store.CauseRestore)
			log = append(log, "interrupt")
		default:
			continue
		}
		v, err := db.View(ctx, s.ID)
		must(err)
		if v.Generation.Gen != m.cur {
			fail("current generation %d, the model's %d", v.Generation.Gen, m.cur)
		}
		if got := records(v); !slices.Equal(got, m.view()) {
			fail("view %q, the model's %q", got, m.view())
		}
	}
	// Nothing shown is lost: every message is in some generation, and every
	// generation is what the model says.
	reachable := map[string]bool{}
	for g := range m.gens {
		v, err := db.GenerationView(ctx, s.ID, g)
		must(err)
		got := records(v)
		if !slices.Equal(got, m.gens[g].view) {
			fail("generation %d has view %q, the model %q", g, got, m.gens[g].view)
		}
		for _, r := range got {
			reachable[r] = true
		}
	}
	for r := range m.shown {
		if !reachable[r] {
			fail("%q was shown and is in no generation", r)
		}
	}
}

func TestTimeTravelMatchesModel(t *testing.T) {
	t.Parallel()
	sequences, length := 2000, 8
	if testing.Short() || raceEnabled {
		sequences = 200
	}
	ctx := context.Background()
	const batches = 4
	for b := 0; b < batches; b++ {
		t.Run(fmt.Sprint(b), func(t *testing.T) {
			t.Parallel()
			db, err := store.Open(ctx, filepath.Join(t.TempDir(), "rewind.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for i := b; i < sequences; i += batches {
				runSequence(t, ctx, db, int64(i), length)
			}
		})
	}
}

// planFromView is what PlanRevert works out, read from the whole view (as
// it was before it read the pages around the checkpoint only).
func planFromView(ctx context.Context, t *testing.T, db *store.DB, id string, cp int) Plan {
	t.Helper()
	v, err := db.View(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	at := CheckpointIndex(v, cp)
	if at < 0 {
		t.Fatalf("checkpoint %d is not in the view", cp)
	}
	p := Plan{seq: v.Records[at].Seq}
	for _, r := range v.Records[at:] {
		if r.Kind == store.KindMessage {
			p.Messages++
		}
	}
	turn, step := place(Turns(v), cp)
	switch {
	case turn != nil && step == nil && !turn.DMail:
		p.ReturnTo = turn.Prompt
	case turn != nil && step != nil:
		p.Keeps = keeps(*turn, *step)
	}
	return p
}
