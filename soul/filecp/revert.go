package filecp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/rewind-agent/rewind/store"
)

// Position is a point in a session's file history: the id of the first file
// event after it. The state of the files at position P is their state just
// before event P was recorded. Positions grow with physical time; a file
// rewind is recorded as events too, so every state the tree was in keeps a
// position and can be restored.
type Position int64

// RevertOptions tune a file rewind.
type RevertOptions struct {
	// Force overwrites files changed by someone else since the agent's last
	// recorded change (conflicts). Their current content is kept first, so
	// the rewind can still be undone.
	Force bool
	// DryRun computes the report (and diffs) without changing anything.
	DryRun bool
	// Diffs adds a unified diff (current → restored) per file to the report.
	Diffs bool
}

// Conflict is a file whose current content is not what the agent left: it
// was changed by someone else after the agent's last recorded change.
type Conflict struct {
	Path   string
	Reason string
	// Overwritten: Force was given and the file was restored anyway.
	Overwritten bool
}

// Report says what a file rewind did (or, with DryRun, would do). Paths are
// relative to the work dir, slash-separated, sorted.
type Report struct {
	From     Position // the position restored (0: nothing recorded after it)
	DryRun   bool
	Modified []string // rewritten (content and/or mode)
	Created  []string // recreated: did not exist before the rewind
	Deleted  []string // removed: did not exist at the position
	// Conflicts are left alone unless Force (then Overwritten is set and the
	// path is also listed in Modified/Created/Deleted).
	Conflicts []Conflict
	// Skipped lists files the rewind could not touch, with the reason.
	Skipped []Skipped
	// NotKept lists files over the size cap that changed after the
	// position: their content was never kept, so they stay as they are.
	NotKept []NotKept
	// Diffs maps a path to a unified diff current → restored (Diffs option).
	Diffs map[string]string
	// Undo is the position to pass to RestoreFilesTo to undo this rewind
	// (0 when nothing was changed).
	Undo Position
}

// Changed is the number of files the rewind changed (or would change).
func (r Report) Changed() int { return len(r.Modified) + len(r.Created) + len(r.Deleted) }

// ensureLoaded loads the tracker before positions are looked up, so that
// the changes of a Shell command whose process died are recorded first.
func (t *Tracker) ensureLoaded(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.load(ctx)
}

// PositionOfSeq is the position of context record seq: the file state when
// that record (e.g. a checkpoint) was written. ok is false when no file
// change was recorded after it (the files are still in that state).
func (t *Tracker) PositionOfSeq(ctx context.Context, seq int64) (Position, bool, error) {
	if err := t.ensureLoaded(ctx); err != nil {
		return 0, false, err
	}
	id, ok, err := t.db.FileEventIDFromSeq(ctx, t.sessionID, seq)
	if err != nil {
		return 0, false, fmt.Errorf("filecp: %w", err)
	}
	return Position(id), ok, nil
}

// PositionAfterGeneration is the position at which generation gen stopped
// being current: the file state at the end of gen's view. ok is false when
// no file change was recorded since (gen is current or nothing changed).
func (t *Tracker) PositionAfterGeneration(ctx context.Context, gen int) (Position, bool, error) {
	if err := t.ensureLoaded(ctx); err != nil {
		return 0, false, err
	}
	id, ok, err := t.db.FileEventIDAfterGen(ctx, t.sessionID, gen)
	if err != nil {
		return 0, false, fmt.Errorf("filecp: %w", err)
	}
	return Position(id), ok, nil
}

// RevertFiles moves the files the agent changed after context record toSeq
// back to their state when toSeq was written. For a checkpoint, toSeq is the
// checkpoint record's seq (see doc.go).
func (t *Tracker) RevertFiles(ctx context.Context, toSeq int64, opts RevertOptions) (Report, error) {
	pos, ok, err := t.PositionOfSeq(ctx, toSeq)
	if err != nil || !ok {
		return Report{DryRun: opts.DryRun}, err
	}
	return t.RestoreFilesTo(ctx, pos, opts)
}

// RestoreFilesToGeneration moves the files to their state at the end of
// generation gen (when it stopped being current).
func (t *Tracker) RestoreFilesToGeneration(ctx context.Context, gen int, opts RevertOptions) (Report, error) {
	pos, ok, err := t.PositionAfterGeneration(ctx, gen)
	if err != nil || !ok {
		return Report{DryRun: opts.DryRun}, err
	}
	return t.RestoreFilesTo(ctx, pos, opts)
}

