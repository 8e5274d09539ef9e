package store

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/rewind-agent/rewind/store/message"
)

// SearchOptions filters Search. Zero Since/Until mean unbounded; Limit <= 0
// means 50.
type SearchOptions struct {
	Query, WorkDir string
	Since, Until   time.Time
	Limit          int
}

// SearchHit is one message matching a search. Snippet marks the matched
// terms with « and ».
type SearchHit struct {
	SessionID, Title, WorkDir string
	Seq                       int64
	Gen                       int
	Role, Snippet             string
	CreatedAt                 time.Time
}

// searchText is what the full-text index holds for a message: its text
// content and the arguments of its tool calls. Checkpoint markers and
// metadata roles (IsMetadataRole: an imported kimi system prompt) are not
// indexed.
func searchText(m message.Message) string {
	if IsCheckpointMessage(m) || IsMetadataRole(m.Role) {
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
	q := ftsQuery(o.Query)
	if q == "" {
		return nil, nil
	}
	limit := o.Limit
	if limit <= 0 {
		limit = 50
	}
	sqlText := `SELECT c.session_id, s.title, s.work_dir, c.seq, c.gen, coalesce(c.role, ''),
		snippet(context_fts, '«', '»', '…', -1, 16), c.created_at
		FROM context_fts f
		JOIN context c ON c.id = f.docid
		JOIN sessions s ON s.id = c.session_id
		WHERE context_fts MATCH ? AND s.deleted_at IS NULL
		AND substr(coalesce(c.role, ''), 1, 1) <> '_'`
	args := []any{q}
	if o.WorkDir != "" {
		sqlText += " AND s.work_dir = ?"
		args = append(args, o.WorkDir)
	}
	if !o.Since.IsZero() {
		sqlText += " AND c.created_at >= ?"
		args = append(args, o.Since.UnixMilli())
	}
	if !o.Until.IsZero() {
		sqlText += " AND c.created_at < ?"
		args = append(args, o.Until.UnixMilli())
	}
	sqlText += " ORDER BY c.created_at DESC, c.id DESC LIMIT ?"
	args = append(args, limit)
	rows, err := db.reader.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return nil, fmt.Errorf("store: search %q: %w", o.Query, err)
	}
	defer rows.Close()
	var out []SearchHit
	for rows.Next() {
		var h SearchHit
		var created int64
		if err := rows.Scan(&h.SessionID, &h.Title, &h.WorkDir, &h.Seq, &h.Gen, &h.Role, &h.Snippet, &created); err != nil {
			return nil, fmt.Errorf("store: search %q: %w", o.Query, err)
		}
		h.CreatedAt = fromMS(created)
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search %q: %w", o.Query, err)
	}
	return out, nil
}
