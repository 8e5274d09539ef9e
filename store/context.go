package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/rewind-agent/rewind/store/message"
)

// genRow is one row of the generations table.
type genRow struct {
	sessionID     string
	sessionKey    int64 // sessions.key: how context rows name the session
	gen           int
	parentSession string // "" = same session
	parentGen     *int
	forkSeq       *int64
	sourceGen     *int
	cause         Cause
	note          string
	createdAt     int64
	archivedAt    *int64
	messages      int
	nextCP        int
	tokens        int
}

func (g genRow) public() Generation {
	out := Generation{
		SessionID: g.sessionID, Gen: g.gen, ParentGen: g.parentGen, ForkSeq: g.forkSeq,
		ParentSession: g.parentSession, SourceGen: g.sourceGen, Cause: g.cause, Note: g.note,
		CreatedAt: fromMS(g.createdAt), Messages: g.messages, NextCheckpointID: g.nextCP, Tokens: g.tokens,
	}
	if g.archivedAt != nil {
		t := fromMS(*g.archivedAt)
		out.ArchivedAt = &t
	}
	return out
}

const genColumns = `session_id, gen, coalesce(parent_session, ''), parent_gen, fork_seq, source_gen, cause, note,
	created_at, archived_at, messages, next_checkpoint_id, tokens,
	(SELECT s.key FROM sessions s WHERE s.id = generations.session_id)`

func scanGen(r scanner) (genRow, error) {
	var g genRow
	var parent, source sql.NullInt64
	var fork, archived sql.NullInt64
	if err := r.Scan(&g.sessionID, &g.gen, &g.parentSession, &parent, &fork, &source, &g.cause, &g.note,
		&g.createdAt, &archived, &g.messages, &g.nextCP, &g.tokens, &g.sessionKey); err != nil {
		return genRow{}, err
	}
	if parent.Valid {
		v := int(parent.Int64)
		g.parentGen = &v
	}
	if source.Valid {
		v := int(source.Int64)
		g.sourceGen = &v
	}
	if fork.Valid {
		g.forkSeq = &fork.Int64
	}
	if archived.Valid {
		g.archivedAt = &archived.Int64
	}
	return g, nil
}

const genQuery = "SELECT " + genColumns + " FROM generations WHERE session_id = ? AND gen = ?"

func loadGen(ctx context.Context, q querier, sessionID string, gen int) (genRow, error) {
	g, err := scanGen(q.QueryRowContext(ctx, genQuery, sessionID, gen))
	if errors.Is(err, sql.ErrNoRows) {
		return genRow{}, fmt.Errorf("generation %d of session %s: %w", gen, sessionID, ErrGenerationNotFound)
	}
	return g, err
}

func insertGeneration(ctx context.Context, tx *sql.Tx, g genRow) error {
	var parentSession any
	if g.parentSession != "" {
		parentSession = g.parentSession
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO generations (session_id, gen, parent_session, parent_gen, fork_seq,
		source_gen, cause, note, created_at, archived_at, messages, next_checkpoint_id, tokens)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		g.sessionID, g.gen, parentSession, g.parentGen, g.forkSeq, g.sourceGen, string(g.cause), g.note,
		g.createdAt, g.archivedAt, g.messages, g.nextCP, g.tokens)
	return err
}

// segment is the part of a view held by one generation's own records: the
// records of (session, gen) with seq < bound.
type segment struct {
	session string
	key     int64 // the session's key (sessions.key)
	gen     int
	bound   int64
}

// maxChain guards the parent walk against a corrupted (cyclic) chain.
const maxChain = 1 << 20

// chainQuery reads the parent chain of a generation in one statement, the
// generation itself first, parents up to depth ? (a view of a session
// rewound n times took n+1 statements to walk).
const chainQuery = `WITH RECURSIVE chain(sid, g, depth) AS (
		SELECT ?, ?, 0` + chainWalk

// sessionChainQuery is chainQuery from a session named by its exact id:
// generation ? of it, or its current generation when that is NULL. A read
// of a view resolved the session and walked the chain in two statements.
const sessionChainQuery = `WITH RECURSIVE chain(sid, g, depth) AS (
		SELECT id, coalesce(?, current_gen), 0 FROM sessions WHERE id = ?` + chainWalk

// chainWalk follows the chain's first row to its parents and reads each
// generation of it, nearest first.
const chainWalk = `
		UNION ALL
		SELECT coalesce(p.parent_session, p.session_id), p.parent_gen, c.depth + 1
		FROM chain c JOIN generations p ON p.session_id = c.sid AND p.gen = c.g
		WHERE p.parent_gen IS NOT NULL AND c.depth < ?)
	SELECT ` + genColumns + `
	FROM chain c JOIN generations ON generations.session_id = c.sid AND generations.gen = c.g
	ORDER BY c.depth`

// loadChain is the parent chain of (sessionID, gen), the generation itself
// first.
func loadChain(ctx context.Context, q querier, sessionID string, gen int) ([]genRow, error) {
	chain, err := scanChain(ctx, q, chainQuery, sessionID, gen, maxChain+1)
	if err != nil {
		return nil, err
	}
	return checkChain(chain, sessionID, gen)
}

// scanChain reads the generation rows of a chain query.
func scanChain(ctx context.Context, q querier, query string, args ...any) ([]genRow, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var chain []genRow
	for rows.Next() {
		if len(chain) > maxChain {
			break // checkChain tells
		}
		g, err := scanGen(rows)
		if err != nil {
			return nil, err
		}
		chain = append(chain, g)
	}
	return chain, rows.Err()
}

