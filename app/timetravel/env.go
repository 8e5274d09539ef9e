package timetravel

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

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
		return nil, &FilesUnavailable{Reason: fmt.Sprintf("session %s has no work directory, so it has no file checkpoints", e.Session.ID), Err: ErrNoWorkDir}
	}
	tr, err := filecp.New(e.DB, e.Session.ID, dir, e.Files)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &FilesUnavailable{Reason: fmt.Sprintf("the work directory %s of session %s does not exist any more, so its files cannot be tracked or rewound", dir, e.Session.ID), Err: err}
	case err != nil:
		return nil, &FilesUnavailable{Reason: fmt.Sprintf("cannot use the work directory %s of session %s: %s", dir, e.Session.ID, pathErr(err)), Err: err}
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
