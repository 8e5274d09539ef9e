package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/rewind-agent/rewind/store/message"
)

// ImportedGeneration is one generation to import: its records (Kind, Role,
// CheckpointID, TokenCount, Body and optionally CreatedAt are used) and its
// cause (default import).
type ImportedGeneration struct {
	Records []Record
	Cause   Cause
	// SourceGen, for a compact generation, is the generation (of the
	// same import, by index) whose messages it replaced: the archived
	// pre-compaction history, as rewind's own compactions keep it.
	SourceGen *int
	// Decoded optionally holds the decoded body of each message record (nil
	// for others): a bulk import that decoded the lines already saves the
	// store decoding and validating them again.
	Decoded []*message.Message
}

// ImportedSession is one session for ImportSessions.
type ImportedSession struct {
	Session     NewSession
	Generations []ImportedGeneration
	// Kimi, when set, is recorded in the same transaction (SessionID is
	// filled in), so a re-run of a bulk import knows the session.
	Kimi *KimiImport
	// Origin is the agent the session was imported from (OriginKimi when
	// empty): kept as generation 0's note, so every schema reads it.
	Origin string
	// Stream, when set, supplies the rest of a session too large to hold
	// in memory whole, after the records of Generations: the session is
	// written piece by piece, hidden until its last piece (see importLarge),
	// and only the piece being written is held. Bound is then at most how
	// many records the session has in all (its ids are reserved up front).
	Stream ImportStream
	Bound  int
}

// ImportStream supplies a large session to ImportSessions a piece at a
// time.
type ImportStream interface {
	// Next returns the next piece of the session; done says it was the
	// last. A stream may complete the session's Kimi record (its Files)
	// by the time it returns done: it is written after.
	Next(ctx context.Context) (p ImportPiece, done bool, err error)
}

// ImportPiece is a piece of a streamed session: Records (and their
// Decoded messages) go on the last generation given so far, then Gens
// start after them, each with its first records. A generation's
// SourceGen counts every generation of the session, those of earlier
// pieces included.
type ImportPiece struct {
	Records []Record
	Decoded []*message.Message
	Gens    []ImportedGeneration
	// Session, when set, is the session's title, work dir and model as
	// the whole source gave them (a title or model that comes late):
	// written with the last piece.
	Session *NewSession
}

// The agents sessions are imported from (Session.Origin).
const (
	OriginKimi   = "kimi"
	OriginCodex  = "codex"
	OriginClaude = "claude"
)

// originNotes are the notes of an imported generation 0 that name its
// origin; an import without one (kimi-cli's, older rewinds) is kimi's.
var originNotes = map[string]string{
	OriginCodex:  "imported from codex",
	OriginClaude: "imported from Claude Code",
}

func originOf(note string) string {
	for o, n := range originNotes {
		if note == n {
			return o
		}
	}
	return OriginKimi
}

// Import transactions are kept short, so that another process's write (a
// workspace's prompt, a lease renewal) never waits long for the lock:
// sessions are grouped in a transaction up to importTxRecords records or
// importTxTime, and a session of more records is written alone, hidden,
// in transactions of importTxTime each (importLarge). Tests shorten a DB's
// (DB.importChunk, DB.importTime).
const (
	importTxRecords = 20000
	importTxTime    = 500 * time.Millisecond
)

// stagedFor is how long a session left hidden by an import that died
// half-way (see importLarge) is kept before the next large import drops it.
const stagedFor = time.Hour

// ImportSession creates a session from generations given oldest first
// (each a root generation, all but the last archived), whole or not at all
// (see ImportSessions).
func (db *DB) ImportSession(ctx context.Context, ns NewSession, gens []ImportedGeneration) (Session, error) {
	out, err := db.ImportSessions(ctx, []ImportedSession{{Session: ns, Generations: gens}})
	if err != nil {
		return Session{}, err
	}
	return out[0], nil
}

