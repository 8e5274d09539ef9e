package timetravel

import (
	"context"
	"errors"
	"fmt"

	"github.com/rewind-agent/rewind/soul/filecp"
	"github.com/rewind-agent/rewind/store"
)

// Kind is what an operation does.
type Kind int

const (
	Revert  Kind = iota // the view goes back to before a checkpoint
	Restore             // an archived generation becomes current again
	Undo                // the last rewind is undone (conversation and files)
)

// Plan is an operation worked out and not yet done: the preview every front
// end shows before asking.
type Plan struct {
	Kind       Kind
	SessionID  string
	CurrentGen int
	// Revert: the checkpoint gone back to.
	Checkpoint int
	// Restore: the generation made current; Undo: the generation brought
	// back, -1 when the undone rewind did not move the conversation.
	Gen int
	// Messages: Revert, the messages archived; Restore and Undo, the
	// messages of the generation brought back.
	Messages int
	// Revert to a turn: its prompt, put back in the input.
	ReturnTo string
	// Revert to a step: what stays, in words.
	Keeps string
	// Nothing, when set, says why there is nothing to do.
	Nothing string
	// Files is the dry run of the files half (with diffs when asked); nil
	// when FilesErr says why the files cannot be checked.
	Files    *filecp.Report
	FilesErr error
	// Undo: the rewind undone.
	Undoes store.Rewind

	seq      int64           // Revert: the checkpoint record's seq
	filesPos filecp.Position // Undo: the file position restored
}

// FilesChange reports whether the files half would change any file
// (conflicts included, they change with Force).
func (p Plan) FilesChange() bool {
	return p.Files != nil && (p.Files.Changed() > 0 || len(p.Files.Conflicts) > 0)
}

// MovesConversation reports whether the plan moves the conversation.
func (p Plan) MovesConversation() bool { return p.Kind != Undo || p.Gen >= 0 }

// Check says how much of the files half a plan works out; the zero value
// plans the conversation only (Plan.Files stays nil).
type Check struct {
	Files bool // which files would change
	Diffs bool // and the unified diff of each (implies Files)
	Force bool // as a forced rewind would: conflicts are overwritten
}

// CheckFiles is the usual files check of a dialog.
var CheckFiles = Check{Files: true}

// PlanRevert works out a revert of the current view to before checkpoint
// id. It never reads the whole view: the store finds the checkpoint
// through its index and counts the messages either side of it, and the
// turn it belongs to is read from the pages around it (placeOf), so a
// long session plans as fast as a short one.
func PlanRevert(ctx context.Context, env Env, id int, check Check) (Plan, error) {
	at, err := env.DB.FindCheckpoint(ctx, env.Session.ID, -1, id)
	if err != nil {
		return Plan{}, notInView(ctx, env.DB, env.Session, id, err)
	}
	p := Plan{Kind: Revert, SessionID: at.Generation.SessionID, CurrentGen: at.Generation.Gen, Checkpoint: id, Gen: -1,
		Messages: at.Generation.Messages - at.MessagesBefore, seq: at.Pos.Seq}
	turn, step, err := placeOf(ctx, env.DB, at, id)
	if err != nil {
		return p, err
	}
	switch {
	case turn != nil && step == nil && !turn.DMail:
		p.ReturnTo = turn.Prompt
	case turn != nil && step != nil:
		p.Keeps = keeps(*turn, *step)
	}
	p.planFiles(ctx, env, func(tr *filecp.Tracker, o filecp.RevertOptions) (filecp.Report, error) {
		return tr.RevertFiles(ctx, p.seq, o)
	}, check)
	return p, nil
}

// Pages placeOf reads: the records after a checkpoint that say what it is
// (a prompt or a step follows it), and the pages before it read until its
// turn's start.
const (
	placeAfter = 16
	placePage  = 1000
)

// placeOf is place for checkpoint id at the place at: the turn it belongs
// to and its step, read from the records around it. It reads pages
// backwards from the checkpoint until its turn is not the first turn
// read: a turn after the first one starts at a prompt inside the pages
// read, so its prompt and step numbers are those a read of the whole view
// gives (a turn builder started mid-view agrees with one started at the
// view's first record from the first checkpoint record on).
func placeOf(ctx context.Context, db *store.DB, at store.CheckpointPlace, id int) (*Turn, *Step, error) {
	gen := at.Generation.Gen
	after, err := db.ViewAfter(ctx, at.Generation.SessionID, gen, at.Pos, placeAfter)
	if err != nil {
		return nil, nil, err
	}
	tail := append([]store.Record{{SessionID: at.Pos.SessionID, Seq: at.Pos.Seq, Gen: gen, Kind: store.KindCheckpoint, CheckpointID: id}}, after.Records...)
	var before []store.Record
	pos := at.Pos
	for {
		page, err := db.ViewBefore(ctx, at.Generation.SessionID, gen, pos, placePage)
		if err != nil {
			return nil, nil, err
		}
		before = append(page.Records, before...)
		turns := Turns(store.View{Records: append(before[:len(before):len(before)], tail...)})
		turn, step := place(turns, id)
		if !page.Earlier || turn != nil && turn != &turns[0] {
			return turn, step, nil
		}
		pos = page.Start()
	}
}

