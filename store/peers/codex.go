package peers

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/rewind-agent/rewind/store/message"
)

// codexParser reads a codex rollout: {timestamp, type, payload} lines,
// each decoded once with message.Scanner (a field of the wrong type reads
// as absent).
type codexParser struct {
	sc  message.Scanner
	cur codexLine // reused: its lists keep their arrays
}

// codexLine is a rollout line. The payload holds the fields of every line
// type, none of which share a key with another type: a line is read in one
// pass, its payload before its type may be known.
type codexLine struct {
	Timestamp, Type string
	HasPayload      bool
	P               codexPayload
}

type codexPayload struct {
	Type, Role, Name, Arguments, Input, CallID, ID string
	// Text is the content's text (string content, or the text parts
	// joined), Summary the reasoning summary's texts.
	Text    string
	Summary []string
	// Output is a tool output's text; Failed: its success was false.
	Output     string
	Failed     bool
	Action     *codexAction
	Cwd, Model string
	Message    string
	Usage      *codexUsage // info.last_token_usage
}

type codexAction struct {
	Command    []string
	WorkingDir string
}

type codexUsage struct{ Input, Output, Total int }

// codexBookkeeping are the line types that hold nothing for the history
// (rollout state, UI events, usage kept by event_msg token_count).
var codexBookkeeping = map[string]bool{"world_state": true, "token_usage_record": true}

func (c *codexParser) line(b *builder, raw []byte) error {
	l := &c.cur
	summary := l.P.Summary[:0]
	*l = codexLine{}
	l.P.Summary = summary
	if err := c.read(raw); err != nil {
		return fmt.Errorf("not a codex rollout line: %v", err)
	}
	b.setTime(l.Timestamp)
	p := &l.P
	if !l.HasPayload {
		p = &codexPayload{}
	}
	switch l.Type {
	case "session_meta":
		if b.s.ID == "" && l.HasPayload {
			b.s.ID, b.s.WorkDir = p.ID, p.Cwd
		}
	case "turn_context":
		if p.Model != "" {
			b.s.Model = p.Model
		}
		if b.s.WorkDir == "" {
			b.s.WorkDir = p.Cwd
		}
	case "response_item":
		if !l.HasPayload {
			return fmt.Errorf("response_item: no payload object")
		}
		codexResponseItem(b, p)
	case "event_msg":
		if p.Type == "token_count" && p.Usage != nil {
			n := p.Usage.Total
			if n == 0 {
				n = p.Usage.Input + p.Usage.Output
			}
			b.usage(n)
		}
	case "compacted":
		if !l.HasPayload {
			return fmt.Errorf("compacted: no payload object")
		}
		b.compact(p.Message)
	default:
		if !codexBookkeeping[l.Type] {
			b.s.Unknown[l.Type]++
		}
	}
	return nil
}

