package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/rewind-agent/rewind/store/message"
)

// Version is a cheap fingerprint of a session for watchers: it changes on
// every append and every new generation.
type Version struct {
	MaxSeq      int64
	CurrentGen  int
	Generations int
	UpdatedAt   time.Time
}

// SessionVersion reads the session's Version from its row alone (last_seq is
// kept by every append), so polling it costs one primary-key lookup.
func (db *DB) SessionVersion(ctx context.Context, sessionID string) (Version, error) {
	var v Version
	var updated int64
	err := db.reader.QueryRowContext(ctx, `SELECT last_seq, current_gen, updated_at FROM sessions WHERE id = ?`, sessionID).
		Scan(&v.MaxSeq, &v.CurrentGen, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		full, rerr := resolveID(ctx, db.reader, sessionID)
		if rerr != nil {
			return Version{}, fmt.Errorf("store: version of %s: %w", sessionID, rerr)
		}
		return db.SessionVersion(ctx, full)
	}
	if err != nil {
		return Version{}, fmt.Errorf("store: version of %s: %w", sessionID, err)
	}
	v.Generations = v.CurrentGen + 1
	v.UpdatedAt = fromMS(updated)
	return v, nil
}

// changeWatch counts this DB's committed write transactions, for
// DataVersion.
type changeWatch struct {
	writes atomic.Int64
}

// DataVersion returns a number that changes whenever something was
// committed since the previous call — by another process (or another DB on
// the file) or by this DB's own write transactions — and stays put
// otherwise. It touches no table, so an idle poller can ask it often and
// skip every real query while nothing changed. The lease heartbeats this DB
// writes do not move it: an idle workspace writing a session would
// otherwise re-read its lists after every heartbeat (every 2 s).
//
// It is PRAGMA data_version on the writer's one connection, which moves
// only with other connections' commits, combined with the count of this
// DB's write transactions (WriteTx), which the heartbeat does not use.
func (db *DB) DataVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := db.writer.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("store: data version: %w", err)
	}
	return v<<32 | db.Writes()&(1<<32-1), nil
}

// ListVersion returns a stamp of what the session lists show: it moves
// with every commit that adds, removes, renames, moves, deletes or restores
// a session or changes its counters (an append, a revert), and stays put
// through everything else, lease heartbeats included (triggers of schema 7
// keep it). A list poller re-reads its list only when it moved; reading it
// is one primary-key lookup of a one-row table.
func (db *DB) ListVersion(ctx context.Context) (int64, error) {
	var n int64
	if err := db.reader.QueryRowContext(ctx, "SELECT n FROM list_version WHERE id = 1").Scan(&n); err != nil {
		return 0, fmt.Errorf("store: list version: %w", err)
	}
	return n, nil
}

// Writes is the number of write transactions this DB committed (its lease
// heartbeats not included). A session this process holds the lease of
// changes only through them, so a poller of that session can watch this
// counter instead of asking the database.
func (db *DB) Writes() int64 { return db.dv.writes.Load() }

// sinceQuery reads a session's records after a seq (a primary-key range)
// that belong to a generation.
const sinceQuery = `SELECT seq, gen, kind, coalesce(role, ''), coalesce(checkpoint_id, 0),
	coalesce(token_count, 0), body, created_at FROM context
	WHERE session_key = ? AND seq > ? AND gen = ? ORDER BY seq`

// ViewDelta is what a session's current view gained after a seq
// (ViewSince).
type ViewDelta struct {
	SessionID  string
	Generation Generation // the current generation, with its counters
	// Reset says the current generation is no longer the one asked about:
	// a revert, restore, compaction, clear or interrupt started another
	// since. Records is then empty and the caller reads the whole view.
	Reset   bool
	Records []Record // the records after the seq, in order
}

