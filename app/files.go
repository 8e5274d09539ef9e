package app

import (
	"context"

	"github.com/rewind-agent/rewind/app/timetravel"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/filecp"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
)

// This file adapts a session's file tracker (soul/filecp) to what the
// tools and the soul need.

// sessionFiles records file checkpoints for the tools and lets a D-Mail move
// the files back (soul.FileReverter) when dmail_reverts_files is set.
type sessionFiles struct {
	tr  *filecp.Tracker
	env timetravel.Env
}

var (
	_ tools.FileTracker = (*sessionFiles)(nil)
	_ soul.FileReverter = (*sessionFiles)(nil)
)

func fileTracker(db *store.DB, s store.Session, cfg Config) (*sessionFiles, error) {
	if s.WorkDir == "" {
		s.WorkDir = cfg.WorkDir
	}
	tr, err := tracker(db, s, cfg)
	if err != nil {
		return nil, err
	}
	return &sessionFiles{tr: tr, env: timeTravelEnv(db, s, cfg)}, nil
}

func (f *sessionFiles) BeforeWrite(ctx context.Context, paths []string) ([]tools.NotKeptFile, error) {
	notKept, err := f.tr.BeforeWrite(ctx, paths)
	return toolsNotKept(notKept), err
}

// Flush records the after state of the files written since the last call;
// the soul calls it when a step's tools are done.
func (f *sessionFiles) Flush(ctx context.Context) error { return f.tr.Flush(ctx) }

func (f *sessionFiles) AroundShell(ctx context.Context) (func(context.Context) ([]tools.NotKeptFile, error), error) {
	after, err := f.tr.AroundShell(ctx)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) ([]tools.NotKeptFile, error) {
		notKept, err := after(ctx)
		return toolsNotKept(notKept), err
	}, nil
}

// toolsNotKept is the tools package's copy of the tracker's list.
func toolsNotKept(in []filecp.NotKept) []tools.NotKeptFile {
	out := make([]tools.NotKeptFile, len(in))
	for i, n := range in {
		out[i] = tools.NotKeptFile(n)
	}
	return out
}

// RevertFiles is the files half of a D-Mail, done by app/timetravel (the
// one implementation of rewinds), which logs it so it can be undone.
func (f *sessionFiles) RevertFiles(ctx context.Context, sessionID string, checkpointID int) error {
	return timetravel.RevertFilesForDMail(ctx, f.env, checkpointID)
}
