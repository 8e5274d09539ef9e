// Package filecp implements file checkpoints: rewinding the
// conversation can rewind the work dir's files too — including changes made
// through Shell — and a file rewind can itself be undone.
//
// # Recording
//
// A Tracker (New) records one session's changes in one work dir. It
// implements soul/tools.FileTracker:
//
//   - BeforeWrite(paths), before WriteFile/StrReplaceFile: keeps the current
//     content of each path (or notes that it does not exist) and records a
//     pending "write" event. The after state is filled in ("settled") by the
//     next tracker call or by Flush, which the soul should call when a
//     step's tools are done. Pending events left by a crash are settled from
//     the files by the next Tracker of the session.
//   - AroundShell(): scans the tree before the command and returns after(),
//     which scans again and records every created, modified or deleted file
//     as a "Shell" event.
//
// Scans (Scanner) are metadata-only: lstat of every file, walking with the
// root and nested .gitignore files honoured, never following symlinks,
// skipping VCS metadata and the Options.SkipDirs directories
// (DefaultSkipDirs: node_modules, target, dist, build, .venv…) and files over
// Options.MaxFileSize (default 5 MiB). Everything skipped is listed
// (ScanInfo.Skipped, one entry per skipped directory); oversized files that a
// command changed are listed in ScanInfo.Untracked, since a rewind cannot
// restore them. A file's content is read only when its size, mtime or mode
// differ from the work dir's index (table file_index), or when its index
// entry is "racy" (mtime within Options.RacyWindow, default 1 s, of when the
// entry was written — a same-size write in the same timestamp tick would
// otherwise go unseen). The first scan of a work dir therefore reads every
// file once and stores it; later scans of an unchanged tree read none
// (Prime does the first scan up front). Symlinks are recorded as links
// (content = target text, mode carries fs.ModeSymlink). Explicit writes
// (BeforeWrite) are tracked even for ignored paths; paths outside the work
// dir are not tracked. Directories are not tracked: a rewind removes files,
// not the empty directories they leave.
//
// Content is stored in the rewind database as content-addressed blobs
// (sha256, stored once, zlib-compressed when that saves ≥ 10 %); nothing is
// written into the user's repository.
//
// # Events, seqs and positions
//
// Each event (table file_events) carries the session's last context seq and
// current generation at the time it was recorded. A tool call runs after its
// step's checkpoint record was written, so its events have seq ≥ that
// checkpoint's seq, and events of earlier steps have smaller seqs.
//
// A Position is the id of a file event: the state of the files at position
// P is their state just before event P. Event ids grow with physical time,
// and rewinds are recorded as events too ("rewind"), so every state the tree
// has been in has a position, backwards or forwards. RestoreFilesTo(P)
// takes, for every path with an event at or after P, the before state of its
// first such event; paths without one are already in their state at P.
//
// # Mapping from the conversation
//
//   - Checkpoint N: position = the first event with seq ≥ the checkpoint
//     record's seq (PositionOfSeq). RevertFiles(toSeq) does this; get toSeq
//     with SeqOfCheckpoint before store.RevertTo moves the checkpoint out
//     of the current view. "rewind revert ID N --files":
//     seq := SeqOfCheckpoint(view, N); db.RevertTo(N); t.RevertFiles(seq).
//     "--files-only": t.RevertFiles(seq) alone.
//   - Generation G "with files": the state when G stopped being current =
//     the first event recorded under a later generation
//     (PositionAfterGeneration); RestoreFilesToGeneration(G). For this to
//     hold, a conversation+files revert must call store.RevertTo (or
//     Restore) before RevertFiles, so the rewind's events belong to the new
//     generation. "rewind restore ID G --files": db.Restore(G);
//     t.RestoreFilesToGeneration(G).
//   - Undo of any file rewind: RestoreFilesTo(report.Undo).
//
// # Safety
//
// Before a rewind changes anything it records the current state of every
// file it will touch (pending "rewind" events whose before is the current
// content), so it can be undone even if it is interrupted. A file whose
// current content differs from the agent's last recorded after state was
// changed by someone else: it is a Conflict, reported and left alone unless
// Force (its content is kept first, so even a forced rewind is undoable).
// Files are written to a temporary file in the same directory and renamed
// into place (modes restored); deletion removes the path itself. A rename
// replaces a symlink rather than following it, and a path whose parent
// directory is a symlink (or not a directory) is skipped, so a rewind never
// writes outside the work dir. DryRun and Diffs (unified diffs via
// sergi/go-diff) serve the confirmation UI.
package filecp