// ImportSessions imports sessions (bulk import and benchmark databases),
// given oldest first (search ranks those older than the last record
// written below every record, newest first: see idBlocks), in short
// transactions: sessions are grouped up to importTxRecords records
// or importTxTime, and a larger session is written alone, in transactions
// of importTxTime, hidden (like a deleted session) until its last one.
// Each session is written whole or not at all: a failure drops the hidden
// part written, and sessions of earlier transactions stay (returned with
// the error, oldest first). A session whose Kimi import is recorded by the
// time its transaction runs (another import of the same share dir took it)
// is skipped: its place in the result is the zero Session. A write lock held elsewhere is waited for
// (RetryBusy) until ctx ends.
func (db *DB) ImportSessions(ctx context.Context, in []ImportedSession) ([]Session, error) {
	out := make([]Session, 0, len(in))
	ws := make([]*sessionImport, len(in))
	ids := &idBlocks{}
	for i := range in {
		ws[i] = newSessionImport(in[i])
		ws[i].ids, ws[i].offset = ids, ids.total
		ids.total += int64(ws[i].records)
	}
	for i := 0; i < len(in); {
		if w := ws[i]; w.large(db.importChunk) {
			s, err := db.importLarge(ctx, w)
			if err != nil {
				return out, fmt.Errorf("store: import: %w", err)
			}
			out, i = append(out, s), i+1
			continue
		}
		var got []Session
		next := i
		saved := *ids
		err := db.importTx(ctx, func(tx *sql.Tx, st *importStmts) error {
			got, next, *ids = got[:0], i, saved
			start, n := time.Now(), 0
			for ; next < len(in); next++ {
				w := ws[next]
				if w.large(db.importChunk) ||
					next > i && (n+w.records > db.importChunk || time.Since(start) >= db.importTime) {
					break
				}
				s, _, err := w.write(ctx, tx, st, time.Time{})
				if err != nil {
					return fmt.Errorf("session %d: %w", next, err)
				}
				got, n = append(got, s), n+w.records
			}
			return nil
		})
		if err != nil {
			return out, fmt.Errorf("store: import: %w", err)
		}
		out, i = append(out, got...), next
	}
	return out, nil
}

// idBlocks gives the records of one ImportSessions call their ids. Search
// reads the highest ids first, so ids stand for time: a session older than
// the last record written (kimi-cli history imported after rewind was
// used) takes a block of a range below every other record's (and below
// 0), reserved in the call's first transaction, each such session a block
// in the order given; a newer one (a kimi-cli session started since the
// last import) takes the next ids, as rewind's own records do. ImportAll
// hands its newest sessions over first, so the older ones of later calls
// rank below. Ids ascend within a transaction, as FTS4 wants them (a lower
// docid flushes its pending terms).
type idBlocks struct {
	total int64 // records of the call
	base  int64
	top   int64 // created_at of the record written last before the call
	set   bool
}

