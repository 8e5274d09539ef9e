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
// shares with its source is one hit under the source; also_in names the
// forks that show it too.
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
}

// Search prints the messages matching a full-text query, newest first.
func Search(ctx context.Context, rt *Runtime, a SearchArgs) error {
	db, _, err := rt.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	o := store.SearchOptions{Query: a.Query, Limit: a.Limit}
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
	if a.JSON {
		out := make([]SearchHitJSON, len(hits))
		for i, h := range hits {
			out[i] = SearchHitJSON{SessionID: h.SessionID, Title: h.Title, WorkDir: h.WorkDir, Gen: h.Gen, Seq: h.Seq,
				Role: h.Role, Snippet: h.Snippet, CreatedAt: rfc3339(h.CreatedAt), AlsoIn: h.AlsoIn}
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
		title := clip(oneLine(h.Title), 40)
		if n := len(h.AlsoIn); n > 0 {
			title += " " + words.AlsoInForks(n)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\n", h.SessionID, h.Gen, h.Seq, localTime(h.CreatedAt),
			oneLine(h.Role), title, clip(oneLine(h.Snippet), 100))
	}
	return tw.Flush()
}
