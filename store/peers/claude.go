package peers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rewind-agent/rewind/store/message"
)

// claudeParser reads a Claude Code session file: one record a line, linked
// by uuid/parentUuid.
type claudeParser struct {
	// at is where each record's uuid left the history: its generation and
	// how many records that generation had then. A prompt whose parent is
	// not where the history ends now was typed after going back to an
	// earlier point (Claude Code's rewind): a new generation from there.
	at map[string]claudePos
	// usageOf marks the answers (message.id) whose usage was counted: each
	// line of an answer repeats it.
	usageOf map[string]bool
	// compacting: a compact_boundary waits for its summary record.
	compacting bool
	// The sidechains written into this file (older versions): their
	// parsers and builders by name, the name each record's uuid went to
	// (a record continues its parent's sidechain), and the sub-agent
	// calls of this file by prompt (a sidechain's first prompt is its
	// call's).
	side     map[string]*claudeParser
	sideB    map[string]*builder
	sideOf   map[string]string
	tasks    map[string]Sidechain
	firstMsg string // the first prompt's text
	// subFile: the file is a sub-agent's own (its first message record is
	// a sidechain's), read as a session; decided: that record was read.
	subFile, decided bool
	summarized       bool // the title is a summary record's
	// The line being read, and its scanner (reused: the blocks' array).
	rec claudeRecord
	sc  message.Scanner
}

type claudePos struct{ gen, n int }

func newClaudeParser() *claudeParser {
	return &claudeParser{at: map[string]claudePos{}, usageOf: map[string]bool{}}
}

// claudeRecord is a record of a session file with its message, read in
// one pass (read).
type claudeRecord struct {
	// The fields most records repeat are part of the line (Scanner.Bytes):
	// they are compared, or kept once a file.
	Type, Subtype, AgentID, SessionID, Cwd []byte
	UUID, Timestamp, Summary               string
	ParentUUID                             *string
	IsSidechain, IsMeta, IsCompactSummary  bool
	HasMessage                             bool // a message object
	Msg                                    claudeMessage
}

type claudeMessage struct {
	ID, Model string
	// Text is a string content (IsText), Blocks a list's.
	Text     string
	IsText   bool
	Blocks   []claudeBlock
	HasUsage bool
	Tokens   int // the usage's input (cache included) and output tokens
}

type claudeBlock struct {
	Type                                []byte // part of the line
	Text, Thinking, ID, Name, ToolUseID string
	Input                               []byte // a tool_use's, as it came (part of the line)
	Content                             string // a tool_result's text (claudeResultText)
	IsError                             bool
}

// read decodes a line (a field of the wrong type reads as absent).
func (r *claudeRecord) read(sc *message.Scanner, raw []byte) error {
	blocks := r.Msg.Blocks[:0]
	*r = claudeRecord{Msg: claudeMessage{Blocks: blocks}}
	sc.Reset(raw)
	err := sc.Object(func(k []byte) (err error) {
		switch string(k) {
		case "type":
			r.Type, err = sc.Bytes()
		case "subtype":
			r.Subtype, err = sc.Bytes()
		case "uuid":
			r.UUID, err = sc.String()
		case "parentUuid":
			r.ParentUUID = nil
			if sc.Kind() == '"' {
				var u string
				u, err = sc.String()
				r.ParentUUID = &u
				break
			}
			err = sc.Skip()
		case "isSidechain":
			r.IsSidechain, err = sc.Bool()
		case "agentId":
			r.AgentID, err = sc.Bytes()
		case "sessionId":
			r.SessionID, err = sc.Bytes()
		case "cwd":
			r.Cwd, err = sc.Bytes()
		case "timestamp":
			r.Timestamp, err = sc.String()
		case "isMeta":
			r.IsMeta, err = sc.Bool()
		case "isCompactSummary":
			r.IsCompactSummary, err = sc.Bool()
		case "summary":
			r.Summary, err = sc.String()
		case "message":
			r.HasMessage = sc.Kind() == '{'
			r.Msg = claudeMessage{Blocks: r.Msg.Blocks[:0]}
			err = r.Msg.read(sc)
		default:
			err = sc.Skip()
		}
		return err
	})
	if err != nil {
		return err
	}
	return sc.End()
}

func (m *claudeMessage) read(sc *message.Scanner) error {
	return sc.Object(func(k []byte) (err error) {
		switch string(k) {
		case "id":
			m.ID, err = sc.String()
		case "model":
			m.Model, err = sc.String()
		case "content":
			m.Text, m.IsText, m.Blocks = "", false, m.Blocks[:0]
			switch sc.Kind() {
			case '[':
				err = sc.List(func() error {
					if sc.Kind() != '{' {
						return sc.Skip()
					}
					m.Blocks = append(m.Blocks, claudeBlock{})
					return m.Blocks[len(m.Blocks)-1].read(sc)
				})
			case '"':
				m.IsText = true
				m.Text, err = sc.String()
			default:
				err = sc.Skip()
			}
		case "usage":
			m.HasUsage = sc.Kind() == '{'
			var n [4]int // input, cache creation, cache read, output
			err = sc.Object(func(k []byte) (err error) {
				i := slices.Index(claudeUsageKeys, string(k))
				if i < 0 {
					return sc.Skip()
				}
				n[i], err = sc.Int()
				return err
			})
			m.Tokens = n[0] + n[1] + n[2] + n[3]
		default:
			err = sc.Skip()
		}
		return err
	})
}

