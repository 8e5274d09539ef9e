package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rewind-agent/rewind/store/message"
)

// SearchOptions filters Search. Zero Since/Until mean unbounded; Limit <= 0
// means 50. SessionID (an exact id) keeps the hits of one session and the
// records it shares with its fork source. WorkDir is compared cleaned
// (filepath.Clean: "dir/" is dir).
type SearchOptions struct {
	Query, WorkDir, SessionID string
	Since, Until              time.Time
	Limit                     int
}

// SearchHit is one message matching a search. Snippet marks the matched
// terms with « and ». A record a fork shares with its source is one hit,
// under the newest (last updated) session that shows it, or, with
// SearchOptions.SessionID, under that session; AlsoIn names the others
// that show it, newest first. SessionID, Title, WorkDir and Gen are that
// session's (Gen: its generation that shows the record); RecordSession is
// the session that wrote the record, so ViewPos{RecordSession, Seq} is its
// position in any view that shows it. ListTitle and Fork describe that
// session as the session lists do (Session.ListTitle); Archived says its
// current view no longer shows the record (a compaction or rewind replaced
// that generation: a message a compaction kept is then found twice, in
// the archived generation and in the current one).
type SearchHit struct {
	SessionID     string
	Title         string
	WorkDir       string
	Gen           int
	Seq           int64
	Role          string
	Snippet       string
	CreatedAt     time.Time
	AlsoIn        []string
	ListTitle     string
	Fork          bool
	Archived      bool
	RecordSession string
}

// Pos is the hit's record's position in a view (ViewAround, ViewHolds).
func (h SearchHit) Pos() ViewPos { return ViewPos{SessionID: h.RecordSession, Seq: h.Seq} }

// searchText is what the full-text index holds for a message: its text
// content and the arguments of its tool calls. Checkpoint markers and
// metadata roles (IsMetadataRole: an imported kimi system prompt) are not
// indexed.
func searchText(m message.Message) string {
	if message.IsCheckpoint(m) || IsMetadataRole(m.Role) {
		return ""
	}
	var b strings.Builder
	b.WriteString(m.Content.PlainText())
	for _, c := range m.ToolCalls {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(c.Name)
		b.WriteByte(' ')
		b.WriteString(c.Args)
	}
	return strings.TrimSpace(b.String())
}

// IsMetadataRole reports whether a message role is one of kimi-cli's
// metadata roles ("_system_prompt"; they start with "_"): such a record is
// kept in its view but is not a chat message and is not searched.
func IsMetadataRole(role string) bool { return strings.HasPrefix(role, "_") }

// ftsQuery turns what a user typed into an FTS4 query that cannot be a
// syntax error: words and "quoted phrases" become quoted phrases (ANDed),
// a trailing * keeps prefix search, and a bare OR between terms is kept.
// Unbalanced quotes close at the end. An empty result means nothing to find.
func ftsQuery(in string) string {
	var terms []string
	rs := []rune(in)
	for i := 0; i < len(rs); {
		switch {
		case unicode.IsSpace(rs[i]):
			i++
		case rs[i] == '"':
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				j++
			}
			if p := phrase(string(rs[i+1:min(j, len(rs))]), false); p != "" {
				terms = append(terms, p)
			}
			i = j + 1
		default:
			j := i
			for j < len(rs) && !unicode.IsSpace(rs[j]) && rs[j] != '"' {
				j++
			}
			word := string(rs[i:j])
			i = j
			if word == "OR" {
				if len(terms) > 0 && terms[len(terms)-1] != "OR" {
					terms = append(terms, "OR")
				}
				continue
			}
			prefix := strings.HasSuffix(word, "*")
			if p := phrase(word, prefix); p != "" {
				terms = append(terms, p)
			}
		}
	}
	for len(terms) > 0 && terms[len(terms)-1] == "OR" {
		terms = terms[:len(terms)-1]
	}
	return strings.Join(terms, " ")
}

