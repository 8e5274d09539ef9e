package store

import (
	"bytes"
	"compress/zlib"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"time"
)

// File checkpoint storage. soul/filecp owns the logic; these
// methods only keep its data: content-addressed blobs, the per-work-dir
// file index and the file events of each session.

// ErrBlobNotFound is returned for a hash with no stored content.
var ErrBlobNotFound = errors.New("file content not found")

// FileBlob is a file content to keep, addressed by the sha256 (hex) of Data.
// The caller computes Hash; it is trusted.
type FileBlob struct {
	Hash string
	Data []byte
}

// FileIndexEntry is the last known metadata and hash of one file of a work
// dir. Path is relative and slash-separated; Mode holds Go fs.FileMode bits.
type FileIndexEntry struct {
	Path       string
	Size       int64
	MtimeNs    int64
	Mode       uint32
	Hash       string
	RecordedNs int64
}

// FileState is a file's content and mode. Hash "" means the file did not
// exist.
type FileState struct {
	Hash string
	Mode uint32
}

// Exists reports whether the state is an existing file.
func (s FileState) Exists() bool { return s.Hash != "" }

// FileChange is one change to record: Path went from Before to After.
// Pending marks a change recorded before the write happened; After is then
// ignored and filled in later with a FileSettle.
type FileChange struct {
	Path    string
	Before  FileState
	After   FileState
	Pending bool
	Tool    string
	// Guarded: After is content someone else made (a rewind put the user's
	// edit back), so a later rewind treats the file as a conflict.
	Guarded bool
	// NotKeptSize > 0: a change to a file over the size cap, whose content
	// is not kept (both hashes empty; a mode of 0 says the file did not
	// exist on that side); the file's size after the change (before it,
	// when it was deleted).
	NotKeptSize int64
}

// FileSettle fills in the after state of a pending event.
type FileSettle struct {
	ID    int64
	After FileState
}

// FileEvent is a recorded change. Seq and Gen are the session's last seq and
// current generation at the time it was recorded: the change happened after
// context record Seq. ID orders events physically.
type FileEvent struct {
	ID          int64
	SessionID   string
	Seq         int64
	Gen         int
	Path        string
	Before      FileState
	After       FileState
	Pending     bool
	Tool        string
	Guarded     bool  // see FileChange.Guarded
	NotKeptSize int64 // see FileChange.NotKeptSize
	CreatedAt   time.Time
}

// FileBatch is what one call of ApplyFileBatch writes, in one transaction:
// blobs first (deduplicated), then index updates, new events and settled
// events. Events and Settle need SessionID.
type FileBatch struct {
	WorkDir   string
	SessionID string
	Blobs     []FileBlob
	Index     []FileIndexEntry // inserted or replaced
	Unindex   []string         // paths removed from the index
	Events    []FileChange
	Settle    []FileSettle
	// Drop deletes pending events of the session without settling them
	// (soul/filecp's "scan pending" markers, once the scan is recorded).
	Drop []int64
}

// blobMinSaving: compressed data is kept only when it is at most this
// fraction of the raw size.
const blobMinSaving = 0.9

// compressBlob returns the stored form of data.
func compressBlob(data []byte) (codec string, stored []byte) {
	if len(data) < 64 {
		return "", data
	}
	var buf bytes.Buffer
	w, _ := zlib.NewWriterLevel(&buf, zlib.BestSpeed)
	if _, err := w.Write(data); err != nil {
		return "", data
	}
	if err := w.Close(); err != nil {
		return "", data
	}
	if float64(buf.Len()) > blobMinSaving*float64(len(data)) {
		return "", data
	}
	return "zlib", buf.Bytes()
}

func decodeBlob(hash, codec string, size int64, stored []byte) ([]byte, error) {
	switch codec {
	case "":
		if stored == nil {
			stored = []byte{}
		}
		return stored, nil
	case "zlib":
		r, err := zlib.NewReader(bytes.NewReader(stored))
		if err != nil {
			return nil, fmt.Errorf("store: blob %s: %w", hash, err)
		}
		defer r.Close()
		out := make([]byte, 0, size)
		buf := bytes.NewBuffer(out)
		if _, err := io.Copy(buf, r); err != nil {
			return nil, fmt.Errorf("store: blob %s: %w", hash, err)
		}
		if int64(buf.Len()) != size {
			return nil, fmt.Errorf("store: blob %s: size %d, want %d", hash, buf.Len(), size)
		}
		return buf.Bytes(), nil
	default:
		return nil, fmt.Errorf("store: blob %s: unknown codec %q", hash, codec)
	}
}

