package timetravel

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/rewind-agent/rewind/soul/filecp"
	"github.com/rewind-agent/rewind/store"
)

// Env is where an operation runs: the database, the session and how its
// files are tracked.
type Env struct {
	DB      *store.DB
	Session store.Session
	// WorkDir is used when the session records none.
	WorkDir string
	// Files configures the tracker (MaxFileSize from file_size_cap), so a
	// rewind sees the same files the agent's tracker recorded.
	Files filecp.Options
}

// FilesUnavailable says why a session's files cannot be checked or
// rewound; its text is one line meant for the user.
type FilesUnavailable struct {
	Short  string // the point, for a status bar: "work dir not on this machine"
	Reason string
	Err    error
}

func (e *FilesUnavailable) Error() string { return e.Reason }
func (e *FilesUnavailable) Unwrap() error { return e.Err }

// ErrNoWorkDir: the session has no work directory, so no file checkpoints.
var ErrNoWorkDir = errors.New("no work directory")

// workDir is the directory whose files the session tracks.
func (e Env) workDir() string {
	if e.Session.WorkDir != "" {
		return e.Session.WorkDir
	}
	return e.WorkDir
}

// Tracker opens the session's file checkpoints. Its error is a
// *FilesUnavailable saying what to do.
func (e Env) Tracker() (*filecp.Tracker, error) {
	dir := e.workDir()
	if dir == "" {
		return nil, &FilesUnavailable{Short: "no work dir", Reason: "the session has no work dir, so it has no file checkpoints", Err: ErrNoWorkDir}
	}
	tr, err := filecp.New(e.DB, e.Session.ID, dir, e.Files)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Not "does not exist any more": an imported session's dir may
		// never have been on this machine.
		return nil, &FilesUnavailable{Short: "work dir not on this machine",
			Reason: fmt.Sprintf("the session's work dir %s is not on this machine (imported from elsewhere, or removed since), so files cannot be tracked or rewound", dir), Err: err}
	case err != nil:
		return nil, &FilesUnavailable{Short: "work dir unusable", Reason: fmt.Sprintf("cannot use the session's work dir %s: %s", dir, pathErr(err)), Err: err}
	}
	return tr, nil
}

func pathErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Conversation moves the conversation: the soul in the workspace (its
// state follows), StoreConversation elsewhere.
type Conversation interface {
	RevertTo(ctx context.Context, checkpoint int) (store.Generation, error)
	Restore(ctx context.Context, gen int) (store.Generation, error)
}

// StoreConversation moves a session's conversation straight in the store.
type StoreConversation struct {
	DB        *store.DB
	SessionID string
}

func (s StoreConversation) RevertTo(ctx context.Context, checkpoint int) (store.Generation, error) {
	return s.DB.RevertTo(ctx, s.SessionID, checkpoint, store.CauseRevert, "")
}

func (s StoreConversation) Restore(ctx context.Context, gen int) (store.Generation, error) {
	return s.DB.Restore(ctx, s.SessionID, gen)
}

// DirMissing reports whether dir (a session's work dir) is not a directory
// on this machine: an import from elsewhere, or removed since. Such a
// session cannot be continued in place (every tool fails), so the workspace
// opens it read-only and `rewind fork` says so.
func DirMissing(dir string) bool {
	if dir == "" {
		return false
	}
	fi, err := os.Stat(dir)
	return err != nil || !fi.IsDir()
}