// AsYouType is how the TUI's search and `rewind search` read what was
// typed: the word being typed is a prefix, so "lookahead fla" finds
// "flaky". A last word of one letter is left out ("build c" searches
// "build*", "b" nothing: ""): as a whole word it matched almost nothing,
// and as a prefix almost everything, which the index cannot answer fast
// (docs/DECISIONS.md). A word followed by a quote stays a whole word.
func AsYouType(q string) string {
	if q == "" || strings.HasSuffix(q, "*") || strings.HasSuffix(q, "\"") || strings.Count(q, "\"")%2 == 1 {
		return q
	}
	i := strings.LastIndexAny(q, " \t") + 1
	last := q[i:]
	if last == "OR" {
		return q
	}
	if utf8.RuneCountInString(last) < 2 {
		rest := strings.TrimSpace(q[:i])
		if rest == "OR" || strings.HasSuffix(rest, " OR") {
			rest = strings.TrimSpace(strings.TrimSuffix(rest, "OR"))
		}
		return AsYouType(rest)
	}
	return q + "*"
}

// HasTerms reports whether a query has anything to search for: a word, a
// prefix or a phrase ("", spaces, punctuation and a bare OR have none).
func HasTerms(q string) bool { return ftsQuery(q) != "" }

// phrase quotes s as an FTS phrase keeping only letters, digits and spaces
// (what the unicode61 tokenizer indexes anyway).
func phrase(s string, prefix bool) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte(' ')
		}
	}
	words := strings.Fields(b.String())
	if len(words) == 0 {
		return ""
	}
	out := `"` + strings.Join(words, " ")
	if prefix {
		out += "*"
	}
	return out + `"`
}

// Search finds messages across all sessions (not deleted ones), newest
// first. The query is words and "phrases" (all must match), word* for a
// prefix, OR between terms. Metadata records are filtered out here too,
// because an older rewind indexed them.
func (db *DB) Search(ctx context.Context, o SearchOptions) ([]SearchHit, error) {
	var out []SearchHit
	err := db.SearchEach(ctx, o, func(h SearchHit) error {
		out = append(out, h)
		return nil
	})
	return out, err
}

// searchQuery reads hits in docid order, newest record first: FTS4 walks
// the doclist backwards and the joins are one primary-key probe per row, so
// LIMIT stops the walk early and snippets are built for the returned rows
// only, from their bodies (the index holds no text: snippet.go). (Ordering by created_at instead sorted every match: 0.25 s for two
// common words on a million records.) A fork shares its source's records
// up to fork_seq; the last column lists those forks (id, the generation
// that shows the record, title, work dir, updated_at) for labelHit, read
// for the returned rows only.
const searchQuery = `SELECT c.id, s.id, s.title, s.work_dir, s.updated_at, c.seq, c.gen, coalesce(c.role, ''),
	c.body, c.created_at,
	(SELECT json_group_array(json_array(g.session_id, g.gen, fs.title, fs.work_dir, fs.updated_at))
		FROM generations g JOIN sessions fs ON fs.id = g.session_id
		WHERE g.parent_session = s.id AND g.cause = 'fork' AND (g.fork_seq IS NULL OR c.seq < g.fork_seq)
		AND fs.deleted_at IS NULL)
	FROM context_fts f
	JOIN context c ON c.id = f.docid
	JOIN sessions s ON s.key = c.session_key
	WHERE context_fts MATCH ? AND s.deleted_at IS NULL
	AND substr(coalesce(c.role, ''), 1, 1) <> '_'`

// SearchEach is Search streaming: fn gets each hit as it is read, newest
// first; an error from fn stops the search and is returned. Cancelling ctx
// interrupts the query (go-sqlite3 calls sqlite3_interrupt), so a query
// superseded by the next keystroke stops at once.
func (db *DB) SearchEach(ctx context.Context, o SearchOptions, fn func(SearchHit) error) error {
	return db.searchEach(ctx, o, planAuto, fn)
}

// The plans of a filtered search (searchNarrow); tests force each.
const (
	planAuto = iota
	planJoin
	planNarrow
)