func nullSize(n int64) any {
	if n <= 0 {
		return nil
	}
	return n
}

func nullHash(h string) any {
	if h == "" {
		return nil
	}
	return h
}

// A file batch's statements run as plain queries: the driver's statement
// cache keeps them prepared on the writer's connection (preparing them on
// each transaction parsed and planned them again at every batch).
const (
	indexFileQuery = `INSERT OR REPLACE INTO file_index
		(work_dir, path, size, mtime_ns, mode, hash, recorded_ns) VALUES (?, ?, ?, ?, ?, ?, ?)`
	insertFileEventQuery = `INSERT INTO file_events
		(session_id, seq, gen, path, before_hash, before_mode, after_hash, after_mode, pending, tool, guarded, not_kept_size, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
)

// ApplyFileBatch writes b in one transaction and returns the events it
// recorded (with their ids, seq and gen).
func (db *DB) ApplyFileBatch(ctx context.Context, b FileBatch) ([]FileEvent, error) {
	var out []FileEvent
	err := db.WriteTx(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		if b.SessionID != "" {
			if err := db.checkLease(ctx, tx, b.SessionID); err != nil {
				return err
			}
		}
		if err := putBlobs(ctx, tx, b.Blobs); err != nil {
			return err
		}
		if len(b.Index) > 0 {
			for _, e := range b.Index {
				if _, err := tx.ExecContext(ctx, indexFileQuery, b.WorkDir, e.Path, e.Size, e.MtimeNs, int64(e.Mode), e.Hash, e.RecordedNs); err != nil {
					return fmt.Errorf("index %s: %w", e.Path, err)
				}
			}
		}
		for _, p := range b.Unindex {
			if _, err := tx.ExecContext(ctx, `DELETE FROM file_index WHERE work_dir = ? AND path = ?`, b.WorkDir, p); err != nil {
				return err
			}
		}
		if len(b.Events) > 0 || len(b.Settle) > 0 || len(b.Drop) > 0 {
			if b.SessionID == "" {
				return errors.New("file events without a session")
			}
		}
		if len(b.Events) > 0 {
			var seq, key int64
			var gen int
			err := tx.QueryRowContext(ctx, stateQuery, b.SessionID).Scan(&gen, &seq, &key)
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("session %s: %w", b.SessionID, ErrSessionNotFound)
			}
			if err != nil {
				return err
			}
			now := nowMS()
			for _, c := range b.Events {
				after := c.After
				pending := 0
				if c.Pending {
					after, pending = FileState{}, 1
				}
				res, err := tx.ExecContext(ctx, insertFileEventQuery, b.SessionID, seq, gen, c.Path,
					nullHash(c.Before.Hash), int64(c.Before.Mode), nullHash(after.Hash), int64(after.Mode),
					pending, c.Tool, c.Guarded, nullSize(c.NotKeptSize), now)
				if err != nil {
					return fmt.Errorf("event %s: %w", c.Path, err)
				}
				id, err := res.LastInsertId()
				if err != nil {
					return err
				}
				out = append(out, FileEvent{ID: id, SessionID: b.SessionID, Seq: seq, Gen: gen, Path: c.Path,
					Before: c.Before, After: after, Pending: c.Pending, Tool: c.Tool, Guarded: c.Guarded, NotKeptSize: c.NotKeptSize, CreatedAt: fromMS(now)})
			}
		}
		for _, id := range b.Drop {
			if _, err := tx.ExecContext(ctx, `DELETE FROM file_events WHERE id = ? AND session_id = ? AND pending = 1`, id, b.SessionID); err != nil {
				return fmt.Errorf("drop event %d: %w", id, err)
			}
		}
		for _, s := range b.Settle {
			res, err := tx.ExecContext(ctx, `UPDATE file_events SET after_hash = ?, after_mode = ?, pending = 0
				WHERE id = ? AND session_id = ? AND pending = 1`, nullHash(s.After.Hash), int64(s.After.Mode), s.ID, b.SessionID)
			if err != nil {
				return fmt.Errorf("settle event %d: %w", s.ID, err)
			}
			if n, _ := res.RowsAffected(); n != 1 {
				return fmt.Errorf("settle event %d: not a pending event of session %s", s.ID, b.SessionID)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: record file changes: %w", err)
	}
	return out, nil
}

func putBlobs(ctx context.Context, tx *sql.Tx, blobs []FileBlob) error {
	if len(blobs) == 0 {
		return nil
	}
	now := nowMS()
	for _, b := range blobs {
		if b.Hash == "" {
			return errors.New("blob without a hash")
		}
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM blobs WHERE hash = ?`, b.Hash).Scan(&one)
		if err == nil {
			continue // already stored: compress nothing
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		codec, stored := compressBlob(b.Data)
		if stored == nil {
			stored = []byte{}
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO blobs (hash, size, codec, data, created_at) VALUES (?, ?, ?, ?, ?)`,
			b.Hash, len(b.Data), codec, stored, now); err != nil {
			return fmt.Errorf("blob %s: %w", b.Hash, err)
		}
	}
	return nil
}

// PutBlobs stores contents not stored yet (deduplicated by hash).
func (db *DB) PutBlobs(ctx context.Context, blobs []FileBlob) error {
	_, err := db.ApplyFileBatch(ctx, FileBatch{Blobs: blobs})
	return err
}

// Blob returns the content stored under hash (ErrBlobNotFound).
func (db *DB) Blob(ctx context.Context, hash string) ([]byte, error) {
	var codec string
	var size int64
	var data []byte
	err := db.reader.QueryRowContext(ctx, `SELECT codec, size, data FROM blobs WHERE hash = ?`, hash).Scan(&codec, &size, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: %w: %s", ErrBlobNotFound, hash)
	}
	if err != nil {
		return nil, fmt.Errorf("store: blob %s: %w", hash, err)
	}
	return decodeBlob(hash, codec, size, data)
}

// HasBlob reports whether content with that hash is stored.
func (db *DB) HasBlob(ctx context.Context, hash string) (bool, error) {
	var one int
	err := db.reader.QueryRowContext(ctx, `SELECT 1 FROM blobs WHERE hash = ?`, hash).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: blob %s: %w", hash, err)
	}
	return true, nil
}

// BlobStats is the size of the blob table.
type BlobStats struct {
	Count       int64 // distinct contents
	RawBytes    int64 // sum of content sizes
	StoredBytes int64 // sum of stored (possibly compressed) sizes
}

// FileBlobStats measures the blob table.
func (db *DB) FileBlobStats(ctx context.Context) (BlobStats, error) {
	var s BlobStats
	err := db.reader.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(size), 0), coalesce(sum(length(data)), 0) FROM blobs`).
		Scan(&s.Count, &s.RawBytes, &s.StoredBytes)
	if err != nil {
		return s, fmt.Errorf("store: blob stats: %w", err)
	}
	return s, nil
}