var claudeUsageKeys = []string{"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"}

func (bl *claudeBlock) read(sc *message.Scanner) error {
	return sc.Object(func(k []byte) (err error) {
		switch string(k) {
		case "type":
			bl.Type, err = sc.Bytes()
		case "text":
			bl.Text, err = sc.String()
		case "thinking":
			bl.Thinking, err = sc.String()
		case "id":
			bl.ID, err = sc.String()
		case "name":
			bl.Name, err = sc.String()
		case "input":
			bl.Input, err = sc.Raw()
		case "tool_use_id":
			bl.ToolUseID, err = sc.String()
		case "content":
			bl.Content, err = claudeResultText(sc)
		case "is_error":
			bl.IsError, err = sc.Bool()
		default:
			err = sc.Skip()
		}
		return err
	})
}

// claudeBookkeeping are the record types that hold nothing for the
// history: Claude Code's queue, UI state, file snapshots, hook output.
var claudeBookkeeping = map[string]bool{
	"queue-operation": true, "last-prompt": true, "mode": true, "file-history-snapshot": true,
	"attachment": true, "progress": true, "custom-title": true, "ai-title": true, "tag": true,
	"permission-mode": true, "agent-name": true, "pr-link": true,
}

// syntheticModel is the model Claude Code names on the answers it writes
// itself ("No response requested.").
const syntheticModel = "<synthetic>"

func (p *claudeParser) line(b *builder, raw []byte) error {
	if err := p.rec.read(&p.sc, raw); err != nil {
		return fmt.Errorf("not a Claude Code record: %v", err)
	}
	return p.record(b, &p.rec)
}

func (p *claudeParser) record(b *builder, l *claudeRecord) error {
	if !p.decided && (string(l.Type) == "user" || string(l.Type) == "assistant") {
		p.subFile, p.decided = l.IsSidechain, true
	}
	if l.IsSidechain && !p.subFile {
		// A sub-agent's record in its parent's file (older versions): its
		// own session, linked by the parent's id.
		return p.sidechain(b, l)
	}
	b.setTime(l.Timestamp)
	if b.s.ID == "" {
		b.s.ID = string(l.SessionID)
	}
	if b.s.WorkDir == "" && len(l.Cwd) > 0 {
		b.s.WorkDir = string(l.Cwd)
	}
	defer func() {
		if l.UUID != "" {
			b.cur()
			p.at[l.UUID] = claudePos{len(b.s.Gens) - 1, b.count(len(b.s.Gens) - 1)}
		}
	}()
	switch string(l.Type) {
	case "user", "assistant":
		if !l.HasMessage {
			return fmt.Errorf("%s record: no message object", l.Type)
		}
		if string(l.Type) == "user" {
			return p.user(b, l)
		}
		return p.assistant(b, l)
	case "system":
		if string(l.Subtype) == "compact_boundary" {
			p.compacting = true
		}
	case "summary": // Claude Code's title of the conversation
		if t := title(l.Summary); t != "" && !p.summarized {
			b.s.Title, p.summarized = t, true
		}
	default:
		if !claudeBookkeeping[string(l.Type)] {
			b.s.Unknown[string(l.Type)]++
		}
	}
	return nil
}

// sidechain parses a sub-agent's record written into its parent's file.
// A record whose parent record is a sidechain's continues it; any other
// starts one (Claude Code 1.0 names none: its sidechains start with a
// record without a parent, and two may interleave).
func (p *claudeParser) sidechain(b *builder, l *claudeRecord) error {
	if p.side == nil {
		p.side, p.sideB, p.sideOf = map[string]*claudeParser{}, map[string]*builder{}, map[string]string{}
	}
	name := ""
	if len(l.AgentID) > 0 {
		name = "agent-" + string(l.AgentID)
	} else if l.ParentUUID != nil {
		name = p.sideOf[*l.ParentUUID]
	}
	if name == "" {
		name = fmt.Sprintf("sidechain-%d", len(b.s.Sidechains)+1)
	}
	if l.UUID != "" {
		p.sideOf[l.UUID] = name
	}
	sp, ok := p.side[name]
	if !ok {
		sp = newClaudeParser()
		sp.subFile, sp.decided = true, true
		s := &Session{Origin: b.s.Origin, Path: b.s.Path, Unknown: map[string]int{}, Side: &Sidechain{Name: name}}
		p.side[name], p.sideB[name] = sp, &builder{s: s}
		b.s.Sidechains = append(b.s.Sidechains, s)
	}
	sb := p.sideB[name]
	err := sp.record(sb, l)
	if side := sb.s.Side; side.CallID == "" && sp.firstMsg != "" {
		if t, ok := p.tasks[sp.firstMsg]; ok {
			t.Name = side.Name
			*side = t
		}
	}
	return err
}