func (db *DB) searchEach(ctx context.Context, o SearchOptions, plan int, fn func(SearchHit) error) error {
	q := ftsQuery(o.Query)
	if q == "" {
		return nil
	}
	if o.WorkDir != "" {
		o.WorkDir = filepath.Clean(o.WorkDir) // "dir/" is dir
	}
	limit := o.Limit
	if limit <= 0 {
		limit = 50
	}
	sqlText := searchQuery
	args := []any{q}
	narrow := plan == planNarrow
	if plan == planAuto {
		var err error
		if narrow, err = db.searchNarrow(ctx, o); err != nil {
			return fmt.Errorf("store: search %q: %w", o.Query, err)
		}
	}
	if o.WorkDir != "" {
		if narrow {
			sqlText += ` AND f.docid IN (SELECT wc.id FROM sessions ws JOIN context wc ON wc.session_key = ws.key
				WHERE ws.work_dir = ?)`
			args = append(args, o.WorkDir)
		}
		sqlText += " AND s.work_dir = ?"
		args = append(args, o.WorkDir)
	}
	if o.SessionID != "" {
		if narrow {
			sqlText += ` AND f.docid IN (SELECT id FROM context WHERE session_key = ` + sessionKeyOf + `
				UNION ALL SELECT pc.id FROM generations pg JOIN sessions ps ON ps.id = pg.parent_session
				JOIN context pc ON pc.session_key = ps.key WHERE pg.session_id = ?)`
			args = append(args, o.SessionID, o.SessionID)
		}
		sqlText += ` AND (s.id = ? OR EXISTS (SELECT 1 FROM generations g WHERE g.session_id = ?
			AND g.parent_session = s.id AND (g.fork_seq IS NULL OR c.seq < g.fork_seq)))`
		args = append(args, o.SessionID, o.SessionID)
	}
	if !o.Since.IsZero() {
		sqlText += " AND c.created_at >= ?"
		args = append(args, o.Since.UnixMilli())
	}
	if !o.Until.IsZero() {
		sqlText += " AND c.created_at < ?"
		args = append(args, o.Until.UnixMilli())
	}
	sqlText += " ORDER BY f.docid DESC LIMIT ?"
	args = append(args, limit)
	retired, err := readRetired(ctx, db.reader)
	if err != nil {
		return fmt.Errorf("store: search %q: %w", o.Query, err)
	}
	rows, err := db.reader.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return fmt.Errorf("store: search %q: %w", o.Query, err)
	}
	defer rows.Close()
	type listedSession struct {
		s    Session
		segs []segment // its current view
	}
	listed := map[string]listedSession{} // the sessions hits are listed under, read once each
	phrases := queryPhrases(q)
	for rows.Next() {
		var h SearchHit
		var id, created, updated int64
		var body []byte
		var forks sql.NullString
		if err := rows.Scan(&id, &h.SessionID, &h.Title, &h.WorkDir, &updated, &h.Seq, &h.Gen, &h.Role, &body, &created, &forks); err != nil {
			return fmt.Errorf("store: search %q: %w", o.Query, err)
		}
		var m message.Message
		if err := json.Unmarshal(body, &m); err != nil {
			return fmt.Errorf("store: search %q: record %d of %s: %w", o.Query, h.Seq, h.SessionID, err)
		}
		var matched bool
		h.Snippet, matched = snippet(searchText(m), phrases)
		if !matched && retired.holds(id) {
			continue // the index's entry of a dropped record whose id was given again (retireRecords)
		}
		h.CreatedAt = fromMS(created)
		h.RecordSession = h.SessionID
		recordGen := h.Gen
		if forks.String != "" && forks.String != "[]" {
			if err := labelHit(&h, updated, forks.String, o.SessionID); err != nil {
				return fmt.Errorf("store: search %q: %w", o.Query, err)
			}
		}
		ls, ok := listed[h.SessionID]
		if !ok {
			if ls.s, err = getSession(ctx, db.reader, h.SessionID); err != nil {
				return fmt.Errorf("store: search %q: %w", o.Query, err)
			}
			if ls.segs, _, _, err = resolveSegments(ctx, db.reader, h.SessionID, ls.s.CurrentGen); err != nil {
				return fmt.Errorf("store: search %q: %w", o.Query, err)
			}
			listed[h.SessionID] = ls
		}
		h.ListTitle, h.Fork = ls.s.ListTitle(), ls.s.ForkOf != ""
		h.Archived = !slices.ContainsFunc(ls.segs, func(sg segment) bool {
			return sg.session == h.RecordSession && sg.gen == recordGen && h.Seq < sg.bound
		})
		if err := fn(h); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: search %q: %w", o.Query, err)
	}
	return nil
}

