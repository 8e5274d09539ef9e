package filecp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rewind-agent/rewind/store"
)

// FileTracker is soul/tools.FileTracker (docs/CONTRACTS.md) with this
// package's NotKept, repeated here so this package does not depend on the
// tools package; app's adapter converts NotKept to tools.NotKeptFile.
type FileTracker interface {
	BeforeWrite(ctx context.Context, paths []string) ([]NotKept, error)
	AroundShell(ctx context.Context) (after func(context.Context) ([]NotKept, error), err error)
}

// NotKept is a file over the size cap that changed: its content is not
// kept, so a rewind leaves it as it is. Size is its size after the change
// (before it, when Deleted).
type NotKept struct {
	Path    string
	Size    int64
	Deleted bool
}

// notKeptChange is the event recording that a change to s was not kept.
func notKeptChange(s NotKept, before, after fs.FileMode, tool string) store.FileChange {
	return store.FileChange{Path: s.Path, Before: store.FileState{Mode: uint32(before)}, After: store.FileState{Mode: uint32(after)},
		Tool: tool, NotKeptSize: max(s.Size, 1)}
}

var _ FileTracker = (*Tracker)(nil)

// Tool names recorded with file events.
const (
	ToolWrite  = "write"  // BeforeWrite (WriteFile, StrReplaceFile)
	ToolShell  = "Shell"  // AroundShell
	ToolRewind = "rewind" // a file rewind (RevertFiles, RestoreFilesTo…)
)

// blobBatchBytes bounds the file content held in memory before it is
// written to the database during a scan.
const blobBatchBytes = 32 << 20

// entry is the tracker's knowledge of one file: the index row.
type entry struct {
	Meta
	Hash       string
	RecordedNs int64
}

func (e entry) state() store.FileState {
	return store.FileState{Hash: e.Hash, Mode: uint32(e.Mode)}
}

// row is the entry as stored in the work dir's index.
func (e entry) row(path string) store.FileIndexEntry {
	return store.FileIndexEntry{Path: path, Size: e.Size, MtimeNs: e.MtimeNs, Mode: uint32(e.Mode),
		Hash: e.Hash, RecordedNs: e.RecordedNs}
}

func entryOf(r store.FileIndexEntry) entry {
	return entry{Meta: Meta{Size: r.Size, MtimeNs: r.MtimeNs, Mode: fs.FileMode(r.Mode)}, Hash: r.Hash, RecordedNs: r.RecordedNs}
}

// ScanInfo describes the last scan a Shell call made.
type ScanInfo struct {
	Files    int
	Hashed   int // files whose content was read (metadata changed or new)
	Skipped  []Skipped
	Duration time.Duration
	// Changes recorded by the last AroundShell after().
	Changes []store.FileChange
	// Untracked lists oversized files the last shell command created,
	// changed or deleted: their content is not kept, a rewind cannot
	// restore them (each is recorded as a not-kept change).
	Untracked []NotKept
}

// Tracker records the file changes of one session's tools and rewinds them.
// It implements the tools FileTracker interface. Safe for concurrent use;
// operations are serialised.
type Tracker struct {
	db        *store.DB
	sessionID string
	root      string // work dir, absolute with symlinks resolved: the index key
	given     string // work dir absolute as given
	scanner   *Scanner
	opts      Options

	mu      sync.Mutex
	loaded  bool
	index   map[string]entry
	pending map[int64]string // pending event id -> path
	last    ScanInfo
	now     func() time.Time
}

// New returns a tracker of sessionID's changes in workDir. Nothing is read
// until the first operation.
func New(db *store.DB, sessionID, workDir string, opts Options) (*Tracker, error) {
	if db == nil || sessionID == "" {
		return nil, errors.New("filecp: a database and a session are needed")
	}
	given, err := filepath.Abs(workDir)
	if err != nil {
		return nil, fmt.Errorf("filecp: work dir %q: %w", workDir, err)
	}
	root, err := filepath.EvalSymlinks(given)
	if err != nil {
		return nil, fmt.Errorf("filecp: work dir: %w", err)
	}
	sc, err := NewScanner(root, opts)
	if err != nil {
		return nil, err
	}
	return &Tracker{db: db, sessionID: sessionID, root: root, given: given, scanner: sc, opts: opts,
		pending: map[int64]string{}, now: time.Now}, nil
}