// CheckpointIndex is the index in v.Records of checkpoint id's record, -1
// when the view has none. A repeated id (an imported context.jsonl may
// repeat one) means its first occurrence, as the store's RevertTo and
// kimi-cli's revert_to read it.
func CheckpointIndex(v store.View, id int) int {
	for i, r := range v.Records {
		if r.Kind == store.KindCheckpoint && r.CheckpointID == id {
			return i
		}
	}
	return -1
}

// keeps says what a revert to before step s of turn t leaves.
func keeps(t Turn, s Step) string {
	step := []rune(s.String())
	if len(step) > 60 {
		step = append(step[:59], '…')
	}
	prompt := "“" + t.Label() + "”"
	switch {
	case t.Checkpoint < 0 && t.Prompt == "":
		prompt = "the start"
	case t.DMail:
		prompt = "the D-Mail “" + firstLine(t.Prompt) + "”"
	}
	if s.N == 1 {
		return fmt.Sprintf("You keep %s without an answer; %s and everything after are archived.", prompt, string(step))
	}
	kept := "step 1"
	if s.N > 2 {
		kept = fmt.Sprintf("steps 1–%d", s.N-1)
	}
	return fmt.Sprintf("You keep %s and its %s; %s and everything after are archived.", prompt, kept, string(step))
}

// PlanRestore works out making generation gen current again.
func PlanRestore(ctx context.Context, env Env, gen int, check Check) (Plan, error) {
	gens, err := env.DB.Generations(ctx, env.Session.ID)
	if err != nil {
		return Plan{}, err
	}
	s, err := env.DB.GetSession(ctx, env.Session.ID)
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Kind: Restore, SessionID: s.ID, CurrentGen: s.CurrentGen, Gen: gen}
	found := false
	for _, g := range gens {
		if g.Gen == gen {
			found, p.Messages = true, g.Messages
		}
	}
	if !found {
		return p, fmt.Errorf("%w: %d", store.ErrGenerationNotFound, gen)
	}
	if gen == s.CurrentGen {
		p.Nothing = fmt.Sprintf("generation %d is the current one: there is nothing to restore", gen)
		return p, nil
	}
	p.planFiles(ctx, env, func(tr *filecp.Tracker, o filecp.RevertOptions) (filecp.Report, error) {
		return tr.RestoreFilesToGeneration(ctx, gen, o)
	}, check)
	return p, nil
}

// PlanUndo works out undoing the session's last rewind: the generation
// current before it comes back, and the files go back to the state it
// replaced. A D-Mail is a rewind too (its generation has cause backtrack).
func PlanUndo(ctx context.Context, env Env, check Check) (Plan, error) {
	s, err := env.DB.GetSession(ctx, env.Session.ID)
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Kind: Undo, SessionID: s.ID, CurrentGen: s.CurrentGen, Gen: -1}
	r, err := env.DB.LastRewind(ctx, s.ID, 0)
	if err != nil && !errors.Is(err, store.ErrNoRewind) {
		return p, err
	}
	gens, gerr := env.DB.Generations(ctx, s.ID)
	if gerr != nil {
		return p, gerr
	}
	// A D-Mail newer than the last logged rewind (without file rewind, it
	// is not logged) is the rewind to undo.
	for _, g := range gens {
		if g.Gen == s.CurrentGen && g.Cause == store.CauseBacktrack && g.Gen > 0 && (err != nil || r.AfterGen < g.Gen) {
			r, err = store.Rewind{SessionID: s.ID, Op: "backtrack", BeforeGen: g.Gen - 1, AfterGen: g.Gen, What: "D-Mail"}, nil
		}
	}
	if err != nil {
		p.Nothing = "there is no rewind to undo in this session"
		return p, nil
	}
	p.Undoes = r
	if r.AfterGen != r.BeforeGen {
		p.Gen = r.BeforeGen
		for _, g := range gens {
			if g.Gen == p.Gen {
				p.Messages = g.Messages
			}
		}
	}
	if r.FilesUndo > 0 {
		p.filesPos = filecp.Position(r.FilesUndo)
		p.planFiles(ctx, env, func(tr *filecp.Tracker, o filecp.RevertOptions) (filecp.Report, error) {
			return tr.RestoreFilesTo(ctx, p.filesPos, o)
		}, check)
	}
	if p.Gen < 0 && !p.FilesChange() && p.FilesErr == nil {
		p.Nothing = "the last rewind changed no file and kept the conversation: there is nothing to undo"
	}
	return p, nil
}

// planFiles runs the files half as a dry run.
func (p *Plan) planFiles(ctx context.Context, env Env, rewind func(*filecp.Tracker, filecp.RevertOptions) (filecp.Report, error), check Check) {
	if !check.Files && !check.Diffs {
		return
	}
	tr, err := env.Tracker()
	if err != nil {
		p.FilesErr = err
		return
	}
	rep, err := rewind(tr, filecp.RevertOptions{DryRun: true, Diffs: check.Diffs, Force: check.Force})
	if err != nil {
		p.FilesErr = fmt.Errorf("check the files of session %s: %w", p.SessionID, err)
		return
	}
	p.Files = &rep
}
