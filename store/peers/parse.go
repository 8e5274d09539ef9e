package peers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// Session is one parsed codex rollout or Claude Code session file.
type Session struct {
	Origin  string // store.OriginCodex or store.OriginClaude
	ID      string // the agent's session id ("" when the file names none)
	Path    string
	WorkDir string
	Model   string
	Title   string
	Created time.Time // of the first record with a time
	Updated time.Time // of the last
	// Gens are the generations, oldest first; all but the last are
	// archived. SourceGen of a compact generation is an index in Gens.
	Gens []store.ImportedGeneration
	// Unknown counts the lines of record types the parser does not know,
	// by type; Invalid the lines that are not JSON objects.
	Unknown map[string]int
	Invalid int
	// Consumed is how many bytes of the file the records come from: whole
	// lines (a torn last line is not consumed); Torn says there was one.
	Consumed int64
	Torn     bool
	// Sidechains are Claude Code sub-agent runs written into the session
	// file (1.0 and other older versions), in the order they start; a
	// newer version's are files of their own (Source.Parent). Each has
	// Side set.
	Sidechains []*Session
	Side       *Sidechain
}

// Sidechain is a sub-agent run written into its parent's file: its name
// under the parent and the parent's call that started it (the Task or
// Agent call whose prompt is the run's first prompt), when found.
type Sidechain struct {
	Name                      string // "agent-<id>", or "sidechain-N" in the order they start
	CallID, Type, Description string
}

// Records counts the records of every generation.
func (s *Session) Records() int {
	n := 0
	for _, g := range s.Gens {
		n += len(g.Records)
	}
	return n
}

// lineParser turns one line of a source file (a JSON object) into records.
type lineParser interface {
	line(b *builder, raw []byte) error
}

// Parser reads a source file's lines as they come (Feed), for an import
// (Parse) and for following a file that grows.
type Parser struct {
	b    *builder
	p    lineParser
	tail []byte // an incomplete last line
	warn func(string)
	n    int // lines seen
}

// NewParser parses a file of origin (store.OriginCodex, store.OriginClaude).
func NewParser(origin, path string, warn func(string)) (*Parser, error) {
	s := &Session{Origin: origin, Path: path, Unknown: map[string]int{}}
	var p lineParser
	switch origin {
	case store.OriginCodex:
		p = &codexParser{}
	case store.OriginClaude:
		p = newClaudeParser()
	default:
		return nil, fmt.Errorf("peers: no parser for %q", origin)
	}
	if warn == nil {
		warn = func(string) {}
	}
	return &Parser{b: &builder{s: s}, p: p, warn: warn}, nil
}

// Feed parses the whole lines of data, keeping an incomplete last line for
// the next Feed (or Close).
func (p *Parser) Feed(data []byte) {
	if len(p.tail) > 0 {
		data = append(p.tail, data...)
		p.tail = nil
	}
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		p.one(data[:i], true)
		p.b.s.Consumed += int64(i + 1)
		data = data[i+1:]
	}
	if len(data) > 0 {
		p.tail = append([]byte(nil), data...)
	}
}

// Close parses an incomplete last line: a JSON object is taken (the file
// ended without a newline), anything else is a torn line, left for the next
// import with one warning.
func (p *Parser) Close() *Session {
	if len(bytes.TrimSpace(p.tail)) > 0 {
		if p.one(p.tail, false) {
			p.b.s.Consumed += int64(len(p.tail))
		} else {
			p.b.s.Torn = true
			p.warn(fmt.Sprintf("%s:%d: torn last line (%d bytes, no newline) skipped; the next import takes it once it is whole", p.b.s.Path, p.n, len(p.tail)))
		}
	}
	p.tail = nil
	return p.b.s
}

