package peers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// sourceNameKey is the field of a translated tool call that keeps the
// name the source agent gave the tool (its arguments stay in the
// result's history as rewind's).
const sourceNameKey = "source_name"

// translateCall is a source agent's tool call in rewind's shape: the tools
// rewind has (Shell, ReadFile, WriteFile, StrReplaceFile, Glob, Grep) under
// their names and arguments, so a continued session's model sees calls it
// can make again; any other call as it was, under its own name.
func translateCall(id, name, args string) message.ToolCall {
	tc := message.ToolCall{ID: id, Type: "function", Name: name, Args: args}
	var in map[string]any
	if json.Unmarshal([]byte(args), &in) != nil {
		in = nil
	}
	str := func(k string) (string, bool) {
		s, ok := in[k].(string)
		return s, ok
	}
	num := func(k string) (float64, bool) {
		f, ok := in[k].(float64)
		return f, ok
	}
	out := map[string]any{}
	to := ""
	switch name {
	case "Bash", "exec_command", "shell", "local_shell", "container.exec", "shell_command":
		cmd, ok := str("command")
		if c, ok2 := str("cmd"); ok2 {
			cmd, ok = c, true
		}
		if argv, isList := in["command"].([]any); isList {
			cmd, ok = joinArgv(argv), true
		}
		if !ok {
			break
		}
		if wd, ok := str("workdir"); ok && wd != "" {
			cmd = "cd " + shellQuote(wd) + " && " + cmd
		}
		to, out["command"] = "Shell", cmd
		if ms, ok := num("timeout"); ok && name == "Bash" { // Claude Code's is in ms
			out["timeout"] = int((ms + 999) / 1000)
		}
	case "Read":
		p, ok := str("file_path")
		if !ok {
			break
		}
		to, out["path"] = "ReadFile", p
		if n, ok := num("offset"); ok {
			out["line_offset"] = int(n)
		}
		if n, ok := num("limit"); ok {
			out["n_lines"] = int(n)
		}
	case "Write":
		p, ok := str("file_path")
		c, ok2 := str("content")
		if !ok || !ok2 {
			break
		}
		to, out["path"], out["content"] = "WriteFile", p, c
	case "Edit":
		p, ok := str("file_path")
		o, ok2 := str("old_string")
		n, ok3 := str("new_string")
		if !ok || !ok2 || !ok3 {
			break
		}
		to, out["path"], out["old"], out["new"] = "StrReplaceFile", p, o, n
		if all, ok := in["replace_all"].(bool); ok && all {
			out["replace_all"] = true
		}
	case "Glob":
		p, ok := str("pattern")
		if !ok {
			break
		}
		to, out["pattern"] = "Glob", p
		if d, ok := str("path"); ok {
			out["directory"] = d
		}
	case "Grep":
		p, ok := str("pattern")
		if !ok {
			break
		}
		to, out["pattern"] = "Grep", p
		if d, ok := str("path"); ok {
			out["path"] = d
		}
		if g, ok := str("glob"); ok {
			out["glob"] = g
		}
		if i, ok := in["-i"].(bool); ok && i {
			out["ignore_case"] = true
		}
	}
	if to == "" {
		return tc
	}
	b, err := marshalArgs(out)
	if err != nil {
		return tc
	}
	src, _ := json.Marshal(name)
	tc.Name, tc.Args = to, string(b)
	tc.Extra = map[string]json.RawMessage{sourceNameKey: src}
	return tc
}

// marshalArgs encodes a translated call's arguments as a model writes
// them: without json.Marshal's HTML escaping, so a command's > and &&
// read as such where the arguments are printed (`rewind show`).
func marshalArgs(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// joinArgv is an argv as one shell command: codex's ["bash", "-lc", CMD]
// is CMD.
func joinArgv(argv []any) string {
	ss := make([]string, 0, len(argv))
	for _, a := range argv {
		s, _ := a.(string)
		ss = append(ss, s)
	}
	if len(ss) == 3 && (ss[1] == "-lc" || ss[1] == "-c") && strings.HasSuffix(ss[0], "sh") {
		return ss[2]
	}
	for i, s := range ss {
		ss[i] = shellQuote(s)
	}
	return strings.Join(ss, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ContinueNotice is the one notice a front end shows when a session
// imported from origin is first continued with rewind's model ("" for
// other sessions).
func ContinueNotice(origin string) string {
	var agent, tools string
	switch origin {
	case store.OriginCodex:
		agent, tools = "codex", "exec_command, shell → Shell"
	case store.OriginClaude:
		agent, tools = "Claude Code", "Bash, Read, Write, Edit → Shell, ReadFile, WriteFile, StrReplaceFile"
	default:
		return ""
	}
	return fmt.Sprintf("this session came from %s: rewind goes on with its own model and tools (%s; other tools stay in the history, not offered)", agent, tools)
}
