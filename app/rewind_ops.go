package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/rewind-agent/rewind/soul/filecp"
	"github.com/rewind-agent/rewind/store"
)

// FileOptions choose what a revert or restore does to the work directory's
// files (DESIGN §7).
type FileOptions struct {
	Files     bool // also move the files (revert --files, restore --files)
	FilesOnly bool // only the files, the conversation stays (revert --files-only)
	Force     bool // overwrite files changed by someone else since the agent touched them
}

func checkFileOptions(o FileOptions) error {
	if o.Files && o.FilesOnly {
		return Usage(fmt.Errorf("--files and --files-only cannot be used together"))
	}
	return nil
}

// Revert makes a new generation whose view ends before checkpoint N; with
// --files it also moves the files back, with --files-only only the files.
// File conflicts (files changed by someone else since the agent touched
// them) are checked before anything changes: without --force the command
// lists them and changes nothing.
func Revert(ctx context.Context, rt *Runtime, id string, checkpoint int, fo FileOptions) error {
	if err := checkFileOptions(fo); err != nil {
		return err
	}
	db, cfg, err := rt.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	s, lease, err := leaseSession(ctx, db, id)
	if err != nil {
		return err
	}
	defer lease.Release(context.WithoutCancel(ctx))
	what := fmt.Sprintf("checkpoint %d", checkpoint)
	v, err := db.View(ctx, s.ID)
	if err != nil {
		return storeError(err, s.ID, what)
	}
	seq, ok := filecp.SeqOfCheckpoint(v, checkpoint)
	if !ok {
		return storeError(fmt.Errorf("%w: %d", store.ErrCheckpointNotFound, checkpoint), s.ID, what)
	}

	var tr *filecp.Tracker
	if fo.Files || fo.FilesOnly {
		if tr, err = tracker(db, s, cfg); err != nil {
			return err
		}
		dry, err := tr.RevertFiles(ctx, seq, filecp.RevertOptions{DryRun: true, Force: fo.Force})
		if err != nil {
			return fmt.Errorf("check files of session %s: %w", s.ID, err)
		}
		if err := conflictError(dry, fo.Force); err != nil {
			return err
		}
	}
	if !fo.FilesOnly {
		g, err := db.RevertTo(ctx, s.ID, checkpoint, store.CauseRevert, "")
		if err != nil {
			return storeError(err, s.ID, what)
		}
		archived := max(s.Messages-g.Messages, 0)
		if _, err := fmt.Fprintf(rt.Stdout, "reverted to checkpoint %d: generation %d, %d %s archived in generation %d\n",
			checkpoint, g.Gen, archived, plural(archived, "message", "messages"), s.CurrentGen); err != nil {
			return err
		}
	}
	if tr == nil {
		return nil
	}
	rep, err := tr.RevertFiles(ctx, seq, filecp.RevertOptions{Force: fo.Force})
	printReport(rt, rep, fmt.Sprintf("files reverted to checkpoint %d", checkpoint))
	if rep.Undo != 0 && !fo.FilesOnly {
		fmt.Fprintf(rt.Stdout, "undo with `rewind restore %s %d --files`\n", s.ID, s.CurrentGen)
	}
	if err != nil {
		return fmt.Errorf("revert files of session %s to checkpoint %d: %w", s.ID, checkpoint, err)
	}
	return nil
}

// Restore makes an archived generation current again (as a new generation);
// with --files the files go back to their state when that generation was
// left.
func Restore(ctx context.Context, rt *Runtime, id string, gen int, fo FileOptions) error {
	if err := checkFileOptions(fo); err != nil {
		return err
	}
	db, cfg, err := rt.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	s, lease, err := leaseSession(ctx, db, id)
	if err != nil {
		return err
	}
	defer lease.Release(context.WithoutCancel(ctx))
	what := fmt.Sprintf("generation %d", gen)

	var tr *filecp.Tracker
	if fo.Files {
		// Validate the generation before looking at files.
		if _, err := db.GenerationView(ctx, s.ID, gen); err != nil {
			return storeError(err, s.ID, what)
		}
		if tr, err = tracker(db, s, cfg); err != nil {
			return err
		}
		dry, err := tr.RestoreFilesToGeneration(ctx, gen, filecp.RevertOptions{DryRun: true, Force: fo.Force})
		if err != nil {
			return fmt.Errorf("check files of session %s: %w", s.ID, err)
		}
		if err := conflictError(dry, fo.Force); err != nil {
			return err
		}
	}
	g, err := db.Restore(ctx, s.ID, gen)
	if err != nil {
		return storeError(err, s.ID, what)
	}
	if _, err := fmt.Fprintf(rt.Stdout, "restored generation %d as generation %d (%d %s); generation %d archived\n",
		gen, g.Gen, g.Messages, plural(g.Messages, "message", "messages"), s.CurrentGen); err != nil {
		return err
	}
	if tr == nil {
		return nil
	}
	rep, err := tr.RestoreFilesToGeneration(ctx, gen, filecp.RevertOptions{Force: fo.Force})
	printReport(rt, rep, fmt.Sprintf("files restored to the end of generation %d", gen))
	if err != nil {
		return fmt.Errorf("restore files of session %s to generation %d: %w", s.ID, gen, err)
	}
	return nil
}