// subagentCall notes a Task or Agent call, whose prompt starts a sidechain.
func (p *claudeParser) subagentCall(id string, input []byte) {
	var in Sidechain
	var prompt string
	var sc message.Scanner
	sc.Reset(input)
	err := sc.Object(func(k []byte) (err error) {
		switch string(k) {
		case "description":
			in.Description, err = sc.String()
		case "prompt":
			prompt, err = sc.String()
		case "subagent_type":
			in.Type, err = sc.String()
		default:
			err = sc.Skip()
		}
		return err
	})
	if err != nil || prompt == "" {
		return
	}
	if p.tasks == nil {
		p.tasks = map[string]Sidechain{}
	}
	in.CallID = id
	p.tasks[prompt] = in
}

func (p *claudeParser) user(b *builder, l *claudeRecord) error {
	m := &l.Msg
	text, blocks := m.Text, m.Blocks
	if l.IsCompactSummary {
		if text == "" {
			text = claudeText(blocks)
		}
		p.compacting = false
		b.compact(text)
		return nil
	}
	if p.compacting { // a boundary whose summary was not written
		p.compacting = false
		b.compact("")
	}
	results := false
	for _, bl := range blocks {
		if string(bl.Type) != "tool_result" {
			continue
		}
		results = true
		b.result(bl.ToolUseID, bl.Content, bl.IsError)
	}
	if results || l.IsMeta {
		return nil
	}
	if text == "" {
		text = claudeText(blocks)
	}
	if strings.TrimSpace(text) == "" || claudeCommandOutput(text) {
		return nil
	}
	if l.ParentUUID != nil {
		if at, ok := p.at[*l.ParentUUID]; ok {
			if cur := len(b.s.Gens) - 1; at.gen != cur || at.n != b.count(cur) {
				b.branch(at.gen, at.n)
			}
		}
	}
	if p.firstMsg == "" {
		p.firstMsg = text
	}
	b.prompt(text)
	return nil
}

// claudeCommandOutput: the records a slash command leaves (its name, its
// output, the caveat before them), which Claude Code shows and never sends.
func claudeCommandOutput(text string) bool {
	t := strings.TrimSpace(text)
	for _, tag := range []string{"<command-name>", "<command-message>", "<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>", "<bash-input>", "<bash-stdout>"} {
		if strings.HasPrefix(t, tag) {
			return true
		}
	}
	return false
}

func (p *claudeParser) assistant(b *builder, l *claudeRecord) error {
	m := &l.Msg
	blocks := m.Blocks
	if m.IsText {
		blocks = []claudeBlock{{Type: []byte("text"), Text: m.Text}}
	}
	if m.Model != "" && m.Model != syntheticModel {
		b.s.Model = m.Model
	}
	var think, text []string
	var calls []message.ToolCall
	for _, bl := range blocks {
		switch string(bl.Type) {
		case "thinking":
			think = append(think, bl.Thinking)
		case "text":
			text = append(text, bl.Text)
		case "tool_use":
			args := string(bl.Input)
			if args == "" || args == "null" {
				args = "{}"
			}
			calls = append(calls, translateCall(bl.ID, bl.Name, args))
			if bl.Name == "Task" || bl.Name == "Agent" {
				p.subagentCall(bl.ID, bl.Input)
			}
		case "redacted_thinking":
		default:
			b.s.Unknown["assistant/"+string(bl.Type)]++
		}
	}
	b.assistant(strings.Join(think, "\n"), strings.Join(text, "\n"), calls)
	if m.HasUsage && m.ID != "" && !p.usageOf[m.ID] {
		p.usageOf[m.ID] = true
		b.usage(m.Tokens)
	}
	return nil
}

// claudeText joins a content list's text blocks, Claude Code's
// <system-reminder> blocks aside.
func claudeText(blocks []claudeBlock) string {
	var texts []string
	for _, bl := range blocks {
		if string(bl.Type) == "text" && !strings.HasPrefix(strings.TrimSpace(bl.Text), "<system-reminder>") {
			texts = append(texts, bl.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// claudeResultText reads a tool_result's content: a string, or blocks
// whose texts are joined (another block as "[type]", a value that is not a
// block as its JSON).
func claudeResultText(sc *message.Scanner) (string, error) {
	switch sc.Kind() {
	case '"', 'n':
		return sc.String()
	case '[':
	default:
		raw, err := sc.Raw()
		return string(raw), err
	}
	var texts []string
	err := sc.List(func() error {
		if sc.Kind() != '{' {
			raw, err := sc.Raw()
			texts = append(texts, string(raw))
			return err
		}
		var typ, text string
		err := sc.Object(func(k []byte) (err error) {
			switch string(k) {
			case "type":
				typ, err = sc.String()
			case "text":
				text, err = sc.String()
			default:
				err = sc.Skip()
			}
			return err
		})
		if typ != "text" {
			text = "[" + typ + "]"
		}
		texts = append(texts, text)
		return err
	})
	return strings.Join(texts, "\n"), err
}