// searchNarrow reports whether o's work dir or session filter keeps few
// enough records that SearchEach should drive from them: the records the
// filter can keep (those of the work dir's sessions, or of the session and
// the sessions it forked from) become a set FTS4's matches are checked
// against (an in-memory index probe each) before any join, instead of
// joining every match to its session. Without it a filter that keeps few
// of a common word's matches read all of them, each joined to its record
// and session (0.3-0.8 s for "the" in a dir of few sessions on 2M
// records). With a broad filter the joined walk stops early at the LIMIT,
// and building the set would cost more, so the estimate (the filtered
// sessions' last_seq, against the span of record ids; both read from
// indexes without scanning records) picks the set only when the filter
// keeps under a twentieth of the records. Either way the exact filter
// stays in the query: the set only skips matches it cannot keep.
func (db *DB) searchNarrow(ctx context.Context, o SearchOptions) (bool, error) {
	if o.WorkDir == "" && o.SessionID == "" {
		return false, nil
	}
	var kept, span sql.NullInt64
	err := db.reader.QueryRowContext(ctx, `SELECT
		(SELECT max(id) FROM context) - (SELECT min(id) FROM context) + 1,
		min(
			CASE WHEN ?1 = '' THEN ?3 ELSE
				(SELECT coalesce(sum(last_seq), 0) FROM sessions WHERE work_dir = ?1) END,
			CASE WHEN ?2 = '' THEN ?3 ELSE
				(SELECT coalesce(sum(ps.last_seq), 0) FROM sessions ps WHERE ps.id = ?2
					OR ps.id IN (SELECT parent_session FROM generations WHERE session_id = ?2)) END)`,
		o.WorkDir, o.SessionID, int64(math.MaxInt64)).Scan(&span, &kept)
	if err != nil {
		return false, fmt.Errorf("estimating the filter: %w", err)
	}
	return kept.Valid && span.Valid && kept.Int64*20 <= span.Int64, nil
}

// labelHit puts a hit of a record that forks share under the session it
// is listed under (SearchHit): the one asked for (only, when not ""), else
// the newest of the writer (updated at updated) and the forks that show it
// (forks: searchQuery's JSON rows); AlsoIn names the others, newest first.
func labelHit(h *SearchHit, updated int64, forks, only string) error {
	var rows [][]any
	if err := json.Unmarshal([]byte(forks), &rows); err != nil {
		return fmt.Errorf("the forks sharing record %d: %w", h.Seq, err)
	}
	type shower struct {
		id, title, workDir string
		gen                int
		updated            int64
	}
	all := []shower{{h.SessionID, h.Title, h.WorkDir, h.Gen, updated}}
	for _, r := range rows {
		if len(r) != 5 {
			return fmt.Errorf("the forks sharing record %d: row %v", h.Seq, r)
		}
		id, _ := r[0].(string)
		gen, _ := r[1].(float64)
		title, _ := r[2].(string)
		wd, _ := r[3].(string)
		up, _ := r[4].(float64)
		all = append(all, shower{id, title, wd, int(gen), int64(up)})
	}
	slices.SortStableFunc(all, func(a, b shower) int {
		if c := cmp.Compare(b.updated, a.updated); c != 0 {
			return c
		}
		return strings.Compare(b.id, a.id)
	})
	pick := 0
	for i, s := range all {
		if s.id == only {
			pick = i
		}
	}
	p := all[pick]
	h.SessionID, h.Title, h.WorkDir, h.Gen = p.id, p.title, p.workDir, p.gen
	h.AlsoIn = nil
	for i, s := range all {
		if i != pick {
			h.AlsoIn = append(h.AlsoIn, s.id)
		}
	}
	return nil
}