// checkChain checks a chain read from (sessionID, gen): not empty, not
// too long, and ending at a root.
func checkChain(chain []genRow, sessionID string, gen int) ([]genRow, error) {
	if len(chain) > maxChain {
		return nil, fmt.Errorf("generation %d of session %s: parent chain too long", gen, sessionID)
	}
	if len(chain) == 0 {
		return nil, fmt.Errorf("generation %d of session %s: %w", gen, sessionID, ErrGenerationNotFound)
	}
	if last := chain[len(chain)-1]; last.parentGen != nil { // the chain names a parent that has no row
		ps := last.parentSession
		if ps == "" {
			ps = last.sessionID
		}
		return nil, fmt.Errorf("generation %d of session %s: %w", *last.parentGen, ps, ErrGenerationNotFound)
	}
	return chain, nil
}

// resolveView resolves sessionID (an exact id or a unique prefix, as
// loadState) and the segments of its generation gen (current: its current
// generation) in one statement when sessionID is an exact id, and returns
// them with the generation (resolveSegments).
func resolveView(ctx context.Context, q querier, sessionID string, gen int, current bool) ([]segment, genRow, error) {
	id := strings.ToLower(strings.TrimSpace(sessionID))
	var want any = gen
	if current {
		want = nil
	}
	chain, err := scanChain(ctx, q, sessionChainQuery, want, id, maxChain+1)
	if err != nil {
		return nil, genRow{}, err
	}
	if len(chain) == 0 { // a prefix, or no such session or generation: say which
		st, err := loadState(ctx, q, sessionID)
		if err != nil {
			return nil, genRow{}, err
		}
		if current {
			gen = st.currentGen
		}
		segs, self, _, err := resolveSegments(ctx, q, st.id, gen)
		return segs, self, err
	}
	if chain, err = checkChain(chain, chain[0].sessionID, chain[0].gen); err != nil {
		return nil, genRow{}, err
	}
	segs, _ := chainSegments(chain)
	return segs, chain[0], nil
}

// resolveSegments walks the parent chain of (sessionID, gen) and returns its
// segments oldest first, plus the chain's root generation. A fork_seq bounds
// the parent's session; within one session bounds only shrink going back.
func resolveSegments(ctx context.Context, q querier, sessionID string, gen int) ([]segment, genRow, genRow, error) {
	chain, err := loadChain(ctx, q, sessionID, gen)
	if err != nil {
		return nil, genRow{}, genRow{}, err
	}
	segs, root := chainSegments(chain)
	return segs, chain[0], root, nil
}

// chainSegments is the segments of a checked chain, oldest first, and its
// root.
func chainSegments(chain []genRow) ([]segment, genRow) {
	segs := make([]segment, len(chain))
	bound := int64(math.MaxInt64)
	for i, g := range chain {
		segs[len(chain)-1-i] = segment{session: g.sessionID, key: g.sessionKey, gen: g.gen, bound: bound}
		ps := g.parentSession
		if ps == "" {
			ps = g.sessionID
		}
		fork := int64(math.MaxInt64)
		if g.forkSeq != nil {
			fork = *g.forkSeq
		}
		if ps == g.sessionID {
			bound = min(bound, fork)
		} else {
			bound = fork
		}
	}
	return segs, chain[len(chain)-1]
}

// checkpointHit is a checkpoint record found in a view.
type checkpointHit struct {
	seg          segment
	seq          int64
	msgsBefore   int
	tokensBefore int
}

// checkpointQuery finds a checkpoint record in one segment through the
// partial index context_checkpoint (TestQueryPlans pins that).
const checkpointQuery = `SELECT seq, msgs_before, tokens_before FROM context
	WHERE session_key = ? AND gen = ? AND kind = 1 AND checkpoint_id = ? AND seq < ?
	ORDER BY seq LIMIT 1`

// segmentQuery reads one segment of a view through context_segment.
const segmentQuery = `SELECT seq, gen, kind, coalesce(role, ''), coalesce(checkpoint_id, 0),
	coalesce(token_count, 0), body, created_at FROM context
	WHERE session_key = ? AND gen = ? AND seq < ? ORDER BY seq`

// findCheckpoint looks checkpoint id up in a view, one index probe per
// segment. When the id occurs more than once (an imported context.jsonl
// may repeat one) the first occurrence wins, as in kimi-cli's revert_to,
// which reads the file from the top and stops at the first match.
func findCheckpoint(ctx context.Context, q querier, segs []segment, id int) (checkpointHit, bool, error) {
	for _, s := range segs {
		h := checkpointHit{seg: s}
		err := q.QueryRowContext(ctx, checkpointQuery, s.key, s.gen, id, s.bound).Scan(&h.seq, &h.msgsBefore, &h.tokensBefore)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return checkpointHit{}, false, err
		}
		return h, true, nil
	}
	return checkpointHit{}, false, nil
}

// CheckpointPlace is where a checkpoint record sits in a view.
type CheckpointPlace struct {
	Pos ViewPos // the checkpoint record (ViewBefore/ViewAfter page around it)
	// MessagesBefore is the number of the view's messages before it; the
	// view's Generation.Messages minus it is the number from it on.
	MessagesBefore int
	Generation     Generation // the view's generation and its counters
}

