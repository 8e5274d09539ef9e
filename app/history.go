package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/app/timetravel"
	"github.com/rewind-agent/rewind/app/tui"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// GenerationJSON is one element of `rewind generations --json`.
type GenerationJSON struct {
	Gen       int  `json:"gen"`
	ParentGen *int `json:"parent_gen"` // null for a root and for a fork's first generation
	// ParentSession: a fork's first generation continues a generation of
	// its source session (ParentSourceGen).
	ParentSession   string `json:"parent_session,omitempty"`
	ParentSourceGen *int   `json:"parent_source_gen,omitempty"`
	ForkSeq         *int64 `json:"fork_seq"`
	Cause           string `json:"cause"`
	Note            string `json:"note"`
	CreatedAt       string `json:"created_at"`
	Archived        bool   `json:"archived"`
	Messages        int    `json:"messages"`
	// Undo: an undo made this generation (its cause is the restore it did).
	Undo bool `json:"undo,omitempty"`
	// A fork's first generation names the session forked and the
	// checkpoint it was cut at, as `rewind sessions --json` does (fork_of
	// is the session forked, which parent_session is not for a fork of a
	// fork cut at a checkpoint they share); absent elsewhere.
	ForkOf         string `json:"fork_of,omitempty"`
	ForkCheckpoint *int   `json:"fork_checkpoint,omitempty"`
}

// ViewJSON is `rewind show --json`.
type ViewJSON struct {
	ID               string       `json:"id"`
	Generation       int          `json:"generation"`
	Tokens           int          `json:"tokens"`
	NextCheckpointID int          `json:"next_checkpoint_id"`
	Records          []RecordJSON `json:"records"`
}

