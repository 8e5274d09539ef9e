package app

import (
	"context"
	"fmt"

	"github.com/rewind-agent/rewind/store"
)

// FileOptions choose what a revert or restore does to the work directory's
// files (DESIGN §7).
type FileOptions struct {
	Files     bool // also move the files (revert --files, restore --files)
	FilesOnly bool // only the files, the conversation stays (revert --files-only)
	Force     bool // overwrite files changed by someone else since the agent touched them
}

// FileRewinder moves a work directory's files to the state recorded at a
// checkpoint or generation. It is provided by the file-checkpoint package
// (issue 7) through SetFileRewinder; until then --files reports that file
// checkpoints are unavailable.
type FileRewinder interface {
	// RevertFiles moves the files of session to their state at checkpoint of
	// generation gen; it returns one line per file changed or in conflict.
	RevertFiles(ctx context.Context, db *store.DB, sessionID string, gen, checkpointID int, workDir string, force bool) ([]string, error)
	// RestoreFiles moves the files to the state recorded for generation gen.
	RestoreFiles(ctx context.Context, db *store.DB, sessionID string, gen int, workDir string, force bool) ([]string, error)
}

var fileRewinder FileRewinder

// SetFileRewinder installs the file-checkpoint implementation.
func SetFileRewinder(f FileRewinder) { fileRewinder = f }

func needFiles(o FileOptions) error {
	if (o.Files || o.FilesOnly) && fileRewinder == nil {
		return userErrorf(nil, "file checkpoints are not available in this build of rewind: run without --files/--files-only to move the conversation only")
	}
	if o.Files && o.FilesOnly {
		return Usage(fmt.Errorf("--files and --files-only cannot be used together"))
	}
	return nil
}

// Revert makes a new generation whose view ends before checkpoint N.
func Revert(ctx context.Context, rt *Runtime, id string, checkpoint int, fo FileOptions) error {
	if err := needFiles(fo); err != nil {
		return err
	}
	db, _, err := rt.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	s, err := db.GetSession(ctx, id)
	if err != nil {
		return storeError(err, id, "")
	}
	lease, err := db.AcquireLease(ctx, s.ID)
	if err != nil {
		return storeError(err, s.ID, "")
	}
	defer lease.Release(context.WithoutCancel(ctx))
	// Re-read under the lease: the counters are what the revert archives.
	if s, err = db.GetSession(ctx, s.ID); err != nil {
		return storeError(err, s.ID, "")
	}
	what := fmt.Sprintf("checkpoint %d", checkpoint)

	if fo.FilesOnly {
		return revertFiles(ctx, rt, db, s, s.CurrentGen, checkpoint, fo.Force)
	}
	g, err := db.RevertTo(ctx, s.ID, checkpoint, store.CauseRevert, "")
	if err != nil {
		return storeError(err, s.ID, what)
	}
	archived := s.Messages - g.Messages
	if archived < 0 {
		archived = 0
	}
	if _, err := fmt.Fprintf(rt.Stdout, "reverted to checkpoint %d: generation %d, %d %s archived in generation %d\n",
		checkpoint, g.Gen, archived, plural(archived, "message", "messages"), s.CurrentGen); err != nil {
		return err
	}
	if fo.Files {
		return revertFiles(ctx, rt, db, s, s.CurrentGen, checkpoint, fo.Force)
	}
	return nil
}

func revertFiles(ctx context.Context, rt *Runtime, db *store.DB, s store.Session, gen, checkpoint int, force bool) error {
	lines, err := fileRewinder.RevertFiles(ctx, db, s.ID, gen, checkpoint, s.WorkDir, force)
	for _, l := range lines {
		fmt.Fprintln(rt.Stdout, sanitize(l))
	}
	if err != nil {
		return fmt.Errorf("revert files of session %s to checkpoint %d: %w", s.ID, checkpoint, err)
	}
	return nil
}

// Restore makes an archived generation current again (as a new generation).
func Restore(ctx context.Context, rt *Runtime, id string, gen int, fo FileOptions) error {
	if err := needFiles(fo); err != nil {
		return err
	}
	db, _, err := rt.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	s, err := db.GetSession(ctx, id)
	if err != nil {
		return storeError(err, id, "")
	}
	lease, err := db.AcquireLease(ctx, s.ID)
	if err != nil {
		return storeError(err, s.ID, "")
	}
	defer lease.Release(context.WithoutCancel(ctx))
	if s, err = db.GetSession(ctx, s.ID); err != nil {
		return storeError(err, s.ID, "")
	}
	g, err := db.Restore(ctx, s.ID, gen)
	if err != nil {
		return storeError(err, s.ID, fmt.Sprintf("generation %d", gen))
	}
	if _, err := fmt.Fprintf(rt.Stdout, "restored generation %d as generation %d (%d %s); generation %d archived\n",
		gen, g.Gen, g.Messages, plural(g.Messages, "message", "messages"), s.CurrentGen); err != nil {
		return err
	}
	if fo.Files {
		lines, err := fileRewinder.RestoreFiles(ctx, db, s.ID, gen, s.WorkDir, fo.Force)
		for _, l := range lines {
			fmt.Fprintln(rt.Stdout, sanitize(l))
		}
		if err != nil {
			return fmt.Errorf("restore files of session %s to generation %d: %w", s.ID, gen, err)
		}
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
