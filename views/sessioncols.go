package views

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/rewind-agent/rewind/internal/words"
)

// SessionColumn is one column of the session lists. The workspace's lists
// (SessionList), `rewind sessions` and `rewind sessions --json` all read
// SessionColumns, and the lists' change signature is every column's value
// (SessionRow.Signature): a new column is one entry here (and its field
// in SessionRow), never an edit of each front end.
type SessionColumn struct {
	// Header names the column in the workspace list and the CLI table.
	Header string
	// Width is the workspace list's rule: > 0, that many cells,
	// right-aligned among the numbers at the right (shown from
	// statsMinWidth columns); Share > 0, that share (in fifths) of the
	// width the numbers leave, the larger share first (the title); both
	// 0, not in the list.
	Width, Share int
	// List is the cell in the workspace list (Width or Share columns).
	List func(r SessionRow, now time.Time) string
	// Table is the cell in `rewind sessions` (nil: not in the table). The
	// CLI makes it one safe line.
	Table func(r SessionRow) string
	// JSON is the key in `rewind sessions --json` ("" for none), and Value
	// its value there; a nil value leaves the key out.
	JSON  string
	Value func(r SessionRow) any
	// Mark: the column is the session's mark (⑂ fork, ⇣ kimi, ✗ no
	// answer), which the workspace list draws at the end of the title.
	Mark bool
}

// SessionColumns are the session lists' columns, in the order of the CLI
// table and the JSON object.
var SessionColumns = []SessionColumn{
	{Header: "ID", Table: func(r SessionRow) string { return r.ID },
		JSON: "id", Value: func(r SessionRow) any { return r.ID }},
	{JSON: "title", Value: func(r SessionRow) any { return r.Name }}, // the session's own title; TITLE below says what a fork was cut from
	{JSON: "created_at", Value: func(r SessionRow) any { return rfc3339(r.Created) }},
	{Header: "UPDATED", Table: func(r SessionRow) string { return r.Updated.Local().Format("2006-01-02 15:04") },
		JSON: "updated_at", Value: func(r SessionRow) any { return rfc3339(r.Updated) }},
	{Header: "AGE", Width: 5, List: func(r SessionRow, now time.Time) string { return FormatAge(r.Updated, now) }},
	{Header: "GEN", Table: func(r SessionRow) string { return strconv.Itoa(r.CurrentGen) },
		JSON: "current_gen", Value: func(r SessionRow) any { return r.CurrentGen }},
	{Header: "MSGS", Width: 5, List: func(r SessionRow, _ time.Time) string { return strconv.Itoa(r.Messages) },
		Table: func(r SessionRow) string { return strconv.Itoa(r.Messages) },
		JSON:  "messages", Value: func(r SessionRow) any { return r.Messages }},
	{Header: "CKPTS", Table: func(r SessionRow) string { return strconv.Itoa(r.Checkpoints) },
		JSON: "checkpoints", Value: func(r SessionRow) any { return r.Checkpoints }},
	{Header: "TOKENS", Width: 6, List: func(r SessionRow, _ time.Time) string { return FormatTokens(r.Tokens) },
		Table: func(r SessionRow) string { return strconv.Itoa(r.Tokens) },
		JSON:  "tokens", Value: func(r SessionRow) any { return r.Tokens }},
	{Header: "GENS", Width: 4, List: func(r SessionRow, _ time.Time) string { return strconv.Itoa(r.Generations) }},
	{Header: "WORK DIR", Share: 2, List: func(r SessionRow, _ time.Time) string { return r.WorkDir },
		Table: func(r SessionRow) string { return r.WorkDir },
		JSON:  "work_dir", Value: func(r SessionRow) any { return r.WorkDir }},
	{Header: "MARK", Mark: true, List: func(r SessionRow, _ time.Time) string { return SessionMark(r) },
		Table: func(r SessionRow) string { return or(SessionMark(r), "-") }}, // never an empty column
	{Header: "TITLE", Share: 3, List: func(r SessionRow, _ time.Time) string { return or(r.Title, "(untitled)") },
		Table: func(r SessionRow) string { return words.Clip(r.Title, 120) }},
	// Where a session came from: a fork names its source, the source's
	// title and the checkpoint it was cut at (absent for a whole view).
	{JSON: "fork_of", Value: func(r SessionRow) any { return nonEmpty(r.ForkOf) }},
	{JSON: "fork_of_title", Value: func(r SessionRow) any {
		if r.ForkOf == "" {
			return nil
		}
		return nonEmpty(r.ForkOfTitle)
	}},
	{JSON: "fork_checkpoint", Value: func(r SessionRow) any {
		if r.ForkOf == "" || r.ForkCheckpoint < 0 {
			return nil
		}
		return r.ForkCheckpoint
	}},
	{JSON: "imported", Value: func(r SessionRow) any { return trueOnly(r.Imported) }},    // an import from another agent
	{JSON: "origin", Value: func(r SessionRow) any { return nonEmpty(r.Origin) }},        // the agent it came from: kimi, codex, claude
	{JSON: "no_answer", Value: func(r SessionRow) any { return trueOnly(r.Unanswered) }}, // prompts but no answer ever written (a failed run)
	// A sub-agent's run: the session whose Agent call started it, its type,
	// and the parent's generation it was archived with by a revert.
	{JSON: "subagent_of", Value: func(r SessionRow) any { return nonEmpty(r.SubagentOf) }},
	{JSON: "subagent_type", Value: func(r SessionRow) any { return nonEmpty(r.SubagentType) }},
	{JSON: "subagent_archived_with", Value: func(r SessionRow) any {
		if !r.SubagentArchived {
			return nil
		}
		return r.SubagentArchivedWith
	}},
}

