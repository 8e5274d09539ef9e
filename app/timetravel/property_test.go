package timetravel

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/filecp"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/store/storetest"
)

// A model-based property test of time travel: random sequences of prompt,
// step (writing a file now and then), revert, restore, undo, compact,
// clear, backtrack, interrupt, fork and the user's own file edits run
// against the real store and files (through this package for revert,
// restore and undo, with or without files, forced or not) and against a
// plain in-memory model of the views and the files. After every operation
// the store's current view and the work dir's files are the model's, and
// every plan's files half says what the model says (changes, conflicts);
// at the end of every sequence every message ever shown is still in some
// generation, and every generation's view is the model's.

// modelGen is one generation of the model: its view (records as strings,
// "cp:N" or "role:text"), for each record the number of file events
// recorded before it (a checkpoint's file position), and its cause.
type modelGen struct {
	view  []string
	at    []int
	cause store.Cause
}

// modelRewind is a logged rewind: the generations before and after it,
// and the file position it replaced (-1: no file changed).
type modelRewind struct {
	before, after int
	filesUndo     int
}

type model struct {
	gens   []modelGen
	cur    int
	rows   []modelRewind
	shown  map[string]bool
	serial int
	files  modelFiles
}

func (m *model) view() []string { return m.gens[m.cur].view }

// start makes a new current generation with view v (positions at).
func (m *model) start(v []string, at []int, cause store.Cause) {
	m.gens = append(m.gens, modelGen{view: slices.Clone(v), at: slices.Clone(at), cause: cause})
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
		g.at = append(slices.Clone(g.at), len(m.files.events))
		if !strings.HasPrefix(r, "cp:") {
			m.shown[r] = true
		}
	}
}

// The files of the model: two paths, each content a unique string ("":
// no file), so the model knows who made every content. A content the user
// made in a file the agent (or a rewind) had already changed is the user's
// own: a rewind never overwrites it without force, also when an earlier
// rewind put it back. That is the guard, stated without file events.
var modelPaths = []string{"a.txt", "b.txt"}

type modelFileEvent struct {
	path, before, after string
	gen                 int
}

type modelFiles struct {
	disk   map[string]string
	events []modelFileEvent
	users  map[string]bool // contents that are the user's own
}

func (f *modelFiles) touched(path string) bool {
	return slices.ContainsFunc(f.events, func(e modelFileEvent) bool { return e.path == path })
}

// filePlan is what a file rewind to position pos does: each file's kind
// ("modify", "create", "delete"), conflicts apart.
type filePlan struct {
	changes   map[string]string
	conflicts []string
	targets   map[string]string
}

// plan works out a rewind to the state before event pos: every path with
// an event at or after pos goes back to the before state of its first one;
// it conflicts when its content is not what the last one left, or is the
// user's own.
func (f *modelFiles) plan(pos int) filePlan {
	p := filePlan{changes: map[string]string{}, targets: map[string]string{}}
	if pos < 0 {
		return p
	}
	for _, path := range modelPaths {
		var first, last *modelFileEvent
		for i := pos; i < len(f.events); i++ {
			if e := &f.events[i]; e.path == path {
				if first == nil {
					first = e
				}
				last = e
			}
		}
		cur := f.disk[path]
		if first == nil || cur == first.before {
			continue
		}
		if cur != last.after || f.users[cur] {
			p.conflicts = append(p.conflicts, path)
		}
		switch {
		case first.before == "":
			p.changes[path] = "delete"
		case cur == "":
			p.changes[path] = "create"
		default:
			p.changes[path] = "modify"
		}
		p.targets[path] = first.before
	}
	return p
}

// apply carries p out (conflicts too when force) under generation gen and
// returns the undo position, -1 when no file changed.
func (f *modelFiles) apply(p filePlan, force bool, gen int) int {
	undo := -1
	for _, path := range modelPaths {
		target, ok := p.targets[path]
		if !ok || !force && slices.Contains(p.conflicts, path) {
			continue
		}
		if undo < 0 {
			undo = len(f.events)
		}
		f.events = append(f.events, modelFileEvent{path: path, before: f.disk[path], after: target, gen: gen})
		f.disk[path] = target
	}
	return undo
}

// afterGen is the position at which generation gen stopped being current.
func (f *modelFiles) afterGen(gen int) int {
	return slices.IndexFunc(f.events, func(e modelFileEvent) bool { return e.gen > gen })
}