// WorkDir is the tracked directory (symlinks resolved).
func (t *Tracker) WorkDir() string { return t.root }

// SessionID is the session whose changes are recorded.
func (t *Tracker) SessionID() string { return t.sessionID }

// LastScan describes the last Shell scan.
func (t *Tracker) LastScan() ScanInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}

func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// load reads the work dir's index and the session's pending events once.
func (t *Tracker) load(ctx context.Context) error {
	if t.loaded {
		return nil
	}
	rows, err := t.db.FileIndex(ctx, t.root)
	if err != nil {
		return fmt.Errorf("filecp: %w", err)
	}
	t.index = make(map[string]entry, len(rows))
	for _, r := range rows {
		t.index[r.Path] = entryOf(r)
	}
	pend, err := t.db.PendingFileEvents(ctx, t.sessionID)
	if err != nil {
		return fmt.Errorf("filecp: %w", err)
	}
	var unscanned []int64
	for _, e := range pend {
		if e.Path == scanPendingPath {
			unscanned = append(unscanned, e.ID)
			continue
		}
		t.pending[e.ID] = e.Path
	}
	if len(unscanned) > 0 {
		if err := t.finishScan(ctx, unscanned); err != nil {
			return err
		}
	}
	t.loaded = true
	return nil
}

// scanPendingPath marks a "scan pending" event: recorded when a Shell
// command starts, dropped when its after-scan is recorded. One still there
// when a tracker loads means the process died (kill -9, power loss) while
// the command ran; the index then still holds the tree from before the
// command (the before-scan synced it), so finishScan diffs the tree against
// it and records the difference as that command's Shell changes.
const scanPendingPath = ""

// finishScan records the changes of Shell commands whose process died
// before their after-scan, and drops their markers, in one batch.
func (t *Tracker) finishScan(ctx context.Context, markers []int64) error {
	before := maps.Clone(t.index)
	var info ScanInfo
	_, _, err := t.scanAndSync(ctx, &info, func(after map[string]entry, _ Tree) []store.FileChange {
		return diffSnapshots(before, after, ToolShell)
	}, markers)
	if err != nil {
		return fmt.Errorf("filecp: finishing the scan of an interrupted Shell command: %w", err)
	}
	t.last = info
	return nil
}

// trusted reports whether the index entry still describes a file with
// metadata m without reading it.
func (t *Tracker) trusted(e entry, ok bool, m Meta) bool {
	if !ok || e.Size != m.Size || e.MtimeNs != m.MtimeNs || e.Mode != m.Mode {
		return false
	}
	return e.MtimeNs < e.RecordedNs-int64(t.opts.racyWindow())
}

// syncTree brings the index up to date with a metadata scan: files whose
// metadata differs from the index (or whose entry is racy) are read, hashed
// and their content added to batch.Blobs (flushed to the database when it
// grows large). It returns the snapshot of the tree (path → entry) and adds
// the index changes to batch; the caller applies batch.
func (t *Tracker) syncTree(ctx context.Context, tree Tree, batch *store.FileBatch, info *ScanInfo) (map[string]entry, error) {
	snap := make(map[string]entry, len(tree.Files))
	var held int64
	now := t.now().UnixNano()
	paths := make([]string, 0, 16)
	for p, m := range tree.Files {
		old, ok := t.index[p]
		if t.trusted(old, ok, m) {
			snap[p] = old
			continue
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data, m, err := readEntry(t.root, p, t.scanner.max)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // vanished since the walk
			}
			reason := ReasonUnreadable + ": " + errText(err)
			if errors.Is(err, errTooLarge) {
				reason = ReasonTooLarge
			}
			info.Skipped = append(info.Skipped, Skipped{Path: p, Reason: reason, Size: m.Size, MtimeNs: m.MtimeNs})
			continue
		}
		info.Hashed++
		e := entry{Meta: m, Hash: hashOf(data), RecordedNs: now}
		snap[p] = e
		if old, ok := t.index[p]; !ok || old.Hash != e.Hash {
			batch.Blobs = append(batch.Blobs, store.FileBlob{Hash: e.Hash, Data: data})
			held += int64(len(data))
		}
		batch.Index = append(batch.Index, e.row(p))
		if held > blobBatchBytes {
			if err := t.db.PutBlobs(ctx, batch.Blobs); err != nil {
				return nil, fmt.Errorf("filecp: %w", err)
			}
			batch.Blobs, held = batch.Blobs[:0:0], 0
		}
	}
	for p := range t.index {
		if _, ok := snap[p]; !ok {
			if _, still := tree.Files[p]; !still {
				batch.Unindex = append(batch.Unindex, p)
			}
		}
	}
	return snap, nil
}