// SessionMark is the mark the lists show beside a session's title: ↳ a
// sub-agent's type, ✗ no answer (a failed run: the workspace leaves it off
// the open session, which may still be running), ⑂ fork (@ the checkpoint
// it was cut at), ⇣ the agent it was imported from.
func SessionMark(r SessionRow) string {
	switch {
	case r.SubagentOf != "":
		return "↳ " + r.SubagentType
	case r.Unanswered && !r.Current:
		return "✗ no answer"
	case r.ForkOf != "" && r.ForkCheckpoint >= 0:
		return fmt.Sprintf("⑂ fork @%d", r.ForkCheckpoint)
	case r.ForkOf != "":
		return "⑂ fork"
	case r.Imported:
		return ImportMark(r.Origin)
	}
	return ""
}

// MarshalJSON writes the row as `rewind sessions --json` prints a session:
// the JSON columns in order.
func (r SessionRow) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for _, c := range SessionColumns {
		if c.JSON == "" {
			continue
		}
		v := c.Value(r)
		if v == nil {
			continue
		}
		val, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("session %s: %s: %w", r.ID, c.JSON, err)
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		key, _ := json.Marshal(c.JSON)
		b.Write(key)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Signature is every column's value and the row's state in one string: two
// listings differ where any list, table or JSON shows something else.
func (r SessionRow) Signature() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s|%d|%t|%t|", r.ID, r.Updated.UnixNano(), r.Live, r.Current)
	for _, c := range SessionColumns {
		switch {
		case c.Value != nil:
			fmt.Fprint(&b, c.Value(r))
		case c.Table != nil:
			b.WriteString(c.Table(r))
		case c.List != nil:
			b.WriteString(c.List(r, r.Updated)) // now: a signature must not age
		}
		b.WriteByte('|')
	}
	return b.String()
}

// statsMinWidth is the narrowest list that shows the Width columns.
const statsMinWidth = 50

// statsGap is the space between the work dir and the numbers.
const statsGap = 3

// listStats are the workspace list's Width columns, in order; listShares
// its Share columns, the larger share first; listMark its mark column.
var listStats, listShares, listMark = func() (stats, shares []SessionColumn, mark SessionColumn) {
	for _, c := range SessionColumns {
		switch {
		case c.Width > 0:
			stats = append(stats, c)
		case c.Share > 0:
			shares = append(shares, c)
		case c.Mark:
			mark = c
		}
	}
	for i := 1; i < len(shares); i++ { // insertion sort, stable: the larger share first
		for j := i; j > 0 && shares[j].Share > shares[j-1].Share; j-- {
			shares[j], shares[j-1] = shares[j-1], shares[j]
		}
	}
	return stats, shares, mark
}()

// statsWidth is the width of the numbers at the right of the list, gap
// included.
func statsWidth() int {
	w := statsGap - 1
	for _, c := range listStats {
		w += 1 + c.Width
	}
	return w
}

// statsText joins the Width columns' cells (or headers), each right-aligned
// in its width.
func statsText(cell func(SessionColumn) string) string {
	var b bytes.Buffer
	for i, c := range listStats {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(padLeft(cell(c), c.Width))
	}
	return b.String()
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

func nonEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func trueOnly(b bool) any {
	if !b {
		return nil
	}
	return true
}