// first sets where w's ids go when w starts (the range is reserved then,
// by the first session of the call to start).
func (b *idBlocks) first(ctx context.Context, tx *sql.Tx, w *sessionImport) error {
	if !b.set {
		var low sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT min(id) FROM context`).Scan(&low); err != nil {
			return err
		}
		b.top = math.MinInt64
		err := tx.QueryRowContext(ctx, `SELECT created_at FROM context ORDER BY id DESC LIMIT 1`).Scan(&b.top)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		b.base, b.set = min(low.Int64, 0)-b.total, true
	}
	w.below = w.created < b.top
	w.nextID = b.base + w.offset
	return nil
}

// importTx runs fn in one write transaction with the insert statements
// prepared once for it, after the gap another writer may take the lock in
// (importGap), and waiting while another process holds the lock.
func (db *DB) importTx(ctx context.Context, fn func(*sql.Tx, *importStmts) error) error {
	if err := db.importGap.wait(ctx); err != nil {
		return err
	}
	defer db.importGap.done()
	ws := db.stmts.get(ctx, db.writer)
	err := db.RetryBusy(ctx, func() error {
		return db.WriteTx(ctx, func(tx *sql.Tx) error {
			st := importStmts{q: tx}
			if ts := ws.in(tx); ts != nil {
				st.q = ts
				st.rec, st.fts = ts.stmt(ctx, insertRecordQuery), ts.stmt(ctx, insertFTSQuery)
			}
			defer st.close()
			return fn(tx, &st)
		})
	})
	if cerr := ctx.Err(); err != nil && cerr != nil && !errors.Is(err, cerr) {
		// Cancelling ctx rolls the transaction back under a running insert,
		// which then fails as "statement is closed": the cause is the cancel.
		return fmt.Errorf("%w (%v)", cerr, err)
	}
	return err
}

// importGap leaves the write lock free for a while between two import
// transactions. SQLite's lock is not fair: a writer waiting for it polls
// (every 100 ms once it has waited a while), and an importer that begins
// its next transaction the moment it committed wins almost every time, so
// short transactions alone left a workspace waiting seconds (BENCHMARKS.md).
// The gap is a quarter of the last transaction, at most maxImportGap (a
// waiter's longest poll): a waiting writer gets the lock after one
// transaction, and the importer gives up at most a fifth of its time.
type importGap struct {
	mu    sync.Mutex
	free  time.Time // the lock is left free until then
	began time.Time
}

const maxImportGap = 100 * time.Millisecond

func (g *importGap) wait(ctx context.Context) error {
	g.mu.Lock()
	d := time.Until(g.free)
	g.mu.Unlock()
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	g.mu.Lock()
	g.began = time.Now()
	g.mu.Unlock()
	return nil
}

func (g *importGap) done() {
	now := time.Now()
	g.mu.Lock()
	g.free = now.Add(min(now.Sub(g.began)/4, maxImportGap))
	g.mu.Unlock()
}

// importLarge writes a session of more than importChunk records in
// transactions of importTime each, the session hidden (deleted_at = minus
// the time the import began) until the last one shows it and records its
// kimi import. A failure drops what was written; a process that dies
// half-way leaves it hidden, and a later large import drops it after
// stagedFor.
func (db *DB) importLarge(ctx context.Context, w *sessionImport) (Session, error) {
	w.staged = nowMS()
	if w.is.Stream != nil {
		var stop func()
		w.is.Stream, stop = prefetch(ctx, w.is.Stream)
		defer stop()
	}
	var s Session
	for done := false; !done; {
		// A streamed session's next piece is read outside the
		// transaction, so that a retried attempt writes the same records.
		err := w.pull(ctx)
		saved, savedIDs := *w, *w.ids
		if err == nil {
			err = db.importTx(ctx, func(tx *sql.Tx, st *importStmts) error {
				*w, *w.ids = saved, savedIDs // a retried attempt starts where the last commit ended
				if w.id == "" {
					if err := dropSessions(ctx, tx, `deleted_at < 0 AND deleted_at > ?`, -(w.staged - stagedFor.Milliseconds())); err != nil {
						return err
					}
				}
				var err error
				s, done, err = w.write(ctx, tx, st, time.Now().Add(db.importTime))
				return err
			})
		}
		if err != nil {
			*w = saved
			if w.id != "" {
				dctx := context.WithoutCancel(ctx)
				derr := db.WriteTx(dctx, func(tx *sql.Tx) error {
					return dropSessions(dctx, tx, `id = ?`, w.id)
				})
				if derr != nil {
					err = fmt.Errorf("%w (and the part written stays hidden: %v)", err, derr)
				}
			}
			return Session{}, err
		}
		if db.afterImportTx != nil {
			db.afterImportTx()
		}
	}
	return s, nil
}

// prefetch reads a stream's pieces on a goroutine of its own, one piece
// ahead: the next piece is parsed while one is written. stop ends the
// goroutine and waits for it (the stream is the caller's again).
func prefetch(ctx context.Context, s ImportStream) (_ ImportStream, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	p := &prefetched{ch: make(chan prefetchedPiece, 1)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			var r prefetchedPiece
			r.p, r.done, r.err = s.Next(ctx)
			select {
			case p.ch <- r:
			case <-ctx.Done():
				return
			}
			if r.done || r.err != nil {
				return
			}
		}
	}()
	return p, func() { cancel(); <-done }
}

type prefetched struct{ ch chan prefetchedPiece }

type prefetchedPiece struct {
	p    ImportPiece
	done bool
	err  error
}

func (p *prefetched) Next(ctx context.Context) (ImportPiece, bool, error) {
	select {
	case r := <-p.ch:
		return r.p, r.done, r.err
	case <-ctx.Done():
		return ImportPiece{}, false, ctx.Err()
	}
}

// dropSessions deletes the sessions matching where (a condition on the
// sessions table) with their records and generations: only for sessions
// nothing else refers to (an import's hidden part). The contentless search
// index cannot delete their entries: their ids are retired (searchindex.go).
func dropSessions(ctx context.Context, tx *sql.Tx, where string, args ...any) error {
	sel := `SELECT id FROM sessions WHERE ` + where
	if err := retireRecords(ctx, tx, sel, args...); err != nil {
		return fmt.Errorf("drop a half-imported session: %w", err)
	}
	for _, q := range []string{
		`DELETE FROM context WHERE session_key IN (SELECT key FROM sessions WHERE ` + where + `)`,
		`DELETE FROM generations WHERE session_id IN (` + sel + `)`,
		`DELETE FROM sessions WHERE ` + where,
	} {
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("drop a half-imported session: %w", err)
		}
	}
	return nil
}

// importStmts are the record and search-index inserts of one import
// transaction, prepared by its first appender and handed on.
type importStmts struct {
	rec, fts *sql.Stmt
	// q runs the writer's prepared statements (txStmts) in the
	// transaction, and any other query as it would.
	q interface {
		querier
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	}
}

func (st *importStmts) close() {
	if st.rec != nil {
		st.rec.Close()
	}
	if st.fts != nil {
		st.fts.Close()
	}
}

// sessionImport is one ImportedSession being written, over one or more
// transactions: where it stands (generation gi, record ri) and the
// counters written so far.
type sessionImport struct {
	is      ImportedSession
	key     int64 // the session's key, once written
	gens    []ImportedGeneration
	records int
	created int64
	latest  int64 // the newest record's created_at
	staged  int64 // when > 0: hidden until done (importLarge)

	id      string
	gi, ri  int
	gen     genRow // generation gi, when genOpen
	genOpen bool
	lastSeq int64
	ids     *idBlocks
	offset  int64 // of its block in ids
	below   bool  // its records take ids from nextID on (idBlocks)
	nextID  int64 // the id of its next record
	written int   // records written so far

	streamDone bool // the stream gave its last piece (or there is none)
}

func newSessionImport(is ImportedSession) *sessionImport {
	w := &sessionImport{is: is, gens: is.Generations, created: toMS(is.Session.CreatedAt), streamDone: is.Stream == nil}
	if len(w.gens) == 0 {
		w.gens = []ImportedGeneration{{}}
	}
	for _, g := range w.gens {
		w.records += len(g.Records)
		w.sawTimes(g.Records)
	}
	if is.Stream != nil {
		w.records = max(w.records, is.Bound)
	}
	return w
}

func (w *sessionImport) sawTimes(recs []Record) {
	for _, r := range recs {
		if !r.CreatedAt.IsZero() {
			w.latest = max(w.latest, r.CreatedAt.UnixMilli())
		}
	}
}

// large: written alone, over several transactions (importLarge).
func (w *sessionImport) large(chunk int) bool {
	return w.records > chunk || w.is.Stream != nil
}

// more: the stream has records to give after those held.
func (w *sessionImport) more() bool { return !w.streamDone }

// pull reads a streamed session's next piece once the records held are
// written, and lets the written ones go.
func (w *sessionImport) pull(ctx context.Context) error {
	for !w.streamDone && w.gi == len(w.gens)-1 && w.ri == len(w.gens[w.gi].Records) {
		p, done, err := w.is.Stream.Next(ctx)
		if err != nil {
			return err
		}
		w.streamDone = done
		if p.Session != nil {
			w.is.Session.Title, w.is.Session.WorkDir, w.is.Session.Model = p.Session.Title, p.Session.WorkDir, p.Session.Model
		}
		for i := range w.gens[:w.gi] {
			w.gens[i].Records, w.gens[i].Decoded = nil, nil
		}
		last := &w.gens[w.gi]
		last.Records, last.Decoded, w.ri = p.Records, p.Decoded, 0
		w.gens = append(w.gens, p.Gens...)
		w.sawTimes(p.Records)
		for _, g := range p.Gens {
			w.sawTimes(g.Records)
		}
		if w.ri == len(last.Records) && len(p.Gens) > 0 {
			// Nothing more for the open generation: the next starts.
			w.gi, w.genOpen = w.gi+1, false
		}
	}
	return nil
}

// write goes on writing the session in tx: all of it, or when until is
// set, no record after until (but at least one). When the last record is
// written it finishes the session (current generation, kimi import record,
// shown) and returns it with done. A session whose kimi-cli session another
// import claimed first is not written (or, written in part, dropped): done
// with the zero Session.
func (w *sessionImport) write(ctx context.Context, tx *sql.Tx, st *importStmts, until time.Time) (Session, bool, error) {
	if w.id == "" {
		// The claim of a kimi-cli session: another import (another process
		// importing the same share dir) that wrote it since this one looked
		// it up has it, and this one skips it. The write lock held from here
		// to the commit makes the check and the import record one step.
		if claimed, err := kimiClaimed(ctx, tx, w.is.Kimi); err != nil || claimed {
			return Session{}, claimed, err
		}
		id, err := insertSession(ctx, tx, w.is.Session)
		if err != nil {
			return Session{}, false, err
		}
		w.id = id
		if w.key, err = sessionKey(ctx, tx, id); err != nil {
			return Session{}, false, err
		}
		if err := w.ids.first(ctx, tx, w); err != nil {
			return Session{}, false, err
		}
		if w.staged > 0 {
			if _, err := tx.ExecContext(ctx, `UPDATE sessions SET deleted_at = ? WHERE id = ?`, -w.staged, id); err != nil {
				return Session{}, false, err
			}
		}
	}
	n := 0
	for ; w.gi < len(w.gens); w.gi, w.ri, w.genOpen = w.gi+1, 0, false {
		ig := w.gens[w.gi]
		if !w.genOpen {
			cause := ig.Cause
			if cause == "" {
				cause = CauseImport
			}
			g := genRow{sessionID: w.id, sessionKey: w.key, gen: w.gi, cause: cause, createdAt: w.created, sourceGen: ig.SourceGen}
			if w.gi == 0 {
				g.note = originNotes[w.is.Origin]
			}
			if w.gi < len(w.gens)-1 {
				g.archivedAt = &w.created
			}
			if err := insertGeneration(ctx, tx, g); err != nil {
				return Session{}, false, err
			}
			w.gen, w.genOpen = g, true
		}
		// The inserts get a context that is never done, and ctx is checked
		// before each record instead: go-sqlite3 watches a cancellable
		// context with a goroutine per statement, a fifth of the import.
		a := &appender{ctx: context.WithoutCancel(ctx), tx: tx, session: w.id, gen: w.gen, lastSeq: w.lastSeq, now: w.created,
			insRec: st.rec, insFTS: st.fts, fixedIDs: w.below, nextID: w.nextID}
		for ; w.ri < len(ig.Records); w.ri, n = w.ri+1, n+1 {
			if !until.IsZero() && n > 0 && !time.Now().Before(until) {
				break // the time is spent
			}
			if err := ctx.Err(); err != nil {
				return Session{}, false, err
			}
			var m *message.Message
			if w.ri < len(ig.Decoded) {
				m = ig.Decoded[w.ri]
			}
			if w.below && w.written >= w.records {
				return Session{}, false, fmt.Errorf("more records than the %d the import reserved ids for", w.records)
			}
			if _, err := a.add(ig.Records[w.ri], m); err != nil {
				return Session{}, false, fmt.Errorf("generation %d: %w", w.gi, err)
			}
			w.written++
		}
		st.rec, st.fts = a.insRec, a.insFTS
		w.gen, w.lastSeq, w.nextID = a.gen, a.lastSeq, a.nextID
		if _, err := st.q.ExecContext(ctx, updateCountersQuery, w.gen.messages, w.gen.nextCP, w.gen.tokens, w.id, w.gi); err != nil {
			return Session{}, false, err
		}
		if w.ri < len(ig.Records) {
			return Session{}, false, nil // the budget is spent
		}
		if w.gi == len(w.gens)-1 && w.more() {
			return Session{}, false, nil // the stream's next piece goes on
		}
	}
	if w.staged > 0 {
		// Written over several transactions: another import may have
		// claimed the session since the first; the hidden copy goes.
		if claimed, err := kimiClaimed(ctx, tx, w.is.Kimi); err != nil || claimed {
			if err == nil {
				err = dropSessions(ctx, tx, `id = ?`, w.id)
			}
			return Session{}, err == nil, err
		}
	}
	if w.is.Stream != nil {
		// A generation opened before the stream gave the next one was not
		// known to be archived then.
		if _, err := tx.ExecContext(ctx, `UPDATE generations SET archived_at = ? WHERE session_id = ? AND gen < ? AND archived_at IS NULL`,
			w.created, w.id, len(w.gens)-1); err != nil {
			return Session{}, false, err
		}
	}
	// The session was last updated when its last record was written (the
	// source's own times: the lists sort imported history by when it
	// happened).
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET current_gen = ?, last_seq = ?, deleted_at = NULL,
		updated_at = max(updated_at, ?) WHERE id = ?`,
		len(w.gens)-1, w.lastSeq, w.latest, w.id); err != nil {
		return Session{}, false, err
	}
	if ns := w.is.Session; w.is.Stream != nil {
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ?, work_dir = ?, model = ? WHERE id = ?`,
			ns.Title, ns.WorkDir, ns.Model, w.id); err != nil {
			return Session{}, false, err
		}
	}
	if err := recordKimiImport(ctx, tx, w.is.Kimi, w.id); err != nil {
		return Session{}, false, err
	}
	s, err := getSession(ctx, st.q, w.id)
	return s, err == nil, err
}
