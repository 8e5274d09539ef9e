package timetravel

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul/filecp"
	"github.com/rewind-agent/rewind/store"
)

// Choice is what the person picked: the same four everywhere.
type Choice struct {
	Conversation bool // move the conversation
	Files        bool // move the files
	Force        bool // overwrite files changed by someone else (kept first, so undoable)
}

// The choices by name, as the dialogs and the CLI flags offer them.
var (
	ConversationOnly     = Choice{Conversation: true}
	ConversationAndFiles = Choice{Conversation: true, Files: true}
	FilesOnly            = Choice{Files: true}
)

// ConflictError refuses a file rewind that would overwrite changes someone
// else made since the agent touched the files; nothing was changed.
type ConflictError struct{ Conflicts []filecp.Conflict }

func (e *ConflictError) Error() string { return e.Text("force to overwrite") }

// Text says which files conflict and how to force, in the front end's words
// ("pass --force to overwrite").
func (e *ConflictError) Text(force string) string {
	names := make([]string, 0, len(e.Conflicts))
	for _, c := range e.Conflicts {
		names = append(names, c.Path+" ("+c.Reason+")")
	}
	n := len(names)
	return fmt.Sprintf("%d %s changed since the agent last touched %s: %s; nothing was changed (%s; the current content is kept and can be restored)",
		n, words.Plural(n, "file was", "files were"), words.Plural(n, "it", "them"), strings.Join(names, ", "), force)
}

// ErrNothing: the plan has nothing to do (Plan.Nothing says why).
var ErrNothing = errors.New("nothing to do")

// Result is what Apply did.
type Result struct {
	Plan   Plan
	Choice Choice
	// Gen is the new current generation; nil when the conversation stayed.
	Gen *store.Generation
	// Files is what the files half did; nil when it did not run.
	Files    *filecp.Report
	FilesErr error
	// RewindID is the rewind's entry in the log (0: nothing changed, so
	// nothing to undo).
	RewindID int64
}

// Apply carries out p as chosen. Conflicts are checked on the plan first:
// without Force a conflicting file rewind changes nothing and returns a
// *ConflictError. The rewind is logged so PlanUndo can undo it.
func Apply(ctx context.Context, env Env, conv Conversation, p Plan, ch Choice) (Result, error) {
	res := Result{Plan: p, Choice: ch}
	if p.Nothing != "" {
		return res, fmt.Errorf("%w: %s", ErrNothing, p.Nothing)
	}
	if !p.MovesConversation() {
		ch.Conversation = false
	}
	if ch.Files && p.Files == nil && p.FilesErr == nil {
		return res, errors.New("timetravel: the plan did not check the files")
	}
	if ch.Files && p.FilesErr != nil {
		return res, p.FilesErr
	}
	if ch.Files && !ch.Force {
		var stop []filecp.Conflict
		for _, c := range p.Files.Conflicts {
			if !c.Overwritten {
				stop = append(stop, c)
			}
		}
		if len(stop) > 0 {
			return res, &ConflictError{Conflicts: stop}
		}
	}
	if ch.Conversation {
		var g store.Generation
		var err error
		switch p.Kind {
		case Revert:
			g, err = conv.RevertTo(ctx, p.Checkpoint)
		default:
			g, err = conv.Restore(ctx, p.Gen)
		}
		if err != nil {
			return res, err
		}
		res.Gen = &g
	}
	if ch.Files {
		res.Files, res.FilesErr = applyFiles(ctx, env, p, ch.Force)
	}
	entry := store.Rewind{SessionID: p.SessionID, Op: p.op(), BeforeGen: p.CurrentGen, AfterGen: p.CurrentGen, What: p.What()}
	if res.Gen != nil {
		entry.AfterGen = res.Gen.Gen
	}
	if res.Files != nil {
		entry.FilesUndo = int64(res.Files.Undo)
	}
	if res.Gen != nil || entry.FilesUndo > 0 {
		id, err := env.DB.RecordRewind(context.WithoutCancel(ctx), entry)
		if err != nil {
			return res, err
		}
		res.RewindID = id
	}
	return res, nil
}

// applyFiles runs the files half for real.
func applyFiles(ctx context.Context, env Env, p Plan, force bool) (*filecp.Report, error) {
	tr, err := env.Tracker()
	if err != nil {
		return nil, err
	}
	o := filecp.RevertOptions{Force: force}
	var rep filecp.Report
	switch p.Kind {
	case Revert:
		rep, err = tr.RevertFiles(ctx, p.seq, o)
	case Restore:
		rep, err = tr.RestoreFilesToGeneration(ctx, p.Gen, o)
	default:
		rep, err = tr.RestoreFilesTo(ctx, p.filesPos, o)
	}
	return &rep, err
}

func (p Plan) op() string {
	switch p.Kind {
	case Revert:
		return "revert"
	case Restore:
		return "restore"
	}
	return "undo"
}

// RevertFilesForDMail is the files half of a D-Mail (soul.FileReverter):
// the soul has just written the backtrack generation, so the checkpoint is
// in the generation it archived. Conflicting files are left alone and
// reported; the rewind is logged, so it can be undone with the D-Mail.
func RevertFilesForDMail(ctx context.Context, env Env, checkpoint int) error {
	s, err := env.DB.GetSession(ctx, env.Session.ID)
	if err != nil {
		return err
	}
	before := s.CurrentGen - 1
	at, err := env.DB.FindCheckpoint(ctx, s.ID, before, checkpoint)
	if err != nil {
		return fmt.Errorf("checkpoint %d is not in generation %d: %w", checkpoint, before, err)
	}
	seq := at.Pos.Seq
	tr, err := env.Tracker()
	if err != nil {
		return err
	}
	rep, err := tr.RevertFiles(ctx, seq, filecp.RevertOptions{})
	if rep.Undo > 0 {
		if _, lerr := env.DB.RecordRewind(context.WithoutCancel(ctx), store.Rewind{SessionID: s.ID, Op: "backtrack",
			BeforeGen: before, AfterGen: s.CurrentGen, FilesUndo: int64(rep.Undo), What: fmt.Sprintf("D-Mail to checkpoint %d", checkpoint)}); lerr != nil && err == nil {
			err = lerr
		}
	}
	if err != nil {
		return fmt.Errorf("revert files of session %s to checkpoint %d: %w", s.ID, checkpoint, err)
	}
	if len(rep.Conflicts) > 0 {
		names := make([]string, 0, len(rep.Conflicts))
		for _, c := range rep.Conflicts {
			names = append(names, c.Path)
		}
		return fmt.Errorf("left alone, changed by someone else: %s", strings.Join(names, ", "))
	}
	return nil
}