// checkReport compares a dry run's report with the model's plan.
func checkReport(rep *filecp.Report, p filePlan) error {
	if rep == nil {
		return fmt.Errorf("no files report")
	}
	got := filePlan{changes: map[string]string{}}
	for kind, paths := range map[string][]string{"modify": rep.Modified, "create": rep.Created, "delete": rep.Deleted} {
		for _, path := range paths {
			got.changes[path] = kind
		}
	}
	for _, c := range rep.Conflicts {
		got.conflicts = append(got.conflicts, c.Path)
	}
	want := maps.Clone(p.changes)
	for _, c := range p.conflicts {
		delete(want, c)
	}
	if !maps.Equal(got.changes, want) || !slices.Equal(got.conflicts, p.conflicts) || len(rep.Skipped) > 0 {
		return fmt.Errorf("files report changes %v conflicts %v skipped %v, the model's changes %v conflicts %v",
			got.changes, got.conflicts, rep.Skipped, want, p.conflicts)
	}
	return nil
}

// choice is a random choice of a rewind's dialog.
func choice(rng *rand.Rand) Choice {
	ch := []Choice{ConversationOnly, ConversationAndFiles, FilesOnly}[rng.Intn(3)]
	ch.Force = ch.Files && rng.Intn(3) > 0
	return ch
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

// before is the current view before checkpoint cp, and cp's file position.
func (m *model) before(cp int) ([]string, []int, int) {
	g := m.gens[m.cur]
	i := slices.Index(g.view, fmt.Sprintf("cp:%d", cp))
	return g.view[:i], g.at[:i], g.at[i]
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

// filesLength is the length of the sequences that are mostly about files.
const filesLength = 18

// runSequence runs n random operations on a new session of db whose work
// dir is dir.
func runSequence(t *testing.T, ctx context.Context, db *store.DB, dir string, seed int64, n int) {
	rng := rand.New(rand.NewSource(seed))
	s, err := db.CreateSession(ctx, store.NewSession{Title: fmt.Sprint(seed), WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	m := &model{gens: []modelGen{{cause: store.CauseStart}}, shown: map[string]bool{},
		files: modelFiles{disk: map[string]string{}, users: map[string]bool{}}}
	env := Env{DB: db, Session: s}
	conv := StoreConversation{DB: db, SessionID: s.ID}
	tr, err := env.Tracker()
	if err != nil {
		t.Fatal(err)
	}
	// One seed in five is mostly about files, in longer sequences (a lost
	// guard needs a write, an edit, a forced rewind, its undo and one more
	// rewind): steps that write, the user's edits, rewinds with files and
	// their undo. The others are mostly about the conversation. The
	// operations are numbered as in the switch below.
	filesMode := seed%5 == 4
	if filesMode {
		n = filesLength
	}
	mix := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	if filesMode {
		mix = []int{0, 3, 3, 4, 5, 5, 6, 7, 7, 7, 8, 9, 10, 11, 11}
	}
	var log []string
	// last is the view checked after the last operation: the session's
	// current view until the next one (nothing else writes it).
	var last store.View
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d after %s: %s", seed, strings.Join(log, ", "), fmt.Sprintf(format, args...))
	}
	// must marks itself a helper only when it fails: t.Helper walks the
	// stack at every call (1.4 % of the test's CPU, called after every
	// statement), and a helper is needed only for the failure's report.
	must := func(err error) {
		if err != nil {
			t.Helper()
			fail("%v", err)
		}
	}
	// rewind applies p as chosen and the model's file plan fp with it: a
	// conflict without force changes nothing; moved says whether the
	// conversation moves; it returns whether the rewind was carried out and
	// the model's undo position.
	rewind := func(p Plan, ch Choice, fp filePlan, moved bool, what string) (bool, int) {
		t.Helper()
		_, err := Apply(ctx, env, conv, p, ch)
		var conflict *ConflictError
		if ch.Files && !ch.Force && len(fp.conflicts) > 0 {
			if !errors.As(err, &conflict) {
				fail("%s with conflicts %v: %v, want a conflict error", what, fp.conflicts, err)
			}
			log = append(log, what+" (conflict)")
			return false, -1
		}
		must(err)
		gen := m.cur
		if moved {
			gen = len(m.gens)
		}
		undo := -1
		if ch.Files {
			undo = m.files.apply(fp, ch.Force, gen)
		}
		log = append(log, fmt.Sprintf("%s %+v", what, ch))
		return true, undo
	}
	for i := 0; i < n; i++ {
		cps := m.checkpoints()
		op := mix[rng.Intn(len(mix))]
		switch {
		case op <= 2: // prompt: a checkpoint and the prompt in one transaction, as the soul starts a turn
			text := m.text("prompt")
			_, err := db.StartTurn(ctx, s.ID, false, message.NewText("user", text))
			must(err)
			m.appendRecs(fmt.Sprintf("cp:%d", m.nextCP()), "user:"+text)
			log = append(log, "prompt")
		case op <= 4: // step, writing a file now and then
			text := m.text("answer")
			_, err := db.Checkpoint(ctx, s.ID, false)
			must(err)
			m.appendRecs(fmt.Sprintf("cp:%d", m.nextCP()))
			if filesMode || rng.Intn(4) == 0 {
				path := modelPaths[rng.Intn(len(modelPaths))]
				content := m.text("agent")
				_, err := tr.BeforeWrite(ctx, []string{filepath.Join(dir, path)})
				must(err)
				must(os.WriteFile(filepath.Join(dir, path), []byte(content), 0o644))
				must(tr.Flush(ctx))
				f := &m.files
				f.events = append(f.events, modelFileEvent{path: path, before: f.disk[path], after: content, gen: m.cur})
				f.disk[path] = content
				log = append(log, "write "+path)
			}
			_, err = db.CommitStep(ctx, s.ID, store.Step{Assistant: message.NewText("assistant", text)})
			must(err)
			m.appendRecs("assistant:" + text)
			log = append(log, "step")
		case op == 5 && len(cps) > 0: // revert through this package
			cp := cps[rng.Intn(len(cps))]
			p, err := PlanRevert(ctx, env, cp, CheckFiles)
			must(err)
			if want := planFromView(t, last, cp); p.Messages != want.Messages || p.ReturnTo != want.ReturnTo || p.Keeps != want.Keeps || p.seq != want.seq {
				t.Fatalf("after %v: plan of a revert to %d %+v, the whole view's %+v", log, cp, p, want)
			}
			view, at, pos := m.before(cp)
			fp := m.files.plan(pos)
			if err := checkReport(p.Files, fp); err != nil {
				fail("revert %d: %v", cp, err)
			}
			ch := choice(rng)
			if ok, undo := rewind(p, ch, fp, ch.Conversation, fmt.Sprintf("revert %d", cp)); ok {
				before := m.cur
				if ch.Conversation {
					m.start(view, at, store.CauseRevert)
				}
				if m.cur != before || undo >= 0 {
					m.rows = append(m.rows, modelRewind{before: before, after: m.cur, filesUndo: undo})
				}
			}
		case op == 6 && m.cur > 0: // restore an older generation
			g := rng.Intn(m.cur)
			p, err := PlanRestore(ctx, env, g, CheckFiles)
			must(err)
			fp := m.files.plan(m.files.afterGen(g))
			if err := checkReport(p.Files, fp); err != nil {
				fail("restore %d: %v", g, err)
			}
			ch := choice(rng)
			if ok, undo := rewind(p, ch, fp, ch.Conversation, fmt.Sprintf("restore %d", g)); ok {
				before := m.cur
				if ch.Conversation {
					m.start(m.gens[g].view, m.gens[g].at, store.CauseRestore)
				}
				if m.cur != before || undo >= 0 {
					m.rows = append(m.rows, modelRewind{before: before, after: m.cur, filesUndo: undo})
				}
			}
		case op == 7: // undo the last rewind
			p, err := PlanUndo(ctx, env, CheckFiles)
			must(err)
			last := modelRewind{before: -1, filesUndo: -1}
			switch {
			case m.gens[m.cur].cause == store.CauseBacktrack && (len(m.rows) == 0 || m.rows[len(m.rows)-1].after < m.cur):
				last = modelRewind{before: m.cur - 1, after: m.cur, filesUndo: -1}
			case len(m.rows) > 0:
				last = m.rows[len(m.rows)-1]
			}
			target := -1
			if last.before != last.after {
				target = last.before
			}
			fp := m.files.plan(last.filesUndo)
			if target < 0 && len(fp.changes) == 0 {
				if p.Nothing == "" {
					fail("undo with nothing to undo planned %+v", p)
				}
				log = append(log, "undo (nothing)")
				break
			}
			if p.Gen != target {
				fail("undo would bring back generation %d, the model says %d", p.Gen, target)
			}
			if last.filesUndo >= 0 {
				if err := checkReport(p.Files, fp); err != nil {
					fail("undo: %v", err)
				}
			}
			ch := Choice{Conversation: true, Files: p.Files != nil, Force: rng.Intn(2) == 0}
			if ok, undo := rewind(p, ch, fp, target >= 0, "undo"); ok {
				before := m.cur
				if target >= 0 {
					m.start(m.gens[target].view, m.gens[target].at, store.CauseRestore)
				}
				if m.cur != before || undo >= 0 {
					m.rows = append(m.rows, modelRewind{before: before, after: m.cur, filesUndo: undo})
				}
			}
		case op == 8: // compact or clear
			if rng.Intn(2) == 0 {
				text := m.text("summary")
				_, err := db.StartCompacted(ctx, s.ID, []message.Message{message.NewText("user", text)}, m.cur, 0, false)
				must(err)
				n := len(m.files.events)
				m.start([]string{"cp:0", "user:" + text}, []int{n, n}, store.CauseCompact)
				log = append(log, "compact")
			} else {
				_, err := db.Clear(ctx, s.ID)
				must(err)
				m.start(nil, nil, store.CauseClear)
				log = append(log, "clear")
			}
		case op == 9 && len(cps) > 0: // backtrack (a D-Mail)
			cp := cps[rng.Intn(len(cps))]
			note := m.text("dmail")
			_, err := db.RevertTo(ctx, s.ID, cp, store.CauseBacktrack, note)
			must(err)
			view, at, _ := m.before(cp)
			m.start(view, at, store.CauseBacktrack)
			_, err = db.StartTurn(ctx, s.ID, false, message.NewText("user", note)) // the D-Mail's turn, as the soul starts it
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
			prev, prevAt := m.view(), m.gens[m.cur].at
			m.start(append(slices.Clone(prev), "assistant:"+text), append(slices.Clone(prevAt), len(m.files.events)), store.CauseInterrupt)
			m.start(prev, prevAt, store.CauseRestore)
			log = append(log, "interrupt")
		case op == 11: // the user edits a file
			path := modelPaths[rng.Intn(len(modelPaths))]
			content := m.text("user")
			must(os.WriteFile(filepath.Join(dir, path), []byte(content), 0o644))
			f := &m.files
			f.users[content] = f.touched(path)
			f.disk[path] = content
			log = append(log, "edit "+path)
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
		last = v
		if cps := m.checkpoints(); filesMode && len(cps) > 0 {
			// Every file the agent touched since the first checkpoint, as a
			// revert to it would see them: guards show here at once. This is
			// PlanRevert's files half (planFiles, on a tracker of its own, at
			// the checkpoint's seq in the view just checked); its
			// conversation half is checked at every revert above.
			seq := v.Records[CheckpointIndex(v, cps[0])].Seq
			p := Plan{SessionID: s.ID}
			p.planFiles(ctx, env, func(tr *filecp.Tracker, o filecp.RevertOptions) (filecp.Report, error) {
				return tr.RevertFiles(ctx, seq, o)
			}, CheckFiles)
			must(p.FilesErr)
			_, _, pos := m.before(cps[0])
			if err := checkReport(p.Files, m.files.plan(pos)); err != nil {
				fail("a revert to checkpoint %d would see: %v", cps[0], err)
			}
		}
		for _, path := range modelPaths {
			data, err := os.ReadFile(filepath.Join(dir, path))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				fail("%v", err)
			}
			if string(data) != m.files.disk[path] {
				fail("%s holds %q, the model's %q", path, data, m.files.disk[path])
			}
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
	// Each batch runs its sequences one after another, each on a session
	// of its own in the batch's database; the batches run in parallel. A
	// batch's sessions share one work dir, as a project's sessions do: a
	// directory of its own for each sequence cost more CPU than any
	// operation of the test (creating an inode on this machine's ext4 takes
	// 100–250 µs). Each sequence starts with the dir empty, as the model
	// does; nothing but the model's files may be left in it.
	const batches = 8
	for b := 0; b < batches; b++ {
		t.Run(fmt.Sprint(b), func(t *testing.T) {
			t.Parallel()
			scratch := memoryDir(t)
			db := storetest.OpenAt(t, filepath.Join(scratch, "rewind.db"), store.Options{})
			dir := filepath.Join(scratch, "work")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for i := b; i < sequences; i += batches {
				for _, p := range modelPaths {
					if err := os.Remove(filepath.Join(dir, p)); err != nil && !errors.Is(err, fs.ErrNotExist) {
						t.Fatal(err)
					}
				}
				if left, err := os.ReadDir(dir); err != nil || len(left) > 0 {
					t.Fatalf("before seed %d the work dir holds %v (%v), want nothing", i, left, err)
				}
				runSequence(t, ctx, db, dir, int64(i), length)
			}
		})
	}
}

// memoryDir is a directory for one batch's database and work dir in
// memory (tmpfs, /dev/shm) where the machine has one, else t.TempDir().
// The test is about what time travel does, not about the disk: on tmpfs
// the same statements, WAL frames, temp files, renames and fsyncs run,
// without ext4's block and journal work under them (about 2 s of the
// test's 10 s of CPU on this machine). The disk's own guarantees are
// the store's and filecp's tests, on t.TempDir().
func memoryDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "rewind-timetravel-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
	})
	return dir
}

// planFromView is what PlanRevert works out, read from the whole view v (as
// it was before it read the pages around the checkpoint only).
func planFromView(t *testing.T, v store.View, cp int) Plan {
	t.Helper()
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
