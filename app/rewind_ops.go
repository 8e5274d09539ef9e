package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/rewind-agent/rewind/app/timetravel"
	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul/filecp"
	"github.com/rewind-agent/rewind/store"
)

// FileOptions choose what a revert, restore or undo does to the work
// directory's files (file checkpoints: soul/filecp), and whether it only says what it would do.
type FileOptions struct {
	Files     bool // also move the files (revert --files, restore --files)
	FilesOnly bool // only the files, the conversation stays (revert --files-only)
	Force     bool // overwrite files changed by someone else since the agent touched them
	DryRun    bool // print what would happen and change nothing, conversation included
	Diffs     bool // with DryRun and a files flag: print the unified diff of every file
}

func (o FileOptions) files() bool { return o.Files || o.FilesOnly }

// check rejects flag combinations that mean nothing; filesFlags names the
// command's files flags for the message.
func (o FileOptions) check(filesFlags string) error {
	switch {
	case o.Files && o.FilesOnly:
		return Usage(errors.New("--files and --files-only cannot be used together"))
	case o.Diffs && !o.DryRun:
		return Usage(errors.New("--diff needs --dry-run"))
	case o.Diffs && !o.files():
		return Usage(fmt.Errorf("--diff shows file changes: add %s", filesFlags))
	}
	return nil
}

// filesCheck is how much of the files half the plan needs.
func (o FileOptions) filesCheck() timetravel.Check {
	return timetravel.Check{Files: o.files(), Diffs: o.Diffs, Force: o.Force}
}

func (o FileOptions) choice() timetravel.Choice {
	return timetravel.Choice{Conversation: !o.FilesOnly, Files: o.files(), Force: o.Force}
}

// Revert makes a new generation whose view ends before checkpoint N; with
// --files it also moves the files back, with --files-only only the files.
// File conflicts (files changed by someone else since the agent touched
// them) are checked before anything changes: without --force the command
// lists them and changes nothing. With --dry-run it prints the plan.
func Revert(ctx context.Context, rt *Runtime, id string, checkpoint int, fo FileOptions) error {
	if err := fo.check("--files or --files-only"); err != nil {
		return err
	}
	return rt.timeTravel(ctx, id, fo, fmt.Sprintf("checkpoint %d", checkpoint), func(env timetravel.Env) (timetravel.Plan, error) {
		return timetravel.PlanRevert(ctx, env, checkpoint, fo.filesCheck())
	})
}

// Restore makes an archived generation current again (as a new generation);
// with --files the files go back to their state when that generation was
// left. With --dry-run it prints the plan.
func Restore(ctx context.Context, rt *Runtime, id string, gen int, fo FileOptions) error {
	if err := fo.check("--files or --files-only"); err != nil {
		return err
	}
	return rt.timeTravel(ctx, id, fo, fmt.Sprintf("generation %d", gen), func(env timetravel.Env) (timetravel.Plan, error) {
		return timetravel.PlanRestore(ctx, env, gen, fo.filesCheck())
	})
}

// Undo undoes the session's last rewind: the conversation and the files go
// back to what they were before it (an undo is a rewind too, so undoing it
// again redoes); --files-only leaves the conversation. --force overwrites
// files changed since.
func Undo(ctx context.Context, rt *Runtime, id string, fo FileOptions) error {
	if fo.Diffs && !fo.DryRun {
		return Usage(errors.New("--diff needs --dry-run"))
	}
	check := fo.filesCheck()
	check.Files = true
	return rt.timeTravel(ctx, id, fo, "the last rewind", func(env timetravel.Env) (timetravel.Plan, error) {
		return timetravel.PlanUndo(ctx, env, check)
	})
}

// timeTravel plans, prints the plan (--dry-run) or applies it under the
// session's lease.
func (rt *Runtime) timeTravel(ctx context.Context, id string, fo FileOptions, what string, plan func(timetravel.Env) (timetravel.Plan, error)) error {
	// A dry run changes nothing, so it needs no lease: it works while a
	// running rewind holds the session.
	h, err := rt.openSession(ctx, id, !fo.DryRun)
	if err != nil {
		return err
	}
	defer h.Close(ctx)
	env := timeTravelEnv(h.db, h.s, h.cfg)
	p, err := plan(env)
	if err != nil {
		return storeError(err, h.s.ID, what)
	}
	if p.Nothing != "" {
		return userErrorf(nil, "%s", p.Nothing)
	}
	ch := fo.choice()
	if p.Kind == timetravel.Undo { // both halves of what the rewind moved
		ch.Files = p.Files != nil || p.FilesErr != nil
	}
	if ch.Files && p.FilesErr != nil {
		return filesError(p.FilesErr)
	}
	w := &errWriter{w: rt.Stdout}
	if fo.DryRun {
		if ch.Conversation && p.MovesConversation() {
			w.printf("%s\n", sanitize(p.ConversationLine(0, false)))
		}
		if ch.Files {
			for _, l := range timetravel.FileLines(*p.Files, p.FilesTitle(false)) {
				w.printf("%s\n", sanitize(l))
			}
			if d := timetravel.Diffs(*p.Files); d != "" {
				w.printf("\n%s", sanitize(d))
			}
			if n := len(p.Files.Conflicts); n > 0 && !fo.Force {
				w.printf("without --force the command would change nothing: %d %s changed since the agent last touched %s\n",
					n, words.Plural(n, "file was", "files were"), words.Plural(n, "it", "them"))
			}
		}
		w.printf("dry run: nothing was changed\n")
		return w.err
	}
	res, err := timetravel.Apply(ctx, env, timetravel.StoreConversation{DB: h.db, SessionID: h.s.ID}, p, ch)
	var conflict *timetravel.ConflictError
	if errors.As(err, &conflict) {
		return userErrorf(nil, "%s", oneLine(conflict.Text("pass --force to overwrite")))
	}
	if err != nil {
		return storeError(err, h.s.ID, what)
	}
	for _, l := range res.Lines(timetravel.UndoCommand(h.s.ID)) {
		w.printf("%s\n", sanitize(l))
	}
	if res.FilesErr != nil {
		return fmt.Errorf("%s of session %s: %w", p.What(), h.s.ID, res.FilesErr)
	}
	return w.err
}

// timeTravelEnv is where a session's rewinds run, with the configured file
// size cap (the one the agent's tracker records with).
func timeTravelEnv(db *store.DB, s store.Session, cfg Config) timetravel.Env {
	return timetravel.Env{DB: db, Session: s, WorkDir: cfg.WorkDir, Files: filecp.Options{MaxFileSize: cfg.FileSizeCap}}
}

// filesError makes a FilesUnavailable a user error.
func filesError(err error) error {
	var fu *timetravel.FilesUnavailable
	if errors.As(err, &fu) {
		return userErrorf(fu, "%s", oneLine(fu.Reason))
	}
	return err
}

// tracker opens the file checkpoints of a session.
func tracker(db *store.DB, s store.Session, cfg Config) (*filecp.Tracker, error) {
	tr, err := timeTravelEnv(db, s, cfg).Tracker()
	if err != nil {
		return nil, filesError(err)
	}
	return tr, nil
}