// ViewSince returns the records the current view of sessionID gained after
// seq afterSeq (View.Cursor of the view the caller has), when gen is still
// the current generation; otherwise Reset is set. Only the generation's own
// new records are read (an index range), so following a session costs what
// changed, not the whole view. An append only ever adds records to the
// current generation, after every record its view holds.
func (db *DB) ViewSince(ctx context.Context, sessionID string, gen int, afterSeq int64) (ViewDelta, error) {
	var d ViewDelta
	err := db.readTx(ctx, func(tx querier) error {
		st, err := loadState(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		g, err := loadGen(ctx, tx, st.id, st.currentGen)
		if err != nil {
			return err
		}
		d = ViewDelta{SessionID: st.id, Generation: g.public(), Reset: st.currentGen != gen}
		if d.Reset || st.lastSeq <= afterSeq {
			return nil
		}
		d.Records, err = appendRecords(ctx, tx, nil, st.id, sinceQuery, st.key, afterSeq, gen)
		return err
	})
	if err != nil {
		return ViewDelta{}, fmt.Errorf("store: view of %s after seq %d: %w", sessionID, afterSeq, err)
	}
	return d, nil
}

// Cursor is the seq to pass to ViewSince for what the view gains: the seq
// of its last record when the session itself wrote it, else 0 (an empty
// view, or one that so far holds only a forked parent's records, whose
// seqs count in the parent session).
func (v View) Cursor() int64 {
	if n := len(v.Records); n > 0 && v.Records[n-1].SessionID == v.SessionID {
		return v.Records[n-1].Seq
	}
	return 0
}

// ViewPos is a place in a view: the record (SessionID, Seq) of a view's
// page (a view may hold a forked parent's records, whose seqs count in the
// parent session). An empty SessionID matches the first record with that
// seq (a search hit names a seq only). The zero ViewPos is the end of the
// view for ViewBefore and its start for ViewAfter.
type ViewPos struct {
	SessionID string
	Seq       int64
}

// Start is the position of the view's first record: pass it to ViewBefore
// for the page before it.
func (v View) Start() ViewPos {
	if len(v.Records) == 0 {
		return ViewPos{}
	}
	return ViewPos{SessionID: v.Records[0].SessionID, Seq: v.Records[0].Seq}
}

// beforeQuery reads the newest records of one segment before a seq, newest
// first (an index range on context_segment, read backwards).
const beforeQuery = `SELECT seq, gen, kind, coalesce(role, ''), coalesce(checkpoint_id, 0),
	coalesce(token_count, 0), body, created_at FROM context
	WHERE session_key = ? AND gen = ? AND seq < ? ORDER BY seq DESC LIMIT ?`

// ViewBefore returns a page of generation gen's view of sessionID (gen < 0:
// the current generation): the last limit records before position before
// (the zero ViewPos: the view's last records), in order, with the
// generation's counters. Earlier says whether the view holds records
// before the page. It is the backward counterpart of ViewSince: opening a
// long session reads its tail, and scrolling up reads the page before, so
// the cost is the page, never the whole view.
func (db *DB) ViewBefore(ctx context.Context, sessionID string, gen int, before ViewPos, limit int) (View, error) {
	v, err := db.viewPage(ctx, sessionID, gen, func(tx querier, v *View, segs []segment) (err error) {
		v.Records, v.Earlier, err = pageBefore(ctx, tx, segs, before, max(limit, 1))
		return err
	})
	if err != nil {
		return View{}, fmt.Errorf("store: page of view %s before seq %d: %w", sessionID, before.Seq, err)
	}
	return v, nil
}

// viewPage resolves generation gen's view of sessionID (gen < 0: the
// current one) in one read transaction: the view's header and counters,
// and whatever read finds in the view's segments (a page of records, a
// checkpoint's place), without reading the rest of the view.
func (db *DB) viewPage(ctx context.Context, sessionID string, gen int, read func(tx querier, v *View, segs []segment) error) (View, error) {
	var v View
	err := db.readTx(ctx, func(tx querier) error {
		segs, self, err := resolveView(ctx, tx, sessionID, gen, gen < 0)
		if err != nil {
			return err
		}
		v = View{SessionID: self.sessionID, Generation: self.public(), Tokens: self.tokens, NextCheckpointID: self.nextCP}
		return read(tx, &v, segs)
	})
	return v, err
}

// pageBefore reads the last limit records of segs (oldest first) before
// position before, walking the segments backwards, and whether records
// remain before them.
func pageBefore(ctx context.Context, q querier, segs []segment, before ViewPos, limit int) ([]Record, bool, error) {
	i := len(segs) - 1
	bound := int64(math.MaxInt64)
	if before != (ViewPos{}) {
		if i = segmentOf(ctx, q, segs, before); i < 0 {
			return nil, false, fmt.Errorf("seq %d of session %s is not in the view", before.Seq, before.SessionID)
		}
		bound = before.Seq
	}
	var newest []Record // newest first
	for ; i >= 0; i-- {
		s := segs[i]
		b := min(bound, s.bound)
		bound = math.MaxInt64
		if len(newest) == limit {
			// one more record tells whether the page starts the view
			more, err := appendRecords(ctx, q, nil, s.session, beforeQuery, s.key, s.gen, b, 1)
			if err != nil || len(more) > 0 {
				return reversed(newest), len(more) > 0, err
			}
			continue
		}
		var err error
		newest, err = appendRecords(ctx, q, newest, s.session, beforeQuery, s.key, s.gen, b, limit-len(newest))
		if err != nil {
			return nil, false, err
		}
		if len(newest) == limit {
			i++ // ask the same segment for one record more
			bound = newest[len(newest)-1].Seq
		}
	}
	return reversed(newest), false, nil
}

// segmentOf is the index of the segment holding the record at pos (the
// first one when pos names a seq only), -1 when none does.
func segmentOf(ctx context.Context, q querier, segs []segment, pos ViewPos) int {
	for i, s := range segs {
		if (pos.SessionID == "" || s.session == pos.SessionID) && pos.Seq < s.bound && segHolds(ctx, q, s, pos.Seq) {
			return i
		}
	}
	return -1
}

// afterQuery reads the oldest records of one segment after a seq.
const afterQuery = `SELECT seq, gen, kind, coalesce(role, ''), coalesce(checkpoint_id, 0),
	coalesce(token_count, 0), body, created_at FROM context
	WHERE session_key = ? AND gen = ? AND seq > ? AND seq < ? ORDER BY seq LIMIT ?`

// ViewAfter returns the first limit records of generation gen's view of
// sessionID (gen < 0: the current one) after position after (the zero
// ViewPos: from the view's first record), in order, and Later when the view
// holds more after them: ViewBefore's forward counterpart, for scrolling
// down from a place in a long view (a search hit) without reading the rest
// of it.
func (db *DB) ViewAfter(ctx context.Context, sessionID string, gen int, after ViewPos, limit int) (View, error) {
	v, err := db.viewPage(ctx, sessionID, gen, func(tx querier, v *View, segs []segment) (err error) {
		v.Records, v.Later, err = pageAfter(ctx, tx, segs, after, false, max(limit, 1))
		return err
	})
	if err != nil {
		return View{}, fmt.Errorf("store: page of view %s after seq %d: %w", sessionID, after.Seq, err)
	}
	return v, nil
}

// pageAfter reads the first limit records of segs (in order) after
// position after (from it with incl; the zero ViewPos: from the first
// record), walking the segments forwards, and whether records remain after
// them.
func pageAfter(ctx context.Context, q querier, segs []segment, after ViewPos, incl bool, limit int) ([]Record, bool, error) {
	i, from := 0, int64(-1)
	if after != (ViewPos{}) {
		if i = segmentOf(ctx, q, segs, after); i < 0 {
			return nil, false, fmt.Errorf("seq %d of session %s is not in the view", after.Seq, after.SessionID)
		}
		from = after.Seq
		if incl {
			from-- // seqs are integers: the record itself is the first after
		}
	}
	var out []Record
	for ; i < len(segs) && len(out) <= limit; i++ { // one record more tells whether the page ends the view
		s := segs[i]
		var err error
		if out, err = appendRecords(ctx, q, out, s.session, afterQuery, s.key, s.gen, from, s.bound, limit+1-len(out)); err != nil {
			return nil, false, err
		}
		from = -1
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

// ViewAround returns a page of generation gen's view of sessionID (gen < 0:
// the current one) around the record at position at (a search hit): up to
// before records before it, the record and up to after records after it,
// in order, with Earlier, Later and MessagesBefore (the view's messages
// before the page), read in one transaction through the index, never the
// rest of the view. Opening a long session at a search hit reads it.
func (db *DB) ViewAround(ctx context.Context, sessionID string, gen int, at ViewPos, before, after int) (View, error) {
	v, err := db.viewPage(ctx, sessionID, gen, func(tx querier, v *View, segs []segment) error {
		head, earlier, err := pageBefore(ctx, tx, segs, at, max(before, 0))
		if err != nil {
			return err
		}
		tail, later, err := pageAfter(ctx, tx, segs, at, true, 1+max(after, 0))
		if err != nil {
			return err
		}
		v.Records, v.Earlier, v.Later = append(head, tail...), earlier, later
		if len(v.Records) > 0 {
			first := v.Records[0]
			return tx.QueryRowContext(ctx, `SELECT msgs_before FROM context WHERE session_key = `+sessionKeyOf+` AND gen = ? AND seq = ?`,
				first.SessionID, first.Gen, first.Seq).Scan(&v.MessagesBefore)
		}
		return nil
	})
	if err != nil {
		return View{}, fmt.Errorf("store: page of view %s around seq %d: %w", sessionID, at.Seq, err)
	}
	return v, nil
}

// ViewHolds reports whether generation gen's view of sessionID holds the
// record at pos (an index probe per segment): two views share a prefix of
// records, so where one leaves the other is found without reading either.
func (db *DB) ViewHolds(ctx context.Context, sessionID string, gen int, pos ViewPos) (bool, error) {
	var ok bool
	err := db.readTx(ctx, func(tx querier) error {
		st, err := loadState(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		segs, _, _, err := resolveSegments(ctx, tx, st.id, gen)
		if err != nil {
			return err
		}
		ok = segmentOf(ctx, tx, segs, pos) >= 0
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("store: does view %s generation %d hold seq %d: %w", sessionID, gen, pos.Seq, err)
	}
	return ok, nil
}

// segHolds reports whether record seq belongs to segment s.
func segHolds(ctx context.Context, q querier, s segment, seq int64) bool {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM context WHERE session_key = ? AND gen = ? AND seq = ?`, s.key, s.gen, seq).Scan(&one)
	return err == nil
}

func reversed(rs []Record) []Record {
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return rs
}

// checkpointCountQuery counts one segment's checkpoints in a seq range
// through the partial index context_checkpoint (the seq terms are kept out
// of the index choice: context_segment would read every record of the
// range; TestQueryPlans pins it).
const checkpointCountQuery = `SELECT count(*) FROM context
	WHERE session_key = ? AND gen = ? AND kind = 1 AND +seq >= ? AND +seq < ?`

// CheckpointsOutside counts the checkpoints of generation gen's view of
// sessionID (gen < 0: the current one) before the record at first and
// after the record at last: a page of a long view (a search hit's window)
// says how many checkpoints its timeline does not hold either side. The
// zero ViewPos for last counts none after. An index range per segment,
// never the records.
func (db *DB) CheckpointsOutside(ctx context.Context, sessionID string, gen int, first, last ViewPos) (before, after int, err error) {
	_, err = db.viewPage(ctx, sessionID, gen, func(tx querier, v *View, segs []segment) error {
		count := func(s segment, from, to int64) (int, error) {
			var n int
			err := tx.QueryRowContext(ctx, checkpointCountQuery, s.key, s.gen, from, min(to, s.bound)).Scan(&n)
			return n, err
		}
		fi := segmentOf(ctx, tx, segs, first)
		if fi < 0 {
			return fmt.Errorf("seq %d of session %s is not in the view", first.Seq, first.SessionID)
		}
		for i := 0; i <= fi; i++ {
			to := int64(math.MaxInt64)
			if i == fi {
				to = first.Seq
			}
			n, err := count(segs[i], -1, to)
			if err != nil {
				return err
			}
			before += n
		}
		if last == (ViewPos{}) {
			return nil
		}
		li := segmentOf(ctx, tx, segs, last)
		if li < 0 {
			return fmt.Errorf("seq %d of session %s is not in the view", last.Seq, last.SessionID)
		}
		for i := li; i < len(segs); i++ {
			from := int64(-1)
			if i == li {
				from = last.Seq + 1
			}
			n, err := count(segs[i], from, math.MaxInt64)
			if err != nil {
				return err
			}
			after += n
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("store: checkpoints of view %s outside seqs %d..%d: %w", sessionID, first.Seq, last.Seq, err)
	}
	return before, after, nil
}

// turnCountQuery counts one segment's turn checkpoints in a seq range: a
// checkpoint whose next record is a user message that is not a checkpoint
// marker, or a marker followed by one (as timetravel's TurnBuilder reads
// them: rewind writes a turn's checkpoint, its marker when asked, then the
// prompt; a step's checkpoint is followed by the model's answer). The
// bound on m.seq is kept out of the index choice: as a range it made each
// probe read every record below it (over a minute on a 250,000-record
// view; 0.2 s with the two-row IN probe).
const turnCountQuery = `SELECT count(*) FROM context AS c
	WHERE c.session_key = ? AND c.gen = ? AND c.kind = 1 AND +c.seq >= ? AND +c.seq < ?
	AND EXISTS (SELECT 1 FROM context AS n WHERE n.session_key = c.session_key AND n.gen = c.gen
		AND n.seq = c.seq + 1 AND n.kind = 0 AND n.role = 'user')
	AND EXISTS (SELECT 1 FROM context AS m WHERE m.session_key = c.session_key AND m.gen = c.gen
		AND m.seq IN (c.seq + 1, c.seq + 2) AND +m.seq < ? AND m.kind = 0 AND m.role = 'user'
		AND coalesce(json_extract(m.body, '$.content'), '') NOT LIKE ?)`

// TurnsBefore counts the turns (user prompts after a checkpoint) of
// generation gen's view of sessionID (gen < 0: the current one) before
// the record at first: the timeline of a page of a long view numbers its
// turns from there. A probe of the records after each checkpoint of the
// range (about 0.2 s of CPU on a 250,000-record view): call it on a worker.
func (db *DB) TurnsBefore(ctx context.Context, sessionID string, gen int, first ViewPos) (int, error) {
	turns := 0
	_, err := db.viewPage(ctx, sessionID, gen, func(tx querier, v *View, segs []segment) error {
		fi := segmentOf(ctx, tx, segs, first)
		if fi < 0 {
			return fmt.Errorf("seq %d of session %s is not in the view", first.Seq, first.SessionID)
		}
		for i := 0; i <= fi; i++ {
			to := segs[i].bound
			if i == fi {
				to = min(to, first.Seq)
			}
			var n int
			if err := tx.QueryRowContext(ctx, turnCountQuery, segs[i].key, segs[i].gen, -1, to, segs[i].bound, message.CheckpointMarkerPrefix+"%").Scan(&n); err != nil {
				return err
			}
			turns += n
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: turns of view %s before seq %d: %w", sessionID, first.Seq, err)
	}
	return turns, nil
}