// planned is one file a rewind changes.
type planned struct {
	path   string
	cur    store.FileState
	curDat []byte
	target store.FileState
	data   []byte
	kind   string          // "modify", "create", "delete"
	first  store.FileEvent // the path's first event at or after the position: target is its before
}

// RestoreFilesTo moves every file changed (by the agent or by a rewind) at
// or after pos back to its state at pos. Backwards this is a revert;
// forwards (pos before an earlier rewind's events, e.g. Report.Undo) it undoes
// a rewind. The rewind is recorded as "rewind" events before any file is
// touched.
func (t *Tracker) RestoreFilesTo(ctx context.Context, pos Position, opts RevertOptions) (Report, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rep := Report{From: pos, DryRun: opts.DryRun}
	if err := t.load(ctx); err != nil {
		return rep, err
	}
	if err := t.settle(ctx); err != nil {
		return rep, err
	}
	events, err := t.db.FileEvents(ctx, t.sessionID, int64(pos))
	if err != nil {
		return rep, fmt.Errorf("filecp: %w", err)
	}
	type span struct{ first, last store.FileEvent }
	spans := map[string]*span{}
	notKept := map[string]NotKept{}
	for _, e := range events {
		if e.Path == scanPendingPath { // a Shell command of this process still running
			continue
		}
		if e.NotKeptSize > 0 {
			notKept[e.Path] = NotKept{Path: e.Path, Size: e.NotKeptSize, Deleted: e.After.Mode == 0}
			continue
		}
		if s, ok := spans[e.Path]; ok {
			s.last = e
		} else {
			spans[e.Path] = &span{first: e, last: e}
		}
	}
	paths := make([]string, 0, len(spans))
	for p := range spans {
		paths = append(paths, p)
	}
	sort.Strings(paths)

	var plan []planned
	for _, p := range paths {
		s := spans[p]
		rel, err := cleanRel(p)
		if err != nil {
			rep.Skipped = append(rep.Skipped, Skipped{Path: p, Reason: ReasonOutside})
			continue
		}
		cur, curMeta, curData, reason := t.current(rel)
		if reason == ReasonTooLarge {
			notKept[rel] = NotKept{Path: rel, Size: curMeta.Size}
			continue
		}
		if reason != "" {
			rep.Skipped = append(rep.Skipped, Skipped{Path: rel, Reason: "current file: " + reason})
			continue
		}
		target := s.first.Before
		if cur.Hash == target.Hash && (!cur.Exists() || cur.Mode == target.Mode) {
			continue // already in the target state
		}
		// A guarded state is someone else's content a rewind put back: it
		// stays theirs, as before that rewind.
		if cur.Hash != s.last.After.Hash || s.last.Guarded {
			c := Conflict{Path: rel, Reason: conflictReason(cur, s.last.After)}
			if !opts.Force {
				rep.Conflicts = append(rep.Conflicts, c)
				if opts.Diffs {
					if data, err := t.targetData(ctx, target); err == nil {
						rep.addDiff(rel, curData, data)
					}
				}
				continue
			}
			c.Overwritten = true
			rep.Conflicts = append(rep.Conflicts, c)
		}
		data, err := t.targetData(ctx, target)
		if err != nil {
			rep.Skipped = append(rep.Skipped, Skipped{Path: rel, Reason: "stored content unavailable: " + err.Error()})
			continue
		}
		pl := planned{path: rel, cur: cur, curDat: curData, target: target, data: data, first: s.first}
		switch {
		case !target.Exists():
			pl.kind = "delete"
		case !cur.Exists():
			pl.kind = "create"
		default:
			pl.kind = "modify"
		}
		plan = append(plan, pl)
		if opts.Diffs {
			rep.addDiff(rel, curData, data)
		}
	}
	for _, nk := range notKept {
		rep.NotKept = append(rep.NotKept, nk)
	}
	sort.Slice(rep.NotKept, func(i, j int) bool { return rep.NotKept[i].Path < rep.NotKept[j].Path })
	if opts.DryRun {
		for _, pl := range plan {
			rep.add(pl.kind, pl.path)
		}
		return rep, nil
	}
	if len(plan) == 0 {
		return rep, nil
	}

	// Record the pre-rewind state first: if the process dies half-way, the
	// pending events are settled from the files on the next start.
	guarded, err := t.guardedTargets(ctx, pos, plan)
	if err != nil {
		return rep, err
	}
	var batch store.FileBatch
	for _, pl := range plan {
		if pl.cur.Exists() {
			batch.Blobs = append(batch.Blobs, store.FileBlob{Hash: pl.cur.Hash, Data: pl.curDat})
		}
		batch.Events = append(batch.Events, store.FileChange{Path: pl.path, Before: pl.cur, Pending: true, Tool: ToolRewind, Guarded: guarded[pl.path]})
	}
	ev, err := t.commit(ctx, batch)
	if err != nil {
		return rep, err
	}
	for _, e := range ev {
		t.pending[e.ID] = e.Path
	}
	if len(ev) > 0 {
		rep.Undo = Position(ev[0].ID)
	}
	for _, pl := range plan {
		if err := ctx.Err(); err != nil {
			break // settle below records what was done
		}
		if err := writeState(t.root, pl.path, pl.target, pl.data); err != nil {
			reason := errText(err)
			if errors.Is(err, ErrUnsafePath) {
				reason = ReasonUnsafePath
			}
			rep.Skipped = append(rep.Skipped, Skipped{Path: pl.path, Reason: "restore failed: " + reason})
			continue
		}
		rep.add(pl.kind, pl.path)
	}
	if err := t.settle(ctx); err != nil {
		return rep, err
	}
	return rep, ctx.Err()
}

