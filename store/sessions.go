package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// NewSession describes a session to create. CreatedAt zero means now.
type NewSession struct {
	Title, WorkDir, Model string
	// Agent is the agent it is started with (see SessionAgent).
	Agent     string
	CreatedAt time.Time
	// Subagent, when its Of is set, makes the session a sub-agent run
	// started by a tool call of session Of.
	Subagent SubagentOrigin
}

// SubagentOrigin is where a sub-agent session comes from: the session
// whose tool call (CallID) started it, and its type.
type SubagentOrigin struct {
	Of, CallID, Type string
}

// ListOptions filters ListSessions. Limit <= 0 means no limit. WorkDir
// is compared cleaned (filepath.Clean: "dir/" is dir).
type ListOptions struct {
	WorkDir        string
	IncludeDeleted bool
	Limit          int
	// Subagents includes sub-agent sessions; without it only the sessions
	// a person started are listed (continue, the browser's top level), so
	// a child is never picked up as "the newest session" by accident.
	Subagents bool
}

// newID is a lowercase ULID: time-sortable and safe in paths and URLs.
func newID() string { return strings.ToLower(ulid.Make().String()) }

// sessionColumns selects a Session joined with its current generation row.
// The origin columns read generation 0: how the session began (a fork
// names its source and the checkpoint it was cut at), and whether any of
// its own records is an answer (a failed `-p` run has none).
const sessionBaseColumns = `s.id, s.title, s.work_dir, s.model, s.created_at, s.updated_at,
	s.current_gen, s.deleted_at, g.messages, g.next_checkpoint_id, g.tokens,
	g0.cause, g0.note, coalesce(g0.parent_session, ''), coalesce(ps.title, ''),
	(SELECT pc.checkpoint_id FROM context pc WHERE pc.session_key = ps.key AND pc.gen = g0.parent_gen AND pc.seq = g0.fork_seq),
	EXISTS (SELECT 1 FROM context a WHERE a.session_key = s.key AND a.role = 'assistant')`

// sessionColumns is sessionBaseColumns and the sub-agent origin (0011).
// CreateSession reads the base only: a session is created (and its
// origin known) on a database of any older schema (the migration tests).
const sessionColumns = sessionBaseColumns + `,
	coalesce(s.subagent_of, ''), coalesce(s.subagent_call, ''), coalesce(s.subagent_type, ''),
	coalesce(s.subagent_gen, -1), coalesce(s.subagent_seq, -1)`

const sessionFrom = ` FROM sessions s JOIN generations g ON g.session_id = s.id AND g.gen = s.current_gen
	JOIN generations g0 ON g0.session_id = s.id AND g0.gen = 0
	LEFT JOIN sessions ps ON ps.id = g0.parent_session`

type scanner interface{ Scan(dest ...any) error }

func scanSession(r scanner) (Session, error) { return scanSessionColumns(r, true) }

// scanSessionColumns scans sessionColumns, or sessionBaseColumns without
// withOrigin.
func scanSessionColumns(r scanner, withOrigin bool) (Session, error) {
	var s Session
	var created, updated int64
	var deleted, forkCP sql.NullInt64
	var cause, note string
	var answered bool
	dest := []any{&s.ID, &s.Title, &s.WorkDir, &s.Model, &created, &updated,
		&s.CurrentGen, &deleted, &s.Messages, &s.Checkpoints, &s.Tokens,
		&cause, &note, &s.ForkOf, &s.ForkOfTitle, &forkCP, &answered}
	if withOrigin {
		dest = append(dest, &s.SubagentOf, &s.SubagentCall, &s.SubagentType, &s.subagentGen, &s.subagentSeq)
	}
	if err := r.Scan(dest...); err != nil {
		return Session{}, err
	}
	s.Imported = Cause(cause) == CauseImport
	if s.Imported {
		s.Origin = originOf(note)
	}
	s.ForkCheckpoint = -1
	if forkCP.Valid {
		s.ForkCheckpoint = int(forkCP.Int64)
	}
	s.Unanswered = !answered && s.ForkOf == "" && !s.Imported && s.Messages > 0
	s.CreatedAt, s.UpdatedAt = fromMS(created), fromMS(updated)
	s.Deleted = deleted.Valid
	s.Generations = s.CurrentGen + 1 // generations are numbered 0..current_gen
	return s, nil
}

// CreateSession creates a session and its generation 0 (cause start).
func (db *DB) CreateSession(ctx context.Context, ns NewSession) (Session, error) {
	var s Session
	err := db.WriteTx(ctx, func(tx *sql.Tx) error {
		id, err := insertSession(ctx, tx, ns)
		if err != nil {
			return err
		}
		if err := insertGeneration(ctx, tx, genRow{sessionID: id, gen: 0, cause: CauseStart, createdAt: toMS(ns.CreatedAt)}); err != nil {
			return err
		}
		s, err = scanSessionColumns(tx.QueryRowContext(ctx, "SELECT "+sessionBaseColumns+sessionFrom+" WHERE s.id = ?", id), false)
		if err != nil {
			return err
		}
		if ns.Subagent.Of != "" {
			return tx.QueryRowContext(ctx, `SELECT subagent_of, subagent_call, subagent_type, subagent_gen, subagent_seq
				FROM sessions WHERE id = ?`, id).Scan(&s.SubagentOf, &s.SubagentCall, &s.SubagentType, &s.subagentGen, &s.subagentSeq)
		}
		return nil
	})
	if err != nil {
		return Session{}, fmt.Errorf("store: create session: %w", err)
	}
	return s, nil
}