// RecordJSON is one record of a view. Fields that do not apply to the
// record's kind are null: role and message for checkpoints and usage,
// checkpoint_id for non-checkpoints, token_count for non-usage records.
type RecordJSON struct {
	Seq          int64           `json:"seq"`
	Kind         string          `json:"kind"`
	Role         *string         `json:"role"`
	CheckpointID *int            `json:"checkpoint_id"`
	TokenCount   *int            `json:"token_count"`
	Message      json.RawMessage `json:"message"`
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Sessions lists the sessions, newest first.
func Sessions(ctx context.Context, rt *Runtime, asJSON bool) error {
	db, _, err := rt.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	list, err := db.ListSessions(ctx, store.ListOptions{Subagents: true})
	if err != nil {
		return fmt.Errorf("list sessions: %w", err)
	}
	rows := make([]views.SessionRow, len(list))
	for i, s := range list {
		rows[i] = tui.SessionRow(s)
	}
	if asJSON {
		for i := range rows {
			if archived, gen, err := db.SubagentArchived(ctx, list[i]); err != nil {
				return fmt.Errorf("list sessions: %w", err)
			} else if archived {
				rows[i].SubagentArchived, rows[i].SubagentArchivedWith = true, gen
			}
		}
		return writeJSON(rt.Stdout, rows) // the columns' JSON (views.SessionColumns)
	}
	if len(list) == 0 {
		_, err := fmt.Fprintf(rt.Stdout, "no sessions yet in %s (start one with `rewind` or `rewind -p PROMPT`)\n", db.Path())
		return err
	}
	var cols []views.SessionColumn
	for _, c := range views.SessionColumns {
		if c.Table != nil {
			cols = append(cols, c)
		}
	}
	tw := tabwriter.NewWriter(rt.Stdout, 0, 4, 2, ' ', 0)
	cells := make([]string, len(cols))
	for i, c := range cols {
		cells[i] = c.Header
	}
	fmt.Fprintln(tw, strings.Join(cells, "\t"))
	for _, r := range rows {
		for i, c := range cols {
			cells[i] = oneLine(c.Table(r))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// causeUndo is how `rewind generations` names a generation an undo made.
const causeUndo store.Cause = "undo"

// Generations lists a session's generations in order.
func Generations(ctx context.Context, rt *Runtime, id string, asJSON bool) error {
	h, err := rt.openSession(ctx, id, false)
	if err != nil {
		return err
	}
	defer h.Close(ctx)
	s := h.s
	gens, err := h.db.Generations(ctx, s.ID)
	if err != nil {
		return storeError(err, s.ID, "")
	}
	rewinds, err := h.db.Rewinds(ctx, s.ID)
	if err != nil {
		return storeError(err, s.ID, "")
	}
	undos := timetravel.MadeByUndo(rewinds)
	if asJSON {
		out := make([]GenerationJSON, 0, len(gens))
		for _, g := range gens {
			j := GenerationJSON{
				Gen: g.Gen, ParentGen: g.ParentGen, ForkSeq: g.ForkSeq, Cause: string(g.Cause), Note: g.Note,
				CreatedAt: rfc3339(g.CreatedAt), Archived: g.Archived(), Messages: g.Messages, Undo: undos[g.Gen],
			}
			if g.ParentSession != "" { // not a generation of this session
				j.ParentGen, j.ParentSession, j.ParentSourceGen = nil, g.ParentSession, g.ParentGen
			}
			if g.Gen == 0 && s.ForkOf != "" {
				j.ForkOf = s.ForkOf
				if s.ForkCheckpoint >= 0 {
					j.ForkCheckpoint = &s.ForkCheckpoint
				}
			}
			out = append(out, j)
		}
		return writeJSON(rt.Stdout, out)
	}
	// Generation G was archived when G+1 was made: its state says by what,
	// in the timeline's words.
	causes := make(map[int]store.Cause, len(gens))
	for _, g := range gens {
		causes[g.Gen] = g.Cause
		if undos[g.Gen] {
			causes[g.Gen] = causeUndo
		}
	}
	tw := tabwriter.NewWriter(rt.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GEN\tPARENT\tFORK SEQ\tCAUSE\tCREATED\tMSGS\tSTATE\tNOTE")
	for _, g := range gens {
		parent, fork := "-", "-"
		note := g.Note
		switch {
		case g.ParentGen != nil && g.ParentSession != "":
			// a fork's first generation: its parent is a generation of the
			// source, not of this session; the note says which
			if note == "" {
				src, gen := g.ParentSession, *g.ParentGen
				if g.Gen == 0 && s.ForkOf != "" && g.SourceGen != nil {
					// the session forked, which a checkpoint its source
					// holds leaves out of ParentSession
					src, gen = s.ForkOf, *g.SourceGen
				}
				note = fmt.Sprintf("fork of %s gen %d", src, gen)
			}
		case g.ParentGen != nil:
			parent = fmt.Sprint(*g.ParentGen)
		}
		if g.ForkSeq != nil {
			fork = fmt.Sprint(*g.ForkSeq)
		}
		if g.SourceGen != nil && g.ParentGen == nil && g.ParentSession == "" {
			parent = fmt.Sprintf("(from %d)", *g.SourceGen)
		}
		state := "archived"
		if next, ok := causes[g.Gen+1]; ok {
			state = fmt.Sprintf("archived by %s in gen %d", next, g.Gen+1)
		}
		if g.Gen == s.CurrentGen {
			state = "current"
		} else if !g.Archived() {
			state = "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", g.Gen, parent, fork, causes[g.Gen], localTime(g.CreatedAt),
			g.Messages, state, words.Clip(oneLine(note), 60))
	}
	return tw.Flush()
}

// Show prints a generation's view (the current one when gen is nil). It
// streams: the view is read in one snapshot and written record by record,
// so memory stays flat however long the session.
func Show(ctx context.Context, rt *Runtime, id string, gen *int, asJSON bool) error {
	h, err := rt.openSession(ctx, id, false)
	if err != nil {
		return err
	}
	defer h.Close(ctx)
	db, s := h.db, h.s
	g, what := -1, ""
	if gen != nil {
		g, what = *gen, fmt.Sprintf("generation %d", *gen)
	}
	bw := bufio.NewWriterSize(rt.Stdout, 64<<10)
	var p viewPrinter = &transcriptPrinter{w: errWriter{w: bw}, s: s, toolNames: map[string]string{}}
	if asJSON {
		p = &jsonPrinter{w: errWriter{w: bw}, id: s.ID}
	}
	if err := db.EachRecord(ctx, s.ID, g, p.head, p.record); err != nil {
		if werr := p.err(); werr != nil {
			return werr
		}
		return storeError(err, s.ID, what)
	}
	p.end()
	if err := p.err(); err != nil {
		return err
	}
	return bw.Flush()
}

// viewPrinter writes a view as it is read: its header, each record, the end.
type viewPrinter interface {
	head(store.View) error
	record(store.Record) error
	end()
	err() error // the first write error
}

// jsonPrinter writes a view as the ViewJSON document, one record at a
// time, byte for byte what encoding a whole ViewJSON would write.
type jsonPrinter struct {
	w   errWriter
	id  string
	n   int
	out []byte // a message body escaped and indented, reused
}

func (p *jsonPrinter) head(v store.View) error {
	b, err := json.MarshalIndent(struct {
		ID               string `json:"id"`
		Generation       int    `json:"generation"`
		Tokens           int    `json:"tokens"`
		NextCheckpointID int    `json:"next_checkpoint_id"`
	}{p.id, v.Generation.Gen, v.Tokens, v.NextCheckpointID}, "", "  ")
	if err != nil {
		return err
	}
	p.w.write(bytes.TrimSuffix(b, []byte("\n}")))
	p.w.printf(",\n  \"records\": [")
	return p.w.err
}

func (p *jsonPrinter) record(r store.Record) error {
	if isCheckpointMarker(r) {
		return nil
	}
	b := p.out[:0]
	if p.n > 0 {
		b = append(b, ',')
	}
	p.n++
	// What json.MarshalIndent of its RecordJSON with the prefix "    "
	// writes, without reflection and two extra passes over the body.
	b = append(b, "\n    {\n      \"seq\": "...)
	b = strconv.AppendInt(b, r.Seq, 10)
	b = append(b, ",\n      \"kind\": "...)
	b = appendJSONString(b, string(r.Kind))
	b = append(b, ",\n      \"role\": "...)
	if r.Kind == store.KindMessage {
		b = appendJSONString(b, r.Role)
	} else {
		b = append(b, "null"...)
	}
	for _, f := range []struct {
		key string
		ok  bool
		n   int
	}{{"checkpoint_id", r.Kind == store.KindCheckpoint, r.CheckpointID}, {"token_count", r.Kind == store.KindUsage, r.TokenCount}} {
		b = append(b, ",\n      \""...)
		b = append(b, f.key...)
		b = append(b, "\": "...)
		if f.ok {
			b = strconv.AppendInt(b, int64(f.n), 10)
		} else {
			b = append(b, "null"...)
		}
	}
	b = append(b, ",\n      \"message\": "...)
	if r.Kind != store.KindMessage || len(r.Body) == 0 {
		b = append(b, "null"...)
	} else {
		var err error
		if b, err = message.AppendIndent(b, r.Body, "      ", "  "); err != nil {
			return fmt.Errorf("record %d: %w", r.Seq, err)
		}
	}
	b = append(b, "\n    }"...)
	p.out = b
	p.w.write(b)
	return p.w.err
}

// appendJSONString appends s as a JSON string, as encoding/json writes
// it; kinds and roles are plain words, quoted as they are.
func appendJSONString(b []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	if plain {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

func (p *jsonPrinter) end() {
	if p.n > 0 {
		p.w.printf("\n  ")
	}
	p.w.printf("]\n}\n")
}

func (p *jsonPrinter) err() error { return p.w.err }

// isCheckpointMarker: the "<system>CHECKPOINT N</system>" user message that
// lets the model name checkpoints (D-Mail). `show` leaves it out: the
// checkpoint record beside it carries the same fact; `export` keeps it.
func isCheckpointMarker(r store.Record) bool {
	if r.Kind != store.KindMessage || r.Role != "user" {
		return false
	}
	// Most prompts are told apart without decoding them: a marker's body
	// holds the word as it is, or spelt with escapes.
	if !bytes.Contains(r.Body, []byte("CHECKPOINT")) && !bytes.Contains(r.Body, []byte(`\u`)) {
		return false
	}
	m, err := r.Message()
	return err == nil && message.IsCheckpoint(m)
}

// transcriptPrinter writes a view as a readable conversation. Each
// record is built in one reused buffer and written at once, as
// jsonPrinter does: its pieces cost no call through the writer and no
// allocation.
type transcriptPrinter struct {
	w         errWriter
	s         store.Session
	n         int
	toolNames map[string]string
	out       []byte
}

func (p *transcriptPrinter) head(v store.View) error {
	state := "current"
	if v.Generation.Gen != p.s.CurrentGen {
		state = "archived"
	}
	title := p.s.Title
	if title == "" {
		title = "(untitled)"
	}
	p.w.printf("session %s  %s\n", p.s.ID, oneLine(title))
	p.w.printf("work dir %s\n", oneLine(p.s.WorkDir))
	p.w.printf("generation %d (%s, %s)  %d tokens  next checkpoint %d\n", v.Generation.Gen, v.Generation.Cause, state, v.Tokens, v.NextCheckpointID)
	if v.Generation.Note != "" {
		p.w.printf("note: %s\n", oneLine(v.Generation.Note))
	}
	return p.w.err
}

func (p *transcriptPrinter) record(r store.Record) error {
	p.n++
	b := p.out[:0]
	switch r.Kind {
	case store.KindCheckpoint:
		b = append(b, "\n── checkpoint "...)
		b = strconv.AppendInt(b, int64(r.CheckpointID), 10)
		b = append(b, " ──\n"...)
	case store.KindUsage:
		b = append(b, "   · context: "...)
		b = strconv.AppendInt(b, int64(r.TokenCount), 10)
		b = append(b, " tokens\n"...)
	case store.KindMessage:
		// The body is this record's own copy, dropped with it: the
		// message may share its bytes.
		var m message.Message
		if err := m.DecodeBorrowed(r.Body); err != nil {
			p.w.printf("\n[%s] (unreadable message #%d)\n", r.Role, r.Seq)
			return p.w.err
		}
		if message.IsCheckpoint(m) {
			return p.w.err // the checkpoint line above says it
		}
		b = appendMessage(b, m, p.toolNames)
	}
	p.out = b
	p.w.write(b)
	return p.w.err
}

func (p *transcriptPrinter) end() {
	if p.n == 0 {
		p.w.printf("\n(empty)\n")
	}
}

func (p *transcriptPrinter) err() error { return p.w.err }

// maxToolNames is how many calls' names show keeps to name their results:
// a result further than that from its call shows without the name.
const maxToolNames = 4096

// appendMessage appends a message as show's text mode writes it: its
// label in brackets, its reasoning, prose and images indented, a line per
// tool call.
func appendMessage(b []byte, m message.Message, toolNames map[string]string) []byte {
	b = append(b, "\n["...)
	switch m.Role {
	case "_system_prompt":
		b = append(b, "system prompt"...)
	case "tool":
		name := m.Name
		if name == "" {
			name = toolNames[m.ToolCallID]
		}
		if name != "" && plainLine(name) && plainLine(m.ToolCallID) {
			// what oneLine of the joined label is, without joining it
			b = append(b, "tool "...)
			b = append(b, name...)
			if m.ToolCallID != "" {
				b = append(b, " ("...)
				b = append(b, m.ToolCallID...)
				b = append(b, ')')
			}
			break
		}
		label := "tool " + name
		if m.ToolCallID != "" {
			label += " (" + m.ToolCallID + ")"
		}
		b = append(b, oneLine(label)...)
	default:
		b = append(b, oneLine(m.Role)...)
	}
	b = append(b, "]\n"...)
	if r := m.Content.Reasoning(); r != "" {
		b = appendIndented(b, "(thinking) "+r)
	}
	if text := m.Content.Prose(); text != "" {
		b = appendIndented(b, text)
	}
	for _, im := range m.Content.Images() {
		b = appendIndented(b, im.Label())
	}
	if len(m.ToolCalls) > 0 && len(toolNames) >= maxToolNames {
		clear(toolNames) // results follow their calls: memory stays flat
	}
	for _, c := range m.ToolCalls {
		// a copy of the two in one string: the message may borrow its
		// body, which the map would keep alive
		idName := c.ID + c.Name
		toolNames[idName[:len(c.ID)]] = idName[len(c.ID):]
		b = append(b, "  → "...)
		b = append(b, oneLine(c.Name)...)
		b = append(b, ' ')
		b = append(b, words.Clip(oneLine(c.Args), 200)...)
		b = append(b, "  ("...)
		b = append(b, oneLine(c.ID)...)
		b = append(b, ")\n"...)
	}
	return b
}

// appendIndented appends s, control characters replaced, with each line
// indented by two spaces and trailing newlines dropped, then a newline.
func appendIndented(b []byte, s string) []byte {
	s = sanitize(strings.TrimRight(s, "\n"))
	b = append(b, "  "...)
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			break
		}
		b = append(b, s[:i+1]...)
		b = append(b, "  "...)
		s = s[i+1:]
	}
	b = append(b, s...)
	return append(b, '\n')
}

func localTime(t time.Time) string { return t.Local().Format("2006-01-02 15:04") }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// errWriter keeps the first write error so printing code stays linear.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) write(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