// guardedTargets says which planned files go back to content someone else
// made: at pos the file was not what the change before pos left (the user
// had edited it), or that change was itself a guarded rewind.
func (t *Tracker) guardedTargets(ctx context.Context, pos Position, plan []planned) (map[string]bool, error) {
	paths := make([]string, len(plan))
	for i, pl := range plan {
		paths[i] = pl.path
	}
	prev, err := t.db.LastFileEventsBefore(ctx, t.sessionID, paths, int64(pos))
	if err != nil {
		return nil, fmt.Errorf("filecp: %w", err)
	}
	out := map[string]bool{}
	for _, pl := range plan {
		if p, ok := prev[pl.path]; ok {
			out[pl.path] = p.Guarded || p.After.Hash != pl.first.Before.Hash
		}
	}
	return out, nil
}

func (r *Report) add(kind, p string) {
	switch kind {
	case "delete":
		r.Deleted = append(r.Deleted, p)
	case "create":
		r.Created = append(r.Created, p)
	default:
		r.Modified = append(r.Modified, p)
	}
}

func conflictReason(cur, agent store.FileState) string {
	switch {
	case !cur.Exists():
		return "deleted since the agent's last change"
	case !agent.Exists():
		return "created since the agent deleted it"
	default:
		return "changed since the agent's last change"
	}
}

// targetData is the stored content of target, nil when target is "no file".
func (t *Tracker) targetData(ctx context.Context, target store.FileState) ([]byte, error) {
	if !target.Exists() {
		return nil, nil
	}
	data, err := t.db.Blob(ctx, target.Hash)
	if err != nil {
		return nil, err
	}
	if data == nil {
		data = []byte{} // an empty file: UnifiedDiff reads nil as a missing one
	}
	return data, nil
}

// addDiff records the diff from the current content to the restored one.
func (r *Report) addDiff(rel string, cur, target []byte) {
	if r.Diffs == nil {
		r.Diffs = map[string]string{}
	}
	r.Diffs[rel] = UnifiedDiff(rel, cur, target)
}

// writeState puts rel into state st (content data) without ever writing
// through a symlink: content goes to a temporary file in the same directory
// that is renamed over the path (rename replaces a symlink, it does not
// follow it); deletion removes the link itself. Parent directories must be
// real directories inside root; missing ones are created.
func writeState(root, rel string, st store.FileState, data []byte) error {
	if err := checkParents(root, rel); err != nil {
		return err
	}
	full := filepath.Join(root, filepath.FromSlash(rel))
	fi, err := os.Lstat(full)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if exists && fi.IsDir() {
		return fmt.Errorf("%s is a directory", rel)
	}
	if !st.Exists() {
		if !exists {
			return nil
		}
		return os.Remove(full)
	}
	dir := filepath.Dir(full)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := checkParents(root, rel); err != nil { // re-check after creating
		return err
	}
	mode := fs.FileMode(st.Mode)
	if mode&fs.ModeSymlink != 0 {
		tmp, err := tempName(dir)
		if err != nil {
			return err
		}
		if err := os.Symlink(string(data), tmp); err != nil {
			return err
		}
		if err := os.Rename(tmp, full); err != nil {
			os.Remove(tmp)
			return err
		}
		return nil
	}
	f, err := os.CreateTemp(dir, ".rewind-restore-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(mode & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, full); err != nil {
		return err
	}
	ok = true
	return nil
}

// tempName returns an unused name in dir for a temporary symlink.
func tempName(dir string) (string, error) {
	f, err := os.CreateTemp(dir, ".rewind-link-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return "", err
	}
	return name, nil
}