// leaseSession resolves id and takes the session's writer lease, so that a
// headless change never races a running rewind. The session is re-read
// under the lease.
func leaseSession(ctx context.Context, db *store.DB, id string) (store.Session, *store.Lease, error) {
	s, err := db.GetSession(ctx, id)
	if err != nil {
		return s, nil, storeError(err, id, "")
	}
	lease, err := db.AcquireLease(ctx, s.ID)
	if err != nil {
		return s, nil, storeError(err, s.ID, "")
	}
	if s, err = db.GetSession(ctx, s.ID); err != nil {
		lease.Release(context.WithoutCancel(ctx))
		return s, nil, storeError(err, s.ID, "")
	}
	return s, lease, nil
}

// tracker opens the file checkpoints of a session.
func tracker(db *store.DB, s store.Session, cfg Config) (*filecp.Tracker, error) {
	if s.WorkDir == "" {
		return nil, userErrorf(nil, "session %s has no work directory, so it has no file checkpoints", s.ID)
	}
	tr, err := filecp.New(db, s.ID, s.WorkDir, filecp.Options{MaxFileSize: cfg.FileSizeCap})
	if err != nil {
		return nil, userErrorf(err, "cannot use the work directory %s of session %s: %s", s.WorkDir, s.ID, oneLine(err.Error()))
	}
	return tr, nil
}

// conflictError refuses a file rewind that would overwrite someone else's
// changes, listing them.
func conflictError(dry filecp.Report, force bool) error {
	if force || len(dry.Conflicts) == 0 {
		return nil
	}
	var names []string
	for _, c := range dry.Conflicts {
		names = append(names, c.Path+" ("+c.Reason+")")
	}
	n := len(names)
	return userErrorf(nil, "%d %s changed since the agent last touched %s: %s; nothing was changed (pass --force to overwrite; the current content is kept and can be restored)",
		n, plural(n, "file was", "files were"), plural(n, "it", "them"), oneLine(strings.Join(names, ", ")))
}

// printReport lists what a file rewind did.
func printReport(rt *Runtime, rep filecp.Report, title string) {
	w := rt.Stdout
	if rep.Changed() == 0 && len(rep.Skipped) == 0 && len(rep.Conflicts) == 0 {
		fmt.Fprintf(w, "%s: no file needed to change\n", title)
		return
	}
	fmt.Fprintf(w, "%s: %d modified, %d created, %d deleted\n", title, len(rep.Modified), len(rep.Created), len(rep.Deleted))
	for _, p := range rep.Modified {
		fmt.Fprintf(w, "  modified  %s\n", sanitize(p))
	}
	for _, p := range rep.Created {
		fmt.Fprintf(w, "  created   %s\n", sanitize(p))
	}
	for _, p := range rep.Deleted {
		fmt.Fprintf(w, "  deleted   %s\n", sanitize(p))
	}
	for _, c := range rep.Conflicts {
		if c.Overwritten {
			fmt.Fprintf(w, "  overwritten (%s)  %s\n", oneLine(c.Reason), sanitize(c.Path))
		} else {
			fmt.Fprintf(w, "  left alone (%s)  %s\n", oneLine(c.Reason), sanitize(c.Path))
		}
	}
	for _, sk := range rep.Skipped {
		fmt.Fprintf(w, "  skipped (%s)  %s\n", oneLine(sk.Reason), sanitize(sk.Path))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
