package app

import (
	"context"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/store"
)

// SearchArgs is `rewind search`: the query, output form and filters.
type SearchArgs struct {
	Query     string
	JSON      bool
	Limit     int
	SessionID string // a session id or unique prefix; "" = all sessions
	WorkDir   string // "" = every work dir
}

// SearchHitJSON is one hit of `rewind search --json`. A record a fork
// shares with its source is one hit, under the newest session that shows
// it (under --session's session when given); also_in names the others
// (store.SearchHit).
type SearchHitJSON struct {
	SessionID string   `json:"session_id"`
	Title     string   `json:"title"`
	WorkDir   string   `json:"work_dir"`
	Gen       int      `json:"gen"`
	Seq       int64    `json:"seq"`
	Role      string   `json:"role"`
	Snippet   string   `json:"snippet"`
	CreatedAt string   `json:"created_at"`
	AlsoIn    []string `json:"also_in,omitempty"`
	Archived  bool     `json:"archived,omitempty"` // the session's current view no longer shows it
}

// Search prints the messages matching a full-text query, newest first.
func Search(ctx context.Context, rt *Runtime, a SearchArgs) error {
	q := store.AsYouType(a.Query)
	if !store.HasTerms(q) {
		return UsageIn("rewind search", fmt.Errorf("QUERY %q has no word of two letters or more to search for", a.Query))
	}
	if a.Limit < 1 {
		return UsageIn("rewind search", fmt.Errorf("--limit must be at least 1, got %d", a.Limit))
	}
	db, _, err := rt.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	// One hit more than asked tells a cut table from a whole one.
	o := store.SearchOptions{Query: q, Limit: a.Limit + 1}
	if a.WorkDir != "" {
		if o.WorkDir, err = filepath.Abs(a.WorkDir); err != nil {
			return userErrorf(err, "work dir %s: %v", a.WorkDir, err)
		}
	}
	if a.SessionID != "" {
		s, err := db.GetSession(ctx, a.SessionID)
		if err != nil {
			return storeError(err, a.SessionID, "")
		}
		o.SessionID = s.ID
	}
	hits, err := db.Search(ctx, o)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	more := len(hits) > a.Limit
	hits = hits[:min(len(hits), a.Limit)]
	if a.JSON {
		out := make([]SearchHitJSON, len(hits))
		for i, h := range hits {
			out[i] = SearchHitJSON{SessionID: h.SessionID, Title: h.Title, WorkDir: h.WorkDir, Gen: h.Gen, Seq: h.Seq,
				Role: h.Role, Snippet: h.Snippet, CreatedAt: rfc3339(h.CreatedAt), AlsoIn: h.AlsoIn, Archived: h.Archived}
		}
		return writeJSON(rt.Stdout, out)
	}
	if len(hits) == 0 {
		_, err := fmt.Fprintf(rt.Stdout, "no message matches %q\n", a.Query)
		return err
	}
	tw := tabwriter.NewWriter(rt.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tGEN\tSEQ\tWHEN\tROLE\tTITLE\tSNIPPET")
	for _, h := range hits {
		title := words.Clip(oneLine(h.ListTitle), 60) // room for a fork's "(fork of … @ checkpoint N)"
		if n := len(h.AlsoIn); n > 0 {
			title += " " + words.AlsoInSessions(n)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\n", h.SessionID, h.Gen, h.Seq, localTime(h.CreatedAt),
			oneLine(h.Role), title, snippetAround(oneLine(h.Snippet), 100))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if more {
		_, err = fmt.Fprintf(rt.Stderr, "the newest %s shown; there are more (--limit N shows more)\n", words.Count(a.Limit, "hit"))
	}
	return err
}

// snippetAround clips a snippet to n runes around its first match (marked
// «…»), as the TUI's hit rows do: when the match would be cut off, the
// text before it is dropped (to "…" and some words of context) so the
// match is always shown.
func snippetAround(s string, n int) string {
	r := []rune(s)
	first, end := -1, -1
	for i, c := range r {
		if c == '«' && first < 0 {
			first = i
		}
		if c == '»' && first >= 0 {
			end = i
			break
		}
	}
	if len(r) <= n || first < 0 || end < n-1 {
		return words.Clip(s, n)
	}
	// a third of the width before the match, starting at a word
	start := max(0, first-n/3)
	if start > 0 && r[start-1] != ' ' {
		for i := start; i < first; i++ {
			if r[i] == ' ' {
				start = i + 1
				break
			}
		}
	}
	return words.Clip("…"+string(r[start:]), n)
}