// read decodes a line into c.cur.
func (c *codexParser) read(raw []byte) error {
	sc, l := &c.sc, &c.cur
	sc.Reset(raw)
	err := sc.Object(func(k []byte) (err error) {
		switch string(k) {
		case "timestamp":
			l.Timestamp, err = sc.String()
		case "type":
			l.Type, err = sc.String()
		case "payload":
			summary := l.P.Summary[:0]
			l.P = codexPayload{Summary: summary}
			l.HasPayload = sc.Kind() == '{'
			err = c.payload(&l.P)
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

func (c *codexParser) payload(p *codexPayload) error {
	sc := &c.sc
	return sc.Object(func(k []byte) (err error) {
		switch string(k) {
		case "type":
			p.Type, err = sc.String()
		case "role":
			p.Role, err = sc.String()
		case "content":
			p.Text, err = codexContentText(sc)
		case "summary":
			p.Summary, err = appendTexts(sc, p.Summary[:0])
		case "name":
			p.Name, err = sc.String()
		case "arguments":
			if sc.Kind() == '{' { // as some servers send them
				var raw []byte
				raw, err = sc.Raw()
				p.Arguments = string(raw)
				break
			}
			p.Arguments, err = sc.String()
		case "input":
			p.Input, err = sc.String()
		case "call_id":
			p.CallID, err = sc.String()
		case "id":
			p.ID, err = sc.String()
		case "output":
			p.Output, p.Failed, err = codexOutput(sc)
		case "action":
			p.Action = nil
			if sc.Kind() != '{' {
				return sc.Skip()
			}
			a := &codexAction{}
			p.Action = a
			err = sc.Object(func(k []byte) (err error) {
				switch string(k) {
				case "command":
					a.Command = a.Command[:0]
					err = sc.List(func() error {
						s, err := sc.String()
						a.Command = append(a.Command, s)
						return err
					})
				case "working_directory":
					a.WorkingDir, err = sc.String()
				default:
					err = sc.Skip()
				}
				return err
			})
		case "cwd":
			p.Cwd, err = sc.String()
		case "model":
			p.Model, err = sc.String()
		case "message":
			p.Message, err = sc.String()
		case "info":
			p.Usage = nil
			if sc.Kind() != '{' {
				return sc.Skip()
			}
			p.Usage = &codexUsage{}
			err = sc.Object(func(k []byte) error {
				if string(k) != "last_token_usage" {
					return sc.Skip()
				}
				u := p.Usage
				*u = codexUsage{}
				return sc.Object(func(k []byte) (err error) {
					switch string(k) {
					case "input_tokens":
						u.Input, err = sc.Int()
					case "output_tokens":
						u.Output, err = sc.Int()
					case "total_tokens":
						u.Total, err = sc.Int()
					default:
						err = sc.Skip()
					}
					return err
				})
			})
		default:
			err = sc.Skip()
		}
		return err
	})
}

// codexContextTag matches the user messages codex writes itself (the
// environment, AGENTS.md instructions, an aborted turn's note): one tagged
// block.
var codexContextTag = regexp.MustCompile(`(?s)^\s*<([a-z_]+)>.*</([a-z_]+)>\s*$`)

// codexOwnContext: text is one of codex's own tagged blocks (a prompt
// that does not start with "<" is not: the regexp is not run on it).
func codexOwnContext(text string) bool {
	if !strings.HasPrefix(strings.TrimSpace(text), "<") {
		return false
	}
	m := codexContextTag.FindStringSubmatch(text)
	return m != nil && m[1] == m[2]
}

// codexExitCode finds exec_command's exit code in its output text.
var codexExitCode = regexp.MustCompile(`(?m)^Process exited with code (-?\d+)$`)

func codexResponseItem(b *builder, it *codexPayload) {
	switch it.Type {
	case "message":
		text := it.Text
		switch it.Role {
		case "user":
			if codexOwnContext(text) {
				return // codex's own context
			}
			if strings.TrimSpace(text) != "" {
				b.prompt(text)
			}
		case "assistant":
			b.assistant("", text, nil)
		}
		// developer and system messages are codex's instructions
	case "reasoning":
		parts := it.Summary
		if len(parts) == 0 {
			parts = []string{it.Text}
		}
		b.assistant(strings.TrimSpace(strings.Join(parts, "\n\n")), "", nil)
	case "function_call":
		b.assistant("", "", []message.ToolCall{translateCall(it.CallID, it.Name, it.Arguments)})
	case "custom_tool_call":
		var args argsWriter
		args.str("input", it.Input)
		b.assistant("", "", []message.ToolCall{translateCall(it.CallID, it.Name, args.done())})
	case "local_shell_call":
		if it.Action == nil {
			b.s.Unknown["response_item/local_shell_call without action"]++
			return
		}
		var args argsWriter
		args.strs("command", it.Action.Command)
		args.str("workdir", it.Action.WorkingDir)
		id := it.CallID
		if id == "" {
			id = it.ID
		}
		b.assistant("", "", []message.ToolCall{translateCall(id, "local_shell", args.done())})
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		b.result(it.CallID, it.Output, it.Failed)
	default:
		b.s.Unknown["response_item/"+it.Type]++
	}
}

// codexOutput reads a tool output: its text and whether the call failed.
// It is a string, or {content, success} (older codex: content the JSON of
// {output, metadata: {exit_code}}); any other value is its JSON text.
func codexOutput(sc *message.Scanner) (string, bool, error) {
	var s string
	failed := false
	switch sc.Kind() {
	case '"', 'n':
		var err error
		if s, err = sc.String(); err != nil {
			return "", false, err
		}
	case '{':
		err := sc.Object(func(k []byte) (err error) {
			switch string(k) {
			case "content":
				s, err = codexContentText(sc)
			case "success":
				failed = sc.Kind() == 'f'
				err = sc.Skip()
			default:
				err = sc.Skip()
			}
			return err
		})
		if err != nil {
			return "", false, err
		}
	default:
		raw, err := sc.Raw()
		return string(raw), false, err
	}
	if out, code, ok := codexOldOutput(s); ok {
		return out, failed || code != 0, nil
	}
	if strings.Contains(s, "Process exited with code ") {
		if m := codexExitCode.FindStringSubmatch(s); m != nil {
			if code, err := strconv.Atoi(m[1]); err == nil && code != 0 {
				failed = true
			}
		}
	}
	return s, failed, nil
}

// codexOldOutput reads an older codex's output text, the JSON of
// {output, metadata: {exit_code}}.
func codexOldOutput(s string) (out string, code int, ok bool) {
	if !strings.HasPrefix(s, "{") {
		return "", 0, false
	}
	var sc message.Scanner
	sc.Reset([]byte(s))
	err := sc.Object(func(k []byte) (err error) {
		switch string(k) {
		case "output":
			out, err = sc.String()
		case "metadata":
			ok = false
			err = sc.Object(func(k []byte) (err error) {
				if string(k) != "exit_code" {
					return sc.Skip()
				}
				var f float64
				f, ok, err = sc.Number()
				code = int(f)
				return err
			})
		default:
			err = sc.Skip()
		}
		return err
	})
	if err != nil || sc.End() != nil {
		return "", 0, false
	}
	return out, code, ok
}

// codexContentText reads a content: a string, or a list whose parts'
// texts (input_text, output_text, text, reasoning_text) are joined.
func codexContentText(sc *message.Scanner) (string, error) {
	if sc.Kind() != '[' {
		return sc.String()
	}
	texts, err := appendTexts(sc, nil)
	if len(texts) == 1 {
		return texts[0], err
	}
	return strings.Join(texts, "\n"), err
}

// appendTexts reads a list of parts, appending the text of each part that
// has one.
func appendTexts(sc *message.Scanner, texts []string) ([]string, error) {
	err := sc.List(func() error {
		var t string
		err := sc.Object(func(k []byte) (err error) {
			if string(k) != "text" {
				return sc.Skip()
			}
			t, err = sc.String()
			return err
		})
		if t != "" {
			texts = append(texts, t)
		}
		return err
	})
	return texts, err
}