// FileIndex returns the index of a work dir, in path order.
func (db *DB) FileIndex(ctx context.Context, workDir string) ([]FileIndexEntry, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT path, size, mtime_ns, mode, hash, recorded_ns
		FROM file_index WHERE work_dir = ? ORDER BY path`, workDir)
	if err != nil {
		return nil, fmt.Errorf("store: file index of %s: %w", workDir, err)
	}
	defer rows.Close()
	var out []FileIndexEntry
	for rows.Next() {
		var e FileIndexEntry
		var mode int64
		if err := rows.Scan(&e.Path, &e.Size, &e.MtimeNs, &mode, &e.Hash, &e.RecordedNs); err != nil {
			return nil, fmt.Errorf("store: file index of %s: %w", workDir, err)
		}
		e.Mode = uint32(mode)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: file index of %s: %w", workDir, err)
	}
	return out, nil
}

const fileEventCols = `id, session_id, seq, gen, path, before_hash, before_mode, after_hash, after_mode, pending, tool, guarded, not_kept_size, created_at`

func scanFileEvents(rows *sql.Rows) ([]FileEvent, error) {
	defer rows.Close()
	var out []FileEvent
	for rows.Next() {
		var e FileEvent
		var bh, ah sql.NullString
		var bm, am, created int64
		var pending int
		var notKept sql.NullInt64
		if err := rows.Scan(&e.ID, &e.SessionID, &e.Seq, &e.Gen, &e.Path, &bh, &bm, &ah, &am, &pending, &e.Tool, &e.Guarded, &notKept, &created); err != nil {
			return nil, err
		}
		e.NotKeptSize = notKept.Int64
		e.Before = FileState{Hash: bh.String, Mode: uint32(bm)}
		e.After = FileState{Hash: ah.String, Mode: uint32(am)}
		e.Pending = pending != 0
		e.CreatedAt = fromMS(created)
		out = append(out, e)
	}
	return out, rows.Err()
}

// FileEvents returns the session's file events with id >= fromID, oldest
// first.
func (db *DB) FileEvents(ctx context.Context, sessionID string, fromID int64) ([]FileEvent, error) {
	return db.fileEvents(ctx, "file events", sessionID, "id >= ?", fromID)
}

const lastFileEventBeforeQuery = `SELECT ` + fileEventCols + ` FROM file_events
	WHERE session_id = ? AND path = ? AND id < ? AND not_kept_size IS NULL ORDER BY id DESC LIMIT 1`

// LastFileEventsBefore returns, for each of paths, the session's last file
// event with id < beforeID whose content is kept (the change that left the file as it was at
// that position); paths without one are absent from the map.
func (db *DB) LastFileEventsBefore(ctx context.Context, sessionID string, paths []string, beforeID int64) (map[string]FileEvent, error) {
	out := make(map[string]FileEvent, len(paths))
	err := db.readTx(ctx, func(tx querier) error {
		for _, p := range paths {
			rows, err := tx.QueryContext(ctx, lastFileEventBeforeQuery, sessionID, p, beforeID)
			if err != nil {
				return err
			}
			ev, err := scanFileEvents(rows)
			if err != nil {
				return err
			}
			if len(ev) == 1 {
				out[p] = ev[0]
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: file events of %s before %d: %w", sessionID, beforeID, err)
	}
	return out, nil
}

// PendingFileEvents returns the session's events whose after state is not
// known yet, oldest first.
func (db *DB) PendingFileEvents(ctx context.Context, sessionID string) ([]FileEvent, error) {
	return db.fileEvents(ctx, "pending file events", sessionID, "pending = 1")
}

// fileEvents reads the session's events matching cond in id order; what
// names them in errors.
func (db *DB) fileEvents(ctx context.Context, what, sessionID, cond string, args ...any) ([]FileEvent, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT `+fileEventCols+` FROM file_events
		WHERE session_id = ? AND `+cond+` ORDER BY id`, append([]any{sessionID}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("store: %s of %s: %w", what, sessionID, err)
	}
	ev, err := scanFileEvents(rows)
	if err != nil {
		return nil, fmt.Errorf("store: %s of %s: %w", what, sessionID, err)
	}
	return ev, nil
}

// FileEventIDFromSeq returns the id of the session's first file event with
// seq >= seq: the first change made after context record seq was written.
// ok is false when there is none.
func (db *DB) FileEventIDFromSeq(ctx context.Context, sessionID string, seq int64) (id int64, ok bool, err error) {
	return db.firstFileEvent(ctx, sessionID, "seq >= ?", seq)
}

// FileEventIDAfterGen returns the id of the session's first file event
// recorded after generation gen stopped being current (the first with a
// higher gen). ok is false when there is none.
func (db *DB) FileEventIDAfterGen(ctx context.Context, sessionID string, gen int) (id int64, ok bool, err error) {
	return db.firstFileEvent(ctx, sessionID, "gen > ?", gen)
}

func (db *DB) firstFileEvent(ctx context.Context, sessionID, cond string, arg any) (int64, bool, error) {
	var id sql.NullInt64
	q := `SELECT min(id) FROM file_events WHERE session_id = ? AND ` + cond
	if err := db.reader.QueryRowContext(ctx, q, sessionID, arg).Scan(&id); err != nil {
		return 0, false, fmt.Errorf("store: file events of %s: %w", sessionID, err)
	}
	return id.Int64, id.Valid, nil
}