// commit applies batch and, once it is stored, updates the in-memory index.
func (t *Tracker) commit(ctx context.Context, batch store.FileBatch) ([]store.FileEvent, error) {
	if len(batch.Blobs) == 0 && len(batch.Index) == 0 && len(batch.Unindex) == 0 && len(batch.Events) == 0 && len(batch.Settle) == 0 && len(batch.Drop) == 0 {
		return nil, nil
	}
	batch.WorkDir = t.root
	batch.SessionID = t.sessionID
	ev, err := t.db.ApplyFileBatch(ctx, batch)
	if err != nil {
		return nil, fmt.Errorf("filecp: %w", err)
	}
	for _, e := range batch.Index {
		t.index[e.Path] = entryOf(e)
	}
	for _, p := range batch.Unindex {
		delete(t.index, p)
	}
	return ev, nil
}

// scanAndSync runs a metadata scan and syncs the index (committing index
// changes and new blobs). When changes is not nil, the events it derives
// from the new snapshot are committed in the same batch and kept in
// info.Changes. It returns the snapshot and the scan.
//
// drop lists "scan pending" markers to delete in the same batch.
func (t *Tracker) scanAndSync(ctx context.Context, info *ScanInfo, changes func(snap map[string]entry, tree Tree) []store.FileChange, drop []int64) (map[string]entry, Tree, error) {
	start := time.Now()
	tree, err := t.scanner.Scan(ctx)
	if err != nil {
		return nil, tree, err
	}
	info.Skipped = append(info.Skipped, tree.Skipped...)
	var batch store.FileBatch
	snap, err := t.syncTree(ctx, tree, &batch, info)
	if err != nil {
		return nil, tree, err
	}
	if changes != nil {
		batch.Events = changes(snap, tree)
	}
	batch.Drop = drop
	if _, err := t.commit(ctx, batch); err != nil {
		return nil, tree, err
	}
	info.Files = len(snap)
	info.Changes = batch.Events
	info.Duration = time.Since(start)
	return snap, tree, nil
}

// AroundShell scans the work dir before a shell command (storing the
// content of any file whose metadata changed since the last scan) and
// returns after, which scans again and records every file created, modified
// or deleted in between as a "Shell" event. after must be called once the
// command is done, whatever its outcome; it returns the files over the size
// cap that the command changed (recorded as not kept).
func (t *Tracker) AroundShell(ctx context.Context) (func(context.Context) ([]NotKept, error), error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.load(ctx); err != nil {
		return nil, err
	}
	if err := t.settle(ctx); err != nil {
		return nil, err
	}
	var info ScanInfo
	before, beforeTree, err := t.scanAndSync(ctx, &info, nil, nil)
	if err != nil {
		return nil, err
	}
	t.last = info
	// Scan pending: should the process die while the command runs, the
	// next tracker of this session finishes the scan (see finishScan).
	marker, err := t.commit(ctx, store.FileBatch{Events: []store.FileChange{{Path: scanPendingPath, Pending: true, Tool: ToolShell}}})
	if err != nil {
		return nil, err
	}
	done := false
	return func(ctx context.Context) ([]NotKept, error) {
		t.mu.Lock()
		defer t.mu.Unlock()
		if done {
			return nil, nil
		}
		done = true
		var info ScanInfo
		_, _, err := t.scanAndSync(ctx, &info, func(after map[string]entry, tree Tree) []store.FileChange {
			changes := diffSnapshots(before, after, ToolShell)
			info.Untracked = untrackedChanges(beforeTree, tree)
			wasBig := bigFiles(beforeTree)
			for _, u := range info.Untracked {
				var was, is fs.FileMode = 0, 0o644 // whether it existed: the scan keeps no mode of a skipped file
				if _, ok := wasBig[u.Path]; ok {
					was = 0o644
				}
				if u.Deleted {
					is = 0
				}
				changes = append(changes, notKeptChange(u, was, is, ToolShell))
			}
			return changes
		}, []int64{marker[0].ID})
		if err != nil {
			return nil, err
		}
		t.last = info
		return info.Untracked, nil
	}, nil
}