// one parses a line; a line that is not a JSON object is counted and
// reported, unless it is the incomplete last one (whole false): then it
// returns false and nothing is counted.
func (p *Parser) one(line []byte, whole bool) bool {
	p.n++
	line = bytes.TrimSpace(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")))
	if len(line) == 0 {
		return true
	}
	// A whole line is checked only when its parser fails: the parsers
	// decode the line whole first (json.Unmarshal validates it), and a
	// second validating pass over every line cost 3 % of an import.
	if line[0] != '{' || !whole && !json.Valid(line) {
		if !whole {
			p.n--
			return false
		}
		p.notJSON()
		return true
	}
	if err := p.p.line(p.b, line); err != nil {
		if !json.Valid(line) {
			p.notJSON()
			return true
		}
		p.b.s.Invalid++
		p.warn(fmt.Sprintf("%s:%d: %v, skipped", p.b.s.Path, p.n, err))
	}
	return true
}

func (p *Parser) notJSON() {
	p.b.s.Invalid++
	p.warn(fmt.Sprintf("%s:%d: not a JSON object, skipped", p.b.s.Path, p.n))
}

// Parse reads a whole source file.
func Parse(r io.Reader, origin, path string, warn func(string)) (*Session, error) {
	p, err := NewParser(origin, path, warn)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 256<<10)
	for {
		n, err := r.Read(buf)
		p.Feed(buf[:n])
		if err == io.EOF {
			return p.Close(), nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// builder appends a session's records.
type builder struct {
	s      *Session
	at     time.Time // the current line's time
	nextCP int
	// A streamed session's records are handed over a piece at a time
	// (take): given is how many generations the pieces started, gone how
	// many records of each were handed over and dropped. gone is nil
	// until a piece is taken.
	given int
	gone  []int
	// lost: the source went back to a point whose records were handed
	// over already (branch): the stream cannot go on.
	lost bool
}

// count is how many records generation gi has, those handed over
// included.
func (b *builder) count(gi int) int {
	n := len(b.s.Gens[gi].Records)
	if gi < len(b.gone) {
		n += b.gone[gi]
	}
	return n
}

// held is how many records the builder holds.
func (b *builder) held() int { return b.s.Records() }

// take hands over the records added since the last take: those of the
// generation the last piece ended in, then the generations begun since.
// Unless all, the last record is kept back (usage compares a token count
// with it), so a piece may be empty.
func (b *builder) take(all bool) store.ImportPiece {
	var p store.ImportPiece
	gens := b.s.Gens
	for len(b.gone) < len(gens) {
		b.gone = append(b.gone, 0)
	}
	keep := 0
	if !all && len(gens) > 0 && len(gens[len(gens)-1].Records) > 0 {
		keep = 1
	}
	for gi := max(b.given-1, 0); gi < len(gens); gi++ {
		g := &gens[gi]
		n := len(g.Records)
		if gi == len(gens)-1 {
			n -= keep
		}
		part := store.ImportedGeneration{Records: g.Records[:n], Decoded: g.Decoded[:n], Cause: g.Cause, SourceGen: g.SourceGen}
		if gi < b.given {
			p.Records, p.Decoded = part.Records, part.Decoded
		} else {
			p.Gens = append(p.Gens, part)
		}
		b.gone[gi] += n
		// The records handed over go with the piece; the rest move to
		// arrays of their own, so the old ones can be freed.
		g.Records = append([]store.Record(nil), g.Records[n:]...)
		g.Decoded = append([]*message.Message(nil), g.Decoded[n:]...)
	}
	b.given = len(gens)
	return p
}

func (b *builder) cur() *store.ImportedGeneration {
	if len(b.s.Gens) == 0 {
		b.s.Gens = append(b.s.Gens, store.ImportedGeneration{Cause: store.CauseImport})
	}
	return &b.s.Gens[len(b.s.Gens)-1]
}

// setTime takes a line's RFC 3339 timestamp.
func (b *builder) setTime(ts string) {
	if ts == "" {
		return
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return
	}
	b.at = t
	if b.s.Created.IsZero() {
		b.s.Created = t
	}
	if t.After(b.s.Updated) {
		b.s.Updated = t
	}
}

func (b *builder) add(m message.Message) {
	// The body's size is about its texts' (AppendJSON grew it several
	// times over from nothing).
	size := 64 + len(m.Content.Text)
	for _, p := range m.Content.Parts {
		size += 32 + len(p.Text) + len(p.Think)
	}
	for _, c := range m.ToolCalls {
		size += 96 + len(c.Args)
	}
	body, err := m.AppendJSON(make([]byte, 0, size+size/8))
	if err != nil {
		return
	}
	g := b.cur()
	g.Records = append(g.Records, store.Record{Kind: store.KindMessage, Role: m.Role, Body: body, CreatedAt: b.at})
	g.Decoded = append(g.Decoded, &m)
}

// prompt is a turn: its checkpoint, then the user's message.
func (b *builder) prompt(text string) {
	g := b.cur()
	g.Records = append(g.Records, store.Record{Kind: store.KindCheckpoint, CheckpointID: b.nextCP, CreatedAt: b.at})
	g.Decoded = append(g.Decoded, nil)
	b.nextCP++
	b.add(message.NewText("user", text))
	if b.s.Title == "" {
		b.s.Title = title(text)
	}
}

func (b *builder) usage(tokens int) {
	if tokens <= 0 {
		return
	}
	g := b.cur()
	if n := len(g.Records); n > 0 && g.Records[n-1].Kind == store.KindUsage && g.Records[n-1].TokenCount == tokens {
		return // codex repeats a token count when nothing happened between
	}
	g.Records = append(g.Records, store.Record{Kind: store.KindUsage, TokenCount: tokens, CreatedAt: b.at})
	g.Decoded = append(g.Decoded, nil)
}

// assistant adds an answer line: reasoning, text and calls (any may be
// empty; nothing at all adds nothing).
func (b *builder) assistant(think, text string, calls []message.ToolCall) {
	var parts []message.Part
	if think != "" {
		parts = append(parts, message.Part{Type: "think", Think: think})
	}
	if text != "" {
		parts = append(parts, message.Part{Type: "text", Text: text})
	}
	if len(parts) == 0 && len(calls) == 0 {
		return
	}
	m := message.Message{Role: "assistant", ToolCalls: calls}
	switch {
	case len(parts) == 1 && think == "":
		m.Content = message.TextContent(text)
	case len(parts) > 0:
		m.Content = message.Content{Parts: parts}
	default:
		m.Content = message.Content{IsNull: true}
	}
	b.add(m)
}

// result adds a tool output; a failed call's is rewind's tool error.
func (b *builder) result(callID, output string, failed bool) {
	if failed {
		b.add(message.ToolError(callID, output))
		return
	}
	b.add(message.Message{Role: "tool", Content: message.TextContent(output), ToolCallID: callID})
}

// compact starts a compact generation opened by the summary; the
// generation before it is archived and is its source.
func (b *builder) compact(summary string) {
	b.cur()
	src := len(b.s.Gens) - 1
	b.s.Gens = append(b.s.Gens, store.ImportedGeneration{Cause: store.CauseCompact, SourceGen: &src})
	b.add(message.Compaction(strings.TrimSpace(summary)))
}

// branch starts a generation holding the first n records of generation
// gen: the source went back to an earlier point and went on from there.
func (b *builder) branch(gen, n int) {
	if gen < len(b.gone) && b.gone[gen] > 0 && n > 0 {
		b.lost = true // its records were handed over
		return
	}
	from := b.s.Gens[gen]
	g := store.ImportedGeneration{Cause: store.CauseImport,
		Records: append([]store.Record(nil), from.Records[:n]...), Decoded: append([]*message.Message(nil), from.Decoded[:n]...)}
	b.s.Gens = append(b.s.Gens, g)
}

// titleRunes is the longest title, in runes (plus an ellipsis), as kimi-cli
// imports cut theirs.
const titleRunes = 60

// title is the first non-blank line of a prompt, cut to titleRunes.
func title(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if line = strings.Join(strings.Fields(line), " "); line != "" {
			rs := []rune(line)
			if len(rs) <= titleRunes {
				return line
			}
			return strings.TrimRight(string(rs[:titleRunes]), " ") + "…"
		}
	}
	return ""
}