// FindCheckpoint finds checkpoint id in generation gen's view of sessionID
// (gen < 0: the current one) with one index probe per segment, without
// reading the view: its position and the message counts either side of
// it. A repeated id means its first occurrence, as in RevertTo. An id the
// view does not hold is ErrCheckpointNotFound.
func (db *DB) FindCheckpoint(ctx context.Context, sessionID string, gen, id int) (CheckpointPlace, error) {
	var out CheckpointPlace
	_, err := db.viewPage(ctx, sessionID, gen, func(tx querier, v *View, segs []segment) error {
		hit, ok, err := findCheckpoint(ctx, tx, segs, id)
		if err != nil {
			return err
		}
		if !ok {
			return ErrCheckpointNotFound
		}
		out = CheckpointPlace{Pos: ViewPos{SessionID: hit.seg.session, Seq: hit.seq}, MessagesBefore: hit.msgsBefore, Generation: v.Generation}
		return nil
	})
	if err != nil {
		return CheckpointPlace{}, fmt.Errorf("store: checkpoint %d in view %s: %w", id, sessionID, err)
	}
	return out, nil
}

// checkpointError explains why checkpoint id is not in the view whose chain
// ends at root: it was compacted away, or it never existed.
func checkpointError(ctx context.Context, q querier, sessionID string, root genRow, id int) error {
	if root.cause == CauseCompact && root.sourceGen != nil {
		segs, _, _, err := resolveSegments(ctx, q, root.sessionID, *root.sourceGen)
		if err == nil {
			if _, ok, err := findCheckpoint(ctx, q, segs, id); err != nil {
				return err
			} else if ok {
				return fmt.Errorf("checkpoint %d of session %s is in generation %d, replaced by compaction: %w",
					id, sessionID, *root.sourceGen, ErrCompactedRegion)
			}
		}
	}
	return fmt.Errorf("checkpoint %d of session %s: %w", id, sessionID, ErrCheckpointNotFound)
}

// sessionState is the session row fields the context operations need.
type sessionState struct {
	id         string
	key        int64
	currentGen int
	lastSeq    int64
}

const stateQuery = "SELECT current_gen, last_seq, key FROM sessions WHERE id = ?"

// resolveStateQuery finds the sessions whose id starts with a prefix, the
// exact match first, with their state: two rows are enough to tell a
// unique prefix from an ambiguous one. Every read and write of a
// session's context starts with it (resolving and reading the state were
// two statements, a ninth of those of the time-travel property test).
const resolveStateQuery = `SELECT id, current_gen, last_seq, key FROM sessions
	WHERE id >= ? AND id < ? ORDER BY id = ? DESC LIMIT 2`

// loadState resolves id (an exact id or a unique prefix, as resolveID) and
// reads its state.
func loadState(ctx context.Context, q querier, id string) (sessionState, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return sessionState{}, fmt.Errorf("session %q: %w", id, ErrSessionNotFound)
	}
	rows, err := q.QueryContext(ctx, resolveStateQuery, id, id+"\x7f", id)
	if err != nil {
		return sessionState{}, err
	}
	defer rows.Close()
	var found []sessionState
	for rows.Next() {
		var st sessionState
		if err := rows.Scan(&st.id, &st.currentGen, &st.lastSeq, &st.key); err != nil {
			return sessionState{}, err
		}
		found = append(found, st)
	}
	if err := rows.Err(); err != nil {
		return sessionState{}, err
	}
	switch {
	case len(found) == 0:
		return sessionState{}, fmt.Errorf("session %s: %w", id, ErrSessionNotFound)
	case found[0].id == id || len(found) == 1:
		return found[0], nil
	default:
		return sessionState{}, ambiguous(ctx, q, id)
	}
}

// stateGenQuery is resolveStateQuery with the current generation's row
// (genQuery's columns; all NULL when the row is missing): an append read
// them in two statements.
const stateGenQuery = `SELECT s.id, s.current_gen, s.last_seq, s.key, g.gen IS NOT NULL,
	coalesce(g.parent_session, ''), g.parent_gen, g.fork_seq, g.source_gen, coalesce(g.cause, ''), coalesce(g.note, ''),
	coalesce(g.created_at, 0), g.archived_at, coalesce(g.messages, 0), coalesce(g.next_checkpoint_id, 0), coalesce(g.tokens, 0)
	FROM sessions s LEFT JOIN generations g ON g.session_id = s.id AND g.gen = s.current_gen
	WHERE s.id >= ? AND s.id < ? ORDER BY s.id = ? DESC LIMIT 2`

// loadStateGen is loadState and loadGen of the current generation in one
// statement.
func loadStateGen(ctx context.Context, q querier, id string) (sessionState, genRow, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return sessionState{}, genRow{}, fmt.Errorf("session %q: %w", id, ErrSessionNotFound)
	}
	rows, err := q.QueryContext(ctx, stateGenQuery, id, id+"\x7f", id)
	if err != nil {
		return sessionState{}, genRow{}, err
	}
	defer rows.Close()
	type found struct {
		st     sessionState
		g      genRow
		hasGen bool
	}
	var all []found
	for rows.Next() {
		var f found
		var parent, fork, source, archived sql.NullInt64
		if err := rows.Scan(&f.st.id, &f.st.currentGen, &f.st.lastSeq, &f.st.key, &f.hasGen,
			&f.g.parentSession, &parent, &fork, &source, &f.g.cause, &f.g.note,
			&f.g.createdAt, &archived, &f.g.messages, &f.g.nextCP, &f.g.tokens); err != nil {
			return sessionState{}, genRow{}, err
		}
		f.g.sessionID, f.g.sessionKey, f.g.gen = f.st.id, f.st.key, f.st.currentGen
		if parent.Valid {
			v := int(parent.Int64)
			f.g.parentGen = &v
		}
		if source.Valid {
			v := int(source.Int64)
			f.g.sourceGen = &v
		}
		if fork.Valid {
			f.g.forkSeq = &fork.Int64
		}
		if archived.Valid {
			f.g.archivedAt = &archived.Int64
		}
		all = append(all, f)
	}
	if err := rows.Err(); err != nil {
		return sessionState{}, genRow{}, err
	}
	switch {
	case len(all) == 0:
		return sessionState{}, genRow{}, fmt.Errorf("session %s: %w", id, ErrSessionNotFound)
	case all[0].st.id == id || len(all) == 1:
		f := all[0]
		if !f.hasGen {
			return sessionState{}, genRow{}, fmt.Errorf("generation %d of session %s: %w", f.st.currentGen, f.st.id, ErrGenerationNotFound)
		}
		return f.st, f.g, nil
	default:
		return sessionState{}, genRow{}, ambiguous(ctx, q, id)
	}
}