// diffSnapshots lists the changes from before to after, in path order.
func diffSnapshots(before, after map[string]entry, tool string) []store.FileChange {
	var out []store.FileChange
	for p, b := range before {
		a, ok := after[p]
		if !ok {
			out = append(out, store.FileChange{Path: p, Before: b.state(), Tool: tool})
			continue
		}
		if a.Hash != b.Hash || a.Mode != b.Mode {
			out = append(out, store.FileChange{Path: p, Before: b.state(), After: a.state(), Tool: tool})
		}
	}
	for p, a := range after {
		if _, ok := before[p]; !ok {
			out = append(out, store.FileChange{Path: p, After: a.state(), Tool: tool})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// bigFiles are the files a scan skipped for their size.
func bigFiles(t Tree) map[string]Skipped {
	m := map[string]Skipped{}
	for _, s := range t.Skipped {
		if s.Reason == ReasonTooLarge {
			m[s.Path] = s
		}
	}
	return m
}

// untrackedChanges lists oversized files that appeared, changed or vanished
// between two scans.
func untrackedChanges(before, after Tree) []NotKept {
	b, a := bigFiles(before), bigFiles(after)
	var out []NotKept
	for p, s := range a {
		if o, ok := b[p]; !ok || o.Size != s.Size || o.MtimeNs != s.MtimeNs {
			out = append(out, NotKept{Path: p, Size: s.Size})
		}
	}
	for p, s := range b {
		if _, ok := a[p]; !ok {
			if _, small := after.Files[p]; !small {
				out = append(out, NotKept{Path: p, Size: s.Size, Deleted: true})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// rel maps an absolute path to a work-dir-relative slash path. ok is false
// for a path outside the work dir.
func (t *Tracker) rel(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(t.given, p)
	}
	p = filepath.Clean(p)
	for _, base := range []string{t.root, t.given} {
		if r, ok := relUnder(base, p); ok {
			return r, true
		}
	}
	// Reached through a symlinked directory: resolve the parent only, since
	// the file itself may be a symlink, tracked as a link.
	if real, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return relUnder(t.root, filepath.Join(real, filepath.Base(p)))
	}
	return "", false
}

// relUnder is p relative to base as a slash path; ok is false unless p lies
// strictly inside base.
func relUnder(base, p string) (string, bool) {
	r, err := filepath.Rel(base, p)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// current reads the state of rel now; a missing file is the zero state. A
// file that cannot be kept (too large, not a regular file, unreadable) gives
// a non-empty reason instead of an error, so that callers list it as skipped
// and go on with the other paths.
func (t *Tracker) current(rel string) (st store.FileState, m Meta, data []byte, reason string) {
	data, m, err := readEntry(t.root, rel, t.scanner.max)
	switch {
	case err == nil:
		return store.FileState{Hash: hashOf(data), Mode: uint32(m.Mode)}, m, data, ""
	case errors.Is(err, fs.ErrNotExist):
		return store.FileState{}, Meta{}, nil, ""
	case errors.Is(err, errTooLarge):
		return store.FileState{}, m, nil, ReasonTooLarge
	case errors.Is(err, errNotRegular):
		return store.FileState{}, m, nil, ReasonNotRegular
	case errors.Is(err, ErrUnsafePath):
		return store.FileState{}, m, nil, ReasonUnsafePath
	default:
		return store.FileState{}, m, nil, ReasonUnreadable + ": " + errText(err)
	}
}

// BeforeWrite records the current content of paths (absolute, or relative
// to the work dir) before WriteFile/StrReplaceFile change them: one pending
// "write" event per path, whose after state is filled in at the next
// tracker operation or Flush. Paths outside the work dir are not tracked.
// A file that cannot be kept (over the size cap, unreadable) does not block
// the write; it is listed in LastScan().Skipped, and one over the size cap
// is returned, so the tool's result can say a rewind cannot restore it.
func (t *Tracker) BeforeWrite(ctx context.Context, paths []string) ([]NotKept, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.load(ctx); err != nil {
		return nil, err
	}
	if err := t.settle(ctx); err != nil {
		return nil, err
	}
	var notKept []NotKept
	var batch store.FileBatch
	seen := map[string]bool{}
	now := t.now().UnixNano()
	for _, p := range paths {
		rel, ok := t.rel(p)
		if !ok {
			t.last.Skipped = append(t.last.Skipped, Skipped{Path: p, Reason: ReasonOutside})
			continue
		}
		if seen[rel] {
			continue
		}
		seen[rel] = true
		st, m, data, reason := t.current(rel)
		if reason == ReasonTooLarge {
			// Its content cannot be kept: recorded so that a rewind names it.
			nk := NotKept{Path: rel, Size: m.Size}
			notKept = append(notKept, nk)
			batch.Events = append(batch.Events, notKeptChange(nk, m.Mode, m.Mode, ToolWrite))
		}
		if reason != "" {
			t.last.Skipped = append(t.last.Skipped, Skipped{Path: rel, Reason: reason, Size: m.Size})
			continue
		}
		if st.Exists() {
			batch.Blobs = append(batch.Blobs, store.FileBlob{Hash: st.Hash, Data: data})
			batch.Index = append(batch.Index, entry{Meta: m, Hash: st.Hash, RecordedNs: now}.row(rel))
		}
		batch.Events = append(batch.Events, store.FileChange{Path: rel, Before: st, Pending: true, Tool: ToolWrite})
	}
	ev, err := t.commit(ctx, batch)
	if err != nil {
		return nil, err
	}
	for _, e := range ev {
		if e.Pending {
			t.pending[e.ID] = e.Path
		}
	}
	return notKept, nil
}

// Flush records the after state of writes announced with BeforeWrite. The
// soul should call it when a step's tools are done; every other tracker
// operation does it first anyway.
func (t *Tracker) Flush(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.load(ctx); err != nil {
		return err
	}
	return t.settle(ctx)
}

// settle fills in the after state of pending events from the files now.
func (t *Tracker) settle(ctx context.Context) error {
	if len(t.pending) == 0 {
		return nil
	}
	var batch store.FileBatch
	now := t.now().UnixNano()
	ids := make([]int64, 0, len(t.pending))
	for id := range t.pending {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	indexed := map[string]bool{}
	for _, id := range ids {
		rel := t.pending[id]
		st, m, data, reason := t.current(rel)
		if reason != "" {
			// Not keepable (e.g. grew over the cap): recorded as gone from
			// tracking; a rewind then sees a conflict and asks for force.
			t.last.Skipped = append(t.last.Skipped, Skipped{Path: rel, Reason: reason, Size: m.Size})
		}
		if st.Exists() {
			batch.Blobs = append(batch.Blobs, store.FileBlob{Hash: st.Hash, Data: data})
			if !indexed[rel] {
				indexed[rel] = true
				batch.Index = append(batch.Index, entry{Meta: m, Hash: st.Hash, RecordedNs: now}.row(rel))
			}
		} else if _, ok := t.index[rel]; ok && reason == "" && !indexed[rel] {
			indexed[rel] = true
			batch.Unindex = append(batch.Unindex, rel)
		}
		batch.Settle = append(batch.Settle, store.FileSettle{ID: id, After: st})
	}
	if _, err := t.commit(ctx, batch); err != nil {
		return err
	}
	for _, id := range ids {
		delete(t.pending, id)
	}
	return nil
}
