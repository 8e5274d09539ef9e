package peers

import (
	"encoding/json"
	"fmt"
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
}

type claudePos struct{ gen, n int }

func newClaudeParser() *claudeParser {
	return &claudeParser{at: map[string]claudePos{}, usageOf: map[string]bool{}}
}

type claudeLine struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	UUID             string          `json:"uuid"`
	ParentUUID       *string         `json:"parentUuid"`
	IsSidechain      bool            `json:"isSidechain"`
	AgentID          string          `json:"agentId"`
	SessionID        string          `json:"sessionId"`
	Cwd              string          `json:"cwd"`
	Timestamp        string          `json:"timestamp"`
	IsMeta           bool            `json:"isMeta"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	Summary          string          `json:"summary"`
	Message          json.RawMessage `json:"message"`
}

type claudeMessage struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	Usage   *struct {
		Input         int `json:"input_tokens"`
		CacheCreation int `json:"cache_creation_input_tokens"`
		CacheRead     int `json:"cache_read_input_tokens"`
		Output        int `json:"output_tokens"`
	} `json:"usage"`
}

// claudeRecord decodes a record and its message in one pass.
type claudeRecord struct {
	claudeLine
	Msg *claudeMessage `json:"message"`
}

// claudeMessageOf is the record's message: decoded, or read from
// l.Message.
func claudeMessageOf(l claudeLine, decoded *claudeMessage) (claudeMessage, error) {
	if decoded != nil {
		return *decoded, nil
	}
	var m claudeMessage
	err := json.Unmarshal(l.Message, &m)
	return m, err
}

type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
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
	// One decode of the line and its message where it can: a record
	// whose message is missing, null or of the wrong shape is read in two
	// passes as before, so its error and its reading are unchanged.
	var rec claudeRecord
	var l claudeLine
	var m *claudeMessage
	if json.Unmarshal(raw, &rec) == nil && (rec.Msg != nil || rec.Type != "user" && rec.Type != "assistant") {
		l, m = rec.claudeLine, rec.Msg
	} else if err := json.Unmarshal(raw, &l); err != nil {
		return fmt.Errorf("not a Claude Code record: %v", err)
	}
	if !p.decided && (l.Type == "user" || l.Type == "assistant") {
		p.subFile, p.decided = l.IsSidechain, true
	}
	if l.IsSidechain && !p.subFile {
		// A sub-agent's record in its parent's file (older versions): its
		// own session, linked by the parent's id.
		return p.sidechain(b, l, raw)
	}
	b.setTime(l.Timestamp)
	if b.s.ID == "" {
		b.s.ID = l.SessionID
	}
	if b.s.WorkDir == "" && l.Cwd != "" {
		b.s.WorkDir = l.Cwd
	}
	defer func() {
		if l.UUID != "" {
			g := b.cur()
			p.at[l.UUID] = claudePos{len(b.s.Gens) - 1, len(g.Records)}
		}
	}()
	switch l.Type {
	case "user":
		return p.user(b, l, m)
	case "assistant":
		return p.assistant(b, l, m)
	case "system":
		if l.Subtype == "compact_boundary" {
			p.compacting = true
		}
	case "summary": // Claude Code's title of the conversation
		if t := title(l.Summary); t != "" && !p.summarized {
			b.s.Title, p.summarized = t, true
		}
	default:
		if !claudeBookkeeping[l.Type] {
			b.s.Unknown[l.Type]++
		}
	}
	return nil
}

// sidechain parses a sub-agent's record written into its parent's file.
// A record whose parent record is a sidechain's continues it; any other
// starts one (Claude Code 1.0 names none: its sidechains start with a
// record without a parent, and two may interleave).
func (p *claudeParser) sidechain(b *builder, l claudeLine, raw []byte) error {
	if p.side == nil {
		p.side, p.sideB, p.sideOf = map[string]*claudeParser{}, map[string]*builder{}, map[string]string{}
	}
	name := ""
	if l.AgentID != "" {
		name = "agent-" + l.AgentID
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
	err := sp.line(sb, raw)
	if side := sb.s.Side; side.CallID == "" && sp.firstMsg != "" {
		if t, ok := p.tasks[sp.firstMsg]; ok {
			t.Name = side.Name
			*side = t
		}
	}
	return err
}

// subagentCall notes a Task or Agent call, whose prompt starts a sidechain.
func (p *claudeParser) subagentCall(id string, input json.RawMessage) {
	var in struct {
		Description  string `json:"description"`
		Prompt       string `json:"prompt"`
		SubagentType string `json:"subagent_type"`
	}
	if json.Unmarshal(input, &in) != nil || in.Prompt == "" {
		return
	}
	if p.tasks == nil {
		p.tasks = map[string]Sidechain{}
	}
	p.tasks[in.Prompt] = Sidechain{CallID: id, Type: in.SubagentType, Description: in.Description}
}

func (p *claudeParser) user(b *builder, l claudeLine, decoded *claudeMessage) error {
	m, err := claudeMessageOf(l, decoded)
	if err != nil {
		return fmt.Errorf("user record: %v", err)
	}
	var text string
	var blocks []claudeBlock
	if json.Unmarshal(m.Content, &text) != nil {
		if err := json.Unmarshal(m.Content, &blocks); err != nil {
			return fmt.Errorf("user record content: %v", err)
		}
	}
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
		if bl.Type != "tool_result" {
			continue
		}
		results = true
		out := claudeResultText(bl.Content)
		b.result(bl.ToolUseID, out, bl.IsError)
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
			if cur := len(b.s.Gens) - 1; at.gen != cur || at.n != len(b.s.Gens[cur].Records) {
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

func (p *claudeParser) assistant(b *builder, l claudeLine, decoded *claudeMessage) error {
	m, err := claudeMessageOf(l, decoded)
	if err != nil {
		return fmt.Errorf("assistant record: %v", err)
	}
	var blocks []claudeBlock
	if err := json.Unmarshal(m.Content, &blocks); err != nil {
		var s string
		if json.Unmarshal(m.Content, &s) != nil {
			return fmt.Errorf("assistant record content: %v", err)
		}
		blocks = []claudeBlock{{Type: "text", Text: s}}
	}
	if m.Model != "" && m.Model != syntheticModel {
		b.s.Model = m.Model
	}
	var think, text []string
	var calls []message.ToolCall
	for _, bl := range blocks {
		switch bl.Type {
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
			b.s.Unknown["assistant/"+bl.Type]++
		}
	}
	b.assistant(strings.Join(think, "\n"), strings.Join(text, "\n"), calls)
	if m.Usage != nil && m.ID != "" && !p.usageOf[m.ID] {
		p.usageOf[m.ID] = true
		u := m.Usage
		b.usage(u.Input + u.CacheCreation + u.CacheRead + u.Output)
	}
	return nil
}

// claudeText joins a content list's text blocks, Claude Code's
// <system-reminder> blocks aside.
func claudeText(blocks []claudeBlock) string {
	var texts []string
	for _, bl := range blocks {
		if bl.Type == "text" && !strings.HasPrefix(strings.TrimSpace(bl.Text), "<system-reminder>") {
			texts = append(texts, bl.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// claudeResultText is a tool_result's content: a string, or text blocks.
func claudeResultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []claudeBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	var texts []string
	for _, bl := range blocks {
		switch bl.Type {
		case "text":
			texts = append(texts, bl.Text)
		default:
			texts = append(texts, "["+bl.Type+"]")
		}
	}
	return strings.Join(texts, "\n")
}