// startGeneration archives the current generation, inserts g as the next one
// and makes it current. It writes exactly one generations row.
func startGeneration(ctx context.Context, tx *sql.Tx, st sessionState, g genRow) (genRow, error) {
	now := nowMS()
	g.sessionID, g.sessionKey = st.id, st.key
	g.gen = st.currentGen + 1
	if g.createdAt == 0 {
		g.createdAt = now
	}
	if _, err := tx.ExecContext(ctx, `UPDATE generations SET archived_at = ? WHERE session_id = ? AND gen = ? AND archived_at IS NULL`,
		now, st.id, st.currentGen); err != nil {
		return genRow{}, err
	}
	if err := insertGeneration(ctx, tx, g); err != nil {
		return genRow{}, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET current_gen = ?, updated_at = ? WHERE id = ?`, g.gen, now, st.id); err != nil {
		return genRow{}, err
	}
	return g, nil
}

// appender adds records to one generation inside a write transaction and
// keeps the generation's counters and the session's last_seq in step.
type appender struct {
	ctx     context.Context
	tx      *sql.Tx
	session string
	gen     genRow
	lastSeq int64
	now     int64
	stmts   *txStmts // nil: prepare in the transaction
	insRec  *sql.Stmt
	insFTS  *sql.Stmt
	added   []Record
	// fixedIDs: records get ids nextID, nextID+1, … (an import's block,
	// see sessionImport) instead of the next rowid.
	fixedIDs bool
	nextID   int64
}

// The append path's writes (with stateGenQuery,
// prepared once per writer connection: see txStmts).
const (
	insertRecordQuery = `INSERT INTO context (id, session_key, seq, gen, kind, role, checkpoint_id,
		token_count, body, msgs_before, tokens_before, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	insertFTSQuery      = `INSERT INTO context_fts (docid, text) VALUES (?, ?)`
	updateCountersQuery = `UPDATE generations SET messages = ?, next_checkpoint_id = ?, tokens = ?
		WHERE session_id = ? AND gen = ?`
	updateLastSeqQuery = `UPDATE sessions SET last_seq = ?, updated_at = ? WHERE id = ?`
)

// afterInsertHook, when set by tests, runs after each record insert; an
// error aborts the transaction.
var afterInsertHook func(Record) error

func newAppender(ctx context.Context, tx *sql.Tx, stmts *txStmts, id string) (*appender, error) {
	var q querier = tx
	if stmts != nil {
		q = stmts
	}
	st, g, err := loadStateGen(ctx, q, id)
	if err != nil {
		return nil, err
	}
	return &appender{ctx: ctx, tx: tx, stmts: stmts, session: st.id, gen: g, lastSeq: st.lastSeq, now: nowMS()}, nil
}

// prepare binds the writer's prepared inserts to the transaction, once per
// appender. An appender without them (a compaction's, an interrupted
// step's) runs the inserts as plain queries, which the driver's statement
// cache keeps prepared on the connection: preparing them on the
// transaction had SQLite parse and plan both again each time.
func (a *appender) prepare() {
	if a.insRec == nil && a.stmts != nil {
		a.insRec, a.insFTS = a.stmts.stmt(a.ctx, insertRecordQuery), a.stmts.stmt(a.ctx, insertFTSQuery)
	}
}

// insert runs one of the inserts, prepared (st) or not.
func (a *appender) insert(st *sql.Stmt, query string, args ...any) (sql.Result, error) {
	if st != nil {
		return st.ExecContext(a.ctx, args...)
	}
	return a.tx.ExecContext(a.ctx, query, args...)
}

func (a *appender) message(m message.Message) (Record, error) {
	body, err := m.AppendJSON(nil)
	if err != nil {
		return Record{}, fmt.Errorf("message body: %w", err)
	}
	return a.add(Record{Kind: KindMessage, Role: m.Role, Body: body}, &m)
}

// add inserts one record. For messages, m (when known) saves decoding the
// body again for the search index.
func (a *appender) add(r Record, m *message.Message) (Record, error) {
	a.prepare()
	a.lastSeq++
	r.SessionID, r.Seq, r.Gen = a.session, a.lastSeq, a.gen.gen
	if r.CreatedAt.IsZero() {
		r.CreatedAt = fromMS(a.now)
	}
	var role, cp, tokens, body any
	if r.Role != "" {
		role = r.Role
	}
	if len(r.Body) > 0 {
		// A body that comes with its decoded message was encoded from it or
		// decoded into it: valid already.
		if m == nil && !json.Valid(r.Body) {
			return Record{}, fmt.Errorf("record %d: body is not valid JSON", r.Seq)
		}
		body = string(r.Body)
	}
	var text string
	switch r.Kind {
	case KindMessage:
		if m == nil {
			var dec message.Message
			if err := json.Unmarshal(r.Body, &dec); err != nil {
				return Record{}, fmt.Errorf("record %d: message body: %w", r.Seq, err)
			}
			m = &dec
		}
		if r.Role == "" {
			r.Role, role = m.Role, m.Role
		}
		if err := a.storeImages(&r, *m); err != nil {
			return Record{}, fmt.Errorf("record %d: %w", r.Seq, err)
		}
		body = string(r.Body)
		text = searchText(*m)
	case KindCheckpoint:
		cp = r.CheckpointID
	case KindUsage:
		tokens = r.TokenCount
	default:
		return Record{}, fmt.Errorf("record %d: unknown kind %q", r.Seq, r.Kind)
	}
	var id any // NULL: the next rowid
	if a.fixedIDs {
		id = a.nextID
		a.nextID++
	}
	if a.gen.sessionKey == 0 {
		return Record{}, fmt.Errorf("record %d: the generation row has no session key", r.Seq)
	}
	kind, err := kindCode(r.Kind)
	if err != nil {
		return Record{}, fmt.Errorf("record %d: %w", r.Seq, err)
	}
	res, err := a.insert(a.insRec, insertRecordQuery, id, a.gen.sessionKey, r.Seq, r.Gen, kind, role, cp, tokens, body,
		a.gen.messages, a.gen.tokens, r.CreatedAt.UnixMilli())
	if err != nil {
		return Record{}, err
	}
	if text != "" {
		rowid, err := res.LastInsertId()
		if err != nil {
			return Record{}, err
		}
		if _, err := a.insert(a.insFTS, insertFTSQuery, rowid, text); err != nil {
			return Record{}, err
		}
	}
	switch r.Kind {
	case KindMessage:
		a.gen.messages++
	case KindCheckpoint:
		a.gen.nextCP = r.CheckpointID + 1
	case KindUsage:
		a.gen.tokens = r.TokenCount
	}
	if afterInsertHook != nil {
		if err := afterInsertHook(r); err != nil {
			return Record{}, err
		}
	}
	a.added = append(a.added, r)
	return r, nil
}

// storeImages keeps the images of a message once, in the blob table, and
// puts blob references in place of their data URLs in r.Body: a session
// that sends the same screenshot ten times stores it once, and no context
// row carries megabytes of base64.
func (a *appender) storeImages(r *Record, m message.Message) error {
	if !bytes.Contains(r.Body, []byte(`"data:`)) {
		return nil
	}
	body, imgs := message.StoreImages(r.Body, m)
	if len(imgs) == 0 {
		return nil
	}
	blobs := make([]FileBlob, len(imgs))
	for i, im := range imgs {
		blobs[i] = FileBlob{Hash: im.Hash, Data: im.Data}
	}
	if err := putBlobs(a.ctx, a.tx, blobs); err != nil {
		return fmt.Errorf("store images: %w", err)
	}
	r.Body = body
	return nil
}

// ExpandImages is a stored message body with its images' data URLs put
// back (message.LoadImages): what a model is sent and an export writes.
func (db *DB) ExpandImages(ctx context.Context, body []byte) ([]byte, error) {
	return message.LoadImages(body, func(hash string) ([]byte, error) { return db.Blob(ctx, hash) })
}

// flush writes the counters and the session's last_seq/updated_at.
func (a *appender) flush() error {
	if _, err := a.exec(updateCountersQuery, a.gen.messages, a.gen.nextCP, a.gen.tokens, a.session, a.gen.gen); err != nil {
		return err
	}
	_, err := a.exec(updateLastSeqQuery, a.lastSeq, a.now, a.session)
	return err
}

func (a *appender) exec(query string, args ...any) (sql.Result, error) {
	if a.stmts != nil {
		return a.stmts.ExecContext(a.ctx, query, args...)
	}
	return a.tx.ExecContext(a.ctx, query, args...)
}

// appendTx runs fn with an appender on the session's current generation in
// one write transaction.
func (db *DB) appendTx(ctx context.Context, id string, fn func(a *appender) error) ([]Record, error) {
	var out []Record
	ws := db.stmts.get(ctx, db.writer)
	err := db.WriteTx(ctx, func(tx *sql.Tx) error {
		a, err := newAppender(ctx, tx, ws.in(tx), id)
		if err != nil {
			return err
		}
		if err := db.checkLease(ctx, tx, a.session); err != nil {
			return err
		}
		if err := fn(a); err != nil {
			return err
		}
		out = a.added
		return a.flush()
	})
	return out, err
}

// AppendMessage appends one message to the current generation.
func (db *DB) AppendMessage(ctx context.Context, sessionID string, m message.Message) (Record, error) {
	recs, err := db.appendTx(ctx, sessionID, func(a *appender) error {
		_, err := a.message(m)
		return err
	})
	if err != nil {
		return Record{}, fmt.Errorf("store: append message to %s: %w", sessionID, err)
	}
	return recs[0], nil
}

// AppendUsage records the context's token count.
func (db *DB) AppendUsage(ctx context.Context, sessionID string, tokens int) (Record, error) {
	recs, err := db.appendTx(ctx, sessionID, func(a *appender) error {
		_, err := a.add(Record{Kind: KindUsage, TokenCount: tokens}, nil)
		return err
	})
	if err != nil {
		return Record{}, fmt.Errorf("store: append usage to %s: %w", sessionID, err)
	}
	return recs[0], nil
}

// Checkpoint appends a checkpoint record numbered next_checkpoint_id and,
// when addUserMessage, the user message "<system>CHECKPOINT N</system>".
func (db *DB) Checkpoint(ctx context.Context, sessionID string, addUserMessage bool) (int, error) {
	id := -1
	_, err := db.appendTx(ctx, sessionID, func(a *appender) (err error) {
		id, err = a.checkpoint(addUserMessage)
		return err
	})
	if err != nil {
		return -1, fmt.Errorf("store: checkpoint %s: %w", sessionID, err)
	}
	return id, nil
}

// StartTurn starts a turn in one transaction: a checkpoint as Checkpoint
// writes it (with its marker when addMarker) and the turn's prompt. A
// turn is never left without its prompt, whatever stops it (a lock held
// elsewhere and the user giving up the wait).
func (db *DB) StartTurn(ctx context.Context, sessionID string, addMarker bool, prompt message.Message) (checkpointID int, err error) {
	id := -1
	_, err = db.appendTx(ctx, sessionID, func(a *appender) (err error) {
		if id, err = a.checkpoint(addMarker); err != nil {
			return err
		}
		_, err = a.message(prompt)
		return err
	})
	if err != nil {
		return -1, fmt.Errorf("store: start a turn in %s: %w", sessionID, err)
	}
	return id, nil
}

// checkpoint appends a checkpoint record numbered next_checkpoint_id and,
// when addMarker, its marker message.
func (a *appender) checkpoint(addMarker bool) (int, error) {
	id := a.gen.nextCP
	if _, err := a.add(Record{Kind: KindCheckpoint, CheckpointID: id}, nil); err != nil {
		return -1, err
	}
	if addMarker {
		if _, err := a.message(message.Checkpoint(id)); err != nil {
			return -1, err
		}
	}
	return id, nil
}

// CommitStep appends a step's assistant message, usage and tool results in
// one transaction: all of it is visible or none.
func (db *DB) CommitStep(ctx context.Context, sessionID string, s Step) ([]Record, error) {
	recs, err := db.appendTx(ctx, sessionID, func(a *appender) error {
		if _, err := a.message(s.Assistant); err != nil {
			return err
		}
		if s.TokenCount > 0 { // kimi-cli's order: the usage is the model call's, before the results
			if _, err := a.add(Record{Kind: KindUsage, TokenCount: s.TokenCount}, nil); err != nil {
				return err
			}
		}
		for _, m := range s.ToolResults {
			if _, err := a.message(m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: commit step to %s: %w", sessionID, err)
	}
	return recs, nil
}

// View returns the current generation's view.
func (db *DB) View(ctx context.Context, sessionID string) (View, error) {
	var v View
	err := db.readTx(ctx, func(tx querier) (err error) {
		v, err = buildView(ctx, tx, sessionID, 0, true)
		return err
	})
	if err != nil {
		return View{}, fmt.Errorf("store: view %s: %w", sessionID, err)
	}
	return v, nil
}

// GenerationView returns the view of any generation, archived or not.
func (db *DB) GenerationView(ctx context.Context, sessionID string, gen int) (View, error) {
	var v View
	err := db.readTx(ctx, func(tx querier) (err error) {
		v, err = buildView(ctx, tx, sessionID, gen, false)
		return err
	})
	if err != nil {
		return View{}, fmt.Errorf("store: view %s generation %d: %w", sessionID, gen, err)
	}
	return v, nil
}

// buildView reads generation gen's view of sessionID (current: its current
// generation).
func buildView(ctx context.Context, q querier, sessionID string, gen int, current bool) (View, error) {
	segs, self, err := resolveView(ctx, q, sessionID, gen, current)
	if err != nil {
		return View{}, err
	}
	v := View{SessionID: self.sessionID, Generation: self.public(), Tokens: self.tokens, NextCheckpointID: self.nextCP}
	for _, s := range segs {
		v.Records, err = appendSegment(ctx, q, v.Records, s)
		if err != nil {
			return View{}, err
		}
	}
	return v, nil
}

func appendSegment(ctx context.Context, q querier, out []Record, s segment) ([]Record, error) {
	return appendRecords(ctx, q, out, s.session, segmentQuery, s.key, s.gen, s.bound)
}

// appendRecords appends the records query reads (segmentQuery's columns).
func appendRecords(ctx context.Context, q querier, out []Record, session, query string, args ...any) ([]Record, error) {
	err := eachRecord(ctx, q, session, func(r Record) error {
		out = append(out, r)
		return nil
	}, query, args...)
	return out, err
}

// eachRecord runs a record query and calls fn with each row, holding none
// of the others.
func eachRecord(ctx context.Context, q querier, session string, fn func(Record) error, query string, args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	// The integers are scanned as the driver's values and the body as
	// bytes: database/sql converts an int64 into an int (or a Kind) by
	// formatting and parsing it, and a string into a RawMessage by
	// reflection, which cost more than the rest of reading a long view.
	var ints [6]any
	var role string
	var body []byte
	for rows.Next() {
		if err := rows.Scan(&ints[0], &ints[1], &ints[5], &role, &ints[2], &ints[3], &body, &ints[4]); err != nil {
			return err
		}
		var n [6]int64
		for i := range n {
			v, ok := ints[i].(int64)
			if !ok {
				return fmt.Errorf("record column %d: want an integer, got %T", i, ints[i])
			}
			n[i] = v
		}
		kind, err := kindOfCode(n[5])
		if err != nil {
			return err
		}
		r := Record{SessionID: session, Seq: n[0], Gen: int(n[1]), Kind: kind, Role: role,
			CheckpointID: int(n[2]), TokenCount: int(n[3]), CreatedAt: fromMS(n[4])}
		if body != nil { // Scan made a new slice: the record may keep it
			r.Body = json.RawMessage(body)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// EachRecord reads generation gen's view of sessionID (gen < 0: the
// current one) as a stream: head gets the view's header and counters (no
// records), then fn each record in order, all in one read transaction (a
// snapshot, however long the view), holding one record at a time. An
// error from head or fn stops the read and is returned.
func (db *DB) EachRecord(ctx context.Context, sessionID string, gen int, head func(View) error, fn func(Record) error) error {
	_, err := db.viewPage(ctx, sessionID, gen, func(tx querier, v *View, segs []segment) error {
		if err := head(*v); err != nil {
			return err
		}
		for _, s := range segs {
			if err := eachRecord(ctx, tx, s.session, fn, afterQuery, s.key, s.gen, -1, s.bound, -1); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: read view %s: %w", sessionID, err)
	}
	return nil
}

// Generations lists a session's generations ordered by gen.
func (db *DB) Generations(ctx context.Context, sessionID string) ([]Generation, error) {
	// An exact id reads the rows in one statement, its own snapshot; a
	// prefix (or an unknown id) is resolved in a read transaction first.
	out, err := generations(ctx, db.reader, strings.ToLower(strings.TrimSpace(sessionID)))
	if err == nil && len(out) == 0 {
		err = db.readTx(ctx, func(tx querier) error {
			st, err := loadState(ctx, tx, sessionID)
			if err != nil {
				return err
			}
			out, err = generations(ctx, tx, st.id)
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("store: generations of %s: %w", sessionID, err)
	}
	return out, nil
}

// generations lists the generations rows of session id ordered by gen.
func generations(ctx context.Context, q querier, id string) ([]Generation, error) {
	rows, err := q.QueryContext(ctx, "SELECT "+genColumns+" FROM generations WHERE session_id = ? ORDER BY gen", id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Generation
	for rows.Next() {
		g, err := scanGen(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, g.public())
	}
	return out, rows.Err()
}

// RevertTo starts a generation whose view is the current view up to (not
// including) checkpoint checkpointID. It writes one generations row and no
// record: the new generation's parent is the generation holding the
// checkpoint record, cut at its seq; its counters come from that record.
func (db *DB) RevertTo(ctx context.Context, sessionID string, checkpointID int, cause Cause, note string) (Generation, error) {
	if cause == "" {
		cause = CauseRevert
	}
	var out genRow
	err := db.WriteTx(ctx, func(tx *sql.Tx) error {
		st, err := db.writeState(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		segs, _, root, err := resolveSegments(ctx, tx, st.id, st.currentGen)
		if err != nil {
			return err
		}
		hit, ok, err := findCheckpoint(ctx, tx, segs, checkpointID)
		if err != nil {
			return err
		}
		if !ok {
			return checkpointError(ctx, tx, st.id, root, checkpointID)
		}
		out, err = startGeneration(ctx, tx, st, genRow{
			parentSession: otherSession(hit.seg.session, st.id), parentGen: &hit.seg.gen, forkSeq: &hit.seq,
			sourceGen: &st.currentGen, cause: cause, note: note,
			messages: hit.msgsBefore, nextCP: checkpointID, tokens: hit.tokensBefore,
		})
		return err
	})
	if err != nil {
		return Generation{}, fmt.Errorf("store: revert %s to %d: %w", sessionID, checkpointID, err)
	}
	return out.public(), nil
}

func otherSession(s, self string) string {
	if s == self {
		return ""
	}
	return s
}

// Restore makes an archived generation's view current again as a new
// generation (cause restore) whose parent is gen. One row, no records.
func (db *DB) Restore(ctx context.Context, sessionID string, gen int) (Generation, error) {
	var out genRow
	err := db.WriteTx(ctx, func(tx *sql.Tx) error {
		st, err := db.writeState(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		src, err := loadGen(ctx, tx, st.id, gen)
		if err != nil {
			return err
		}
		out, err = startGeneration(ctx, tx, st, genRow{
			parentGen: &gen, cause: CauseRestore,
			messages: src.messages, nextCP: src.nextCP, tokens: src.tokens,
		})
		return err
	})
	if err != nil {
		return Generation{}, fmt.Errorf("store: restore %s generation %d: %w", sessionID, gen, err)
	}
	return out.public(), nil
}

// keepStep writes msgs into a new interrupt generation (row), then makes
// the current view (cur) current again as a restore generation, so what
// was kept stays browsable but is never sent to the model: the one write
// of KeepInterrupted and of a recovery file's commit.
func keepStep(ctx context.Context, tx *sql.Tx, st sessionState, cur genRow, row genRow, msgs []message.Message) (kept, current genRow, err error) {
	curGen := st.currentGen
	g, err := startGeneration(ctx, tx, st, row)
	if err != nil {
		return genRow{}, genRow{}, err
	}
	a := &appender{ctx: ctx, tx: tx, session: st.id, gen: g, lastSeq: st.lastSeq, now: nowMS()}
	for _, m := range msgs {
		if _, err := a.message(m); err != nil {
			return genRow{}, genRow{}, err
		}
	}
	kept = a.gen
	if err := a.flush(); err != nil {
		return genRow{}, genRow{}, err
	}
	st.currentGen = kept.gen
	current, err = startGeneration(ctx, tx, st, genRow{parentGen: &curGen, cause: CauseRestore, note: "the view before the interrupt",
		messages: cur.messages, nextCP: cur.nextCP, tokens: cur.tokens})
	return kept, current, err
}

// KeepInterrupted keeps what an interrupted step had streamed without
// touching the current view: in one transaction it writes generation I
// (cause interrupt: the current view followed by partial) and generation
// I+1 (cause restore: the current view again), which becomes current. So
// the partial answer stays browsable, and is never part of what the model
// is sent, while every generation is still made current once.
func (db *DB) KeepInterrupted(ctx context.Context, sessionID string, partial message.Message) (kept, current Generation, err error) {
	var k, c genRow
	err = db.WriteTx(ctx, func(tx *sql.Tx) error {
		st, cur, err := loadStateGen(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		if err := db.checkLease(ctx, tx, st.id); err != nil {
			return err
		}
		from := st.currentGen
		k, c, err = keepStep(ctx, tx, st, cur, genRow{parentGen: &from, cause: CauseInterrupt,
			messages: cur.messages, nextCP: cur.nextCP, tokens: cur.tokens}, []message.Message{partial})
		return err
	})
	if err != nil {
		return Generation{}, Generation{}, fmt.Errorf("store: keep the interrupted step of %s: %w", sessionID, err)
	}
	return k.public(), c.public(), nil
}

// Clear archives the current generation and starts an empty one.
func (db *DB) Clear(ctx context.Context, sessionID string) (Generation, error) {
	var out genRow
	err := db.WriteTx(ctx, func(tx *sql.Tx) error {
		st, err := db.writeState(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		out, err = startGeneration(ctx, tx, st, genRow{cause: CauseClear, sourceGen: &st.currentGen})
		return err
	})
	if err != nil {
		return Generation{}, fmt.Errorf("store: clear %s: %w", sessionID, err)
	}
	return out.public(), nil
}

// StartCompacted starts a root generation (cause compact, SourceGen set)
// as kimi-cli writes one: checkpoint 0 (with its marker when marker), msgs
// and, when tokens > 0, a usage record. Its turns count from checkpoint 1,
// and a revert to checkpoint 0 leaves the summary too.
func (db *DB) StartCompacted(ctx context.Context, sessionID string, msgs []message.Message, sourceGen int, tokens int, marker bool) (Generation, error) {
	var out genRow
	err := db.WriteTx(ctx, func(tx *sql.Tx) error {
		st, err := db.writeState(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		if _, err := loadGen(ctx, tx, st.id, sourceGen); err != nil {
			return err
		}
		g, err := startGeneration(ctx, tx, st, genRow{cause: CauseCompact, sourceGen: &sourceGen})
		if err != nil {
			return err
		}
		a := &appender{ctx: ctx, tx: tx, session: st.id, gen: g, lastSeq: st.lastSeq, now: nowMS()}
		if _, err := a.checkpoint(marker); err != nil {
			return err
		}
		for _, m := range msgs {
			if _, err := a.message(m); err != nil {
				return err
			}
		}
		if tokens > 0 {
			if _, err := a.add(Record{Kind: KindUsage, TokenCount: tokens}, nil); err != nil {
				return err
			}
		}
		out = a.gen
		return a.flush()
	})
	if err != nil {
		return Generation{}, fmt.Errorf("store: compact %s from generation %d: %w", sessionID, sourceGen, err)
	}
	return out.public(), nil
}

// ForkSession creates a session whose generation 0 (cause fork) shares the
// view of generation gen (gen < 0: the current one) of session id, up to
// checkpoint checkpointID (< 0: the whole view). No record is copied.
func (db *DB) ForkSession(ctx context.Context, id string, gen int, checkpointID int) (Session, error) {
	var s Session
	err := db.WriteTx(ctx, func(tx *sql.Tx) error {
		st, err := loadState(ctx, tx, id)
		if err != nil {
			return err
		}
		if gen < 0 {
			gen = st.currentGen
		}
		src, err := getSession(ctx, tx, st.id)
		if err != nil {
			return err
		}
		segs, self, root, err := resolveSegments(ctx, tx, st.id, gen)
		if err != nil {
			return err
		}
		g := genRow{gen: 0, cause: CauseFork, sourceGen: &gen, createdAt: nowMS(),
			parentSession: st.id, parentGen: &gen, messages: self.messages, nextCP: self.nextCP, tokens: self.tokens}
		if checkpointID >= 0 {
			hit, ok, err := findCheckpoint(ctx, tx, segs, checkpointID)
			if err != nil {
				return err
			}
			if !ok {
				return checkpointError(ctx, tx, st.id, root, checkpointID)
			}
			g.parentSession, g.parentGen, g.forkSeq = hit.seg.session, &hit.seg.gen, &hit.seq
			g.messages, g.nextCP, g.tokens = hit.msgsBefore, checkpointID, hit.tokensBefore
		}
		var agent string // a fork goes on with its source's agent
		if err := tx.QueryRowContext(ctx, `SELECT agent FROM sessions WHERE id = ?`, src.ID).Scan(&agent); err != nil {
			return fmt.Errorf("agent of %s: %w", src.ID, err)
		}
		newID, err := insertSession(ctx, tx, NewSession{Title: src.Title, WorkDir: src.WorkDir, Model: src.Model, Agent: agent})
		if err != nil {
			return err
		}
		g.sessionID = newID
		if err := insertGeneration(ctx, tx, g); err != nil {
			return err
		}
		if g.parentSession != st.id { // the cut is in the source's source's records
			if _, err := tx.ExecContext(ctx, `UPDATE generations SET fork_of = ? WHERE session_id = ? AND gen = 0`, st.id, newID); err != nil {
				return err
			}
		}
		s, err = getSession(ctx, tx, newID)
		return err
	})
	if err != nil {
		return Session{}, fmt.Errorf("store: fork %s generation %d at checkpoint %d: %w", id, gen, checkpointID, err)
	}
	return s, nil
}