func insertSession(ctx context.Context, tx *sql.Tx, ns NewSession) (string, error) {
	id := newID()
	at := toMS(ns.CreatedAt)
	if ns.Subagent.Of == "" {
		if ns.Agent == "" { // the column is 0012's: older schemas still take a session without it
			_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, title, work_dir, model, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?)`, id, ns.Title, ns.WorkDir, ns.Model, at, at)
			return id, err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, title, work_dir, model, agent, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, id, ns.Title, ns.WorkDir, ns.Model, ns.Agent, at, at)
		return id, err
	}
	// Where the parent is now: the step whose tool call starts the child.
	parent, err := loadState(ctx, tx, ns.Subagent.Of)
	if err != nil {
		return "", fmt.Errorf("parent session %s: %w", ns.Subagent.Of, err)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO sessions (id, title, work_dir, model, created_at, updated_at,
		subagent_of, subagent_call, subagent_type, subagent_gen, subagent_seq)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, id, ns.Title, ns.WorkDir, ns.Model, at, at,
		parent.id, ns.Subagent.CallID, ns.Subagent.Type, parent.currentGen, parent.lastSeq)
	return id, err
}

// SessionAgent is the agent session id was started with: a built-in
// agent's name or an agent file's path; "" when none was recorded (a
// session from before agent files, an import).
func (db *DB) SessionAgent(ctx context.Context, id string) (string, error) {
	var agent string
	err := db.reader.QueryRowContext(ctx, `SELECT agent FROM sessions WHERE id = ?`, id).Scan(&agent)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("session %s: %w", id, ErrSessionNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("agent of session %s: %w", id, err)
	}
	return agent, nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// getSessionQuery reads one session (prepared once on the writer: an
// import reads back every session it writes).
const getSessionQuery = "SELECT " + sessionColumns + sessionFrom + " WHERE s.id = ?"

func getSession(ctx context.Context, q querier, id string) (Session, error) {
	s, err := scanSession(q.QueryRowContext(ctx, getSessionQuery, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("session %s: %w", id, ErrSessionNotFound)
	}
	if err != nil {
		return Session{}, err
	}
	return s, forkSource(ctx, q, &s)
}

// forkSource corrects ForkOf and ForkOfTitle of a fork cut at a checkpoint
// of a fork whose records hold it are the fork's source's: its
// parent_session names the session of those records, generations.fork_of
// the session forked (ForkSession). One primary-key lookup, for such forks
// only; sessionColumns does not read fork_of, so the code still reads a
// database of an older schema.
func forkSource(ctx context.Context, q querier, s *Session) error {
	if s.ForkOf == "" || s.ForkCheckpoint < 0 {
		return nil
	}
	var src, title sql.NullString
	err := q.QueryRowContext(ctx, `SELECT g.fork_of, ps.title FROM generations g LEFT JOIN sessions ps ON ps.id = g.fork_of
		WHERE g.session_id = ? AND g.gen = 0`, s.ID).Scan(&src, &title)
	if err != nil {
		return fmt.Errorf("fork source of %s: %w", s.ID, err)
	}
	if src.Valid {
		s.ForkOf, s.ForkOfTitle = src.String, title.String
	}
	return nil
}

// resolveID turns an exact id or a unique prefix into a session id.
func resolveID(ctx context.Context, q querier, id string) (string, error) {
	st, err := loadState(ctx, q, id)
	return st.id, err
}

// ambiguous lists the first sessions a prefix matches (the error path only;
// resolving stays a two-row lookup).
func ambiguous(ctx context.Context, q querier, prefix string) error {
	rows, err := q.QueryContext(ctx, `SELECT id, title FROM sessions WHERE id >= ? AND id < ? ORDER BY id LIMIT ?`,
		prefix, prefix+"\x7f", MaxAmbiguousCandidates+1)
	if err != nil {
		return err
	}
	defer rows.Close()
	e := &AmbiguousIDError{Prefix: prefix}
	for rows.Next() {
		var s Session
		if err := rows.Scan(&s.ID, &s.Title); err != nil {
			return err
		}
		if len(e.Candidates) == MaxAmbiguousCandidates {
			e.More = true
			break
		}
		e.Candidates = append(e.Candidates, s)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return e
}

// GetSession returns a session by exact id or unique prefix; deleted
// sessions are returned too, with Deleted set.
func (db *DB) GetSession(ctx context.Context, id string) (Session, error) {
	// An exact id is read in one statement; a prefix (or an unknown id) is
	// resolved first.
	s, err := getSession(ctx, db.reader, strings.ToLower(strings.TrimSpace(id)))
	if errors.Is(err, ErrSessionNotFound) {
		var full string
		if full, err = resolveID(ctx, db.reader, id); err == nil {
			s, err = getSession(ctx, db.reader, full)
		}
	}
	if err != nil {
		return Session{}, fmt.Errorf("store: get session: %w", err)
	}
	return s, nil
}

// ListSessions lists sessions, most recently updated first, with the
// counters of their current generation.
func (db *DB) ListSessions(ctx context.Context, o ListOptions) ([]Session, error) {
	q := "SELECT " + sessionColumns + sessionFrom
	var where []string
	var args []any
	if !o.IncludeDeleted {
		where = append(where, "s.deleted_at IS NULL")
	}
	if !o.Subagents {
		where = append(where, "s.subagent_of IS NULL")
	}
	if o.WorkDir != "" {
		where = append(where, "s.work_dir = ?")
		args = append(args, filepath.Clean(o.WorkDir)) // "dir/" is dir
	}
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY s.updated_at DESC, s.id DESC"
	if o.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, o.Limit)
	}
	rows, err := db.reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", err)
	}
	defer rows.Close()
	out := make([]Session, 0, max(o.Limit, 16))
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list sessions: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", err)
	}
	rows.Close() // before the reads of forkSource
	for i := range out {
		if err := forkSource(ctx, db.reader, &out[i]); err != nil {
			return nil, fmt.Errorf("store: list sessions: %w", err)
		}
	}
	return out, nil
}

// updateSession resolves id and runs one UPDATE on it in a write transaction.
func (db *DB) updateSession(ctx context.Context, op, id, set string, args ...any) error {
	err := db.WriteTx(ctx, func(tx *sql.Tx) error {
		full, err := resolveID(ctx, tx, id)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "UPDATE sessions SET "+set+" WHERE id = ?", append(args, full)...)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: %s %s: %w", op, id, err)
	}
	return nil
}

// RenameSession sets the title.
func (db *DB) RenameSession(ctx context.Context, id, title string) error {
	return db.updateSession(ctx, "rename", id, "title = ?", title)
}

// SetWorkDir sets the directory the session works in (a fork of a session
// whose dir is not on this machine, continued in another).
func (db *DB) SetWorkDir(ctx context.Context, id, dir string) error {
	return db.updateSession(ctx, "set work dir", id, "work_dir = ?", dir)
}

// SetTitleIfEmpty sets the title only when the session has none yet.
func (db *DB) SetTitleIfEmpty(ctx context.Context, id, title string) error {
	return db.updateSession(ctx, "set title", id, "title = CASE WHEN title = '' THEN ? ELSE title END", title)
}

// DeleteSession hides a session (soft delete; UndeleteSession restores it).
func (db *DB) DeleteSession(ctx context.Context, id string) error {
	return db.updateSession(ctx, "delete", id, "deleted_at = coalesce(deleted_at, ?)", nowMS())
}

// UndeleteSession makes a soft-deleted session visible again.
func (db *DB) UndeleteSession(ctx context.Context, id string) error {
	return db.updateSession(ctx, "undelete", id, "deleted_at = NULL")
}

// SubagentsOf lists the sub-agent sessions started by the given sessions
// (not deleted), oldest first: the browser folds them under their parent.
func (db *DB) SubagentsOf(ctx context.Context, parents []string) ([]Session, error) {
	if len(parents) == 0 {
		return nil, nil
	}
	marks := strings.TrimSuffix(strings.Repeat("?,", len(parents)), ",")
	args := make([]any, len(parents))
	for i, p := range parents {
		args[i] = p
	}
	rows, err := db.reader.QueryContext(ctx, "SELECT "+sessionColumns+sessionFrom+
		" WHERE s.subagent_of IN ("+marks+") AND s.deleted_at IS NULL ORDER BY s.subagent_of, s.created_at, s.id", args...)
	if err != nil {
		return nil, fmt.Errorf("store: sub-agents: %w", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("store: sub-agents: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: sub-agents: %w", err)
	}
	return out, nil
}

// SubagentArchived reports whether a sub-agent session's run is out of
// its parent's current view (a revert or D-Mail of the parent went back
// to before the step that called it) and, if so, the parent's generation
// that holds the call: the child is "archived with generation gen of its
// parent". An ordinary session is never archived. Derived each time, so an
// undo of the parent's revert brings the child back.
func (db *DB) SubagentArchived(ctx context.Context, s Session) (archived bool, gen int, err error) {
	if s.SubagentOf == "" || s.subagentSeq <= 0 {
		return false, 0, nil
	}
	parent, err := db.GetSession(ctx, s.SubagentOf)
	if err != nil {
		return false, 0, fmt.Errorf("store: parent of sub-agent %s: %w", s.ID, err)
	}
	if parent.CurrentGen == s.subagentGen {
		return false, 0, nil
	}
	holds, err := db.ViewHolds(ctx, parent.ID, parent.CurrentGen, ViewPos{SessionID: parent.ID, Seq: s.subagentSeq})
	if err != nil {
		return false, 0, err
	}
	return !holds, s.subagentGen, nil
}
