package peers

import (
	"encoding/json"
	"fmt"
	"strconv"
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
	var in callArgs
	if !in.read(args) {
		return tc
	}
	// Each tool's arguments are written with their keys sorted, as
	// encoding/json writes a map (what earlier imports stored).
	var out argsWriter
	to := ""
	switch name {
	case "Bash", "exec_command", "shell", "local_shell", "container.exec", "shell_command":
		cmd, ok := in.str(argCommand)
		if in.has&(1<<argCmd) != 0 {
			cmd, ok = in.s[argCmd], true
		}
		if in.argv != nil {
			cmd, ok = joinArgv(in.argv), true
		}
		if !ok {
			break
		}
		if wd, ok := in.str(argWorkdir); ok && wd != "" {
			cmd = "cd " + shellQuote(wd) + " && " + cmd
		}
		to = "Shell"
		out.str("command", cmd)
		if ms, ok := in.num(argTimeout); ok && name == "Bash" { // Claude Code's is in ms
			out.int("timeout", int((ms+999)/1000))
		}
	case "Read":
		p, ok := in.str(argFilePath)
		if !ok {
			break
		}
		to = "ReadFile"
		if n, ok := in.num(argOffset); ok {
			out.int("line_offset", int(n))
		}
		if n, ok := in.num(argLimit); ok {
			out.int("n_lines", int(n))
		}
		out.str("path", p)
	case "Write":
		p, ok := in.str(argFilePath)
		c, ok2 := in.str(argContent)
		if !ok || !ok2 {
			break
		}
		to = "WriteFile"
		out.str("content", c)
		out.str("path", p)
	case "Edit":
		p, ok := in.str(argFilePath)
		o, ok2 := in.str(argOldString)
		n, ok3 := in.str(argNewString)
		if !ok || !ok2 || !ok3 {
			break
		}
		to = "StrReplaceFile"
		out.str("new", n)
		out.str("old", o)
		out.str("path", p)
		if in.replaceAll {
			out.bool("replace_all")
		}
	case "Glob":
		p, ok := in.str(argPattern)
		if !ok {
			break
		}
		to = "Glob"
		if d, ok := in.str(argPath); ok {
			out.str("directory", d)
		}
		out.str("pattern", p)
	case "Grep":
		p, ok := in.str(argPattern)
		if !ok {
			break
		}
		to = "Grep"
		if g, ok := in.str(argGlob); ok {
			out.str("glob", g)
		}
		if in.ignoreCase {
			out.bool("ignore_case")
		}
		if d, ok := in.str(argPath); ok {
			out.str("path", d)
		}
		out.str("pattern", p)
	}
	if to == "" {
		return tc
	}
	tc.Name, tc.Args = to, out.done()
	tc.Extra = map[string]json.RawMessage{sourceNameKey: message.AppendString(nil, name, true)}
	return tc
}

// The string arguments translateCall reads, by index in callArgs.s.
const (
	argCommand = iota
	argCmd
	argWorkdir
	argFilePath
	argContent
	argOldString
	argNewString
	argPattern
	argPath
	argGlob
	argTimeout // numbers
	argOffset
	argLimit
	nArgs
)

var argKeys = map[string]int{
	"command": argCommand, "cmd": argCmd, "workdir": argWorkdir, "file_path": argFilePath, "content": argContent,
	"old_string": argOldString, "new_string": argNewString, "pattern": argPattern, "path": argPath, "glob": argGlob,
	"timeout": argTimeout, "offset": argOffset, "limit": argLimit,
}

// callArgs are the arguments of a source's tool call that translateCall
// reads: each key's last value, as a decoded object has it; has marks the
// keys whose value is of the kind wanted (a string, or for argTimeout on a
// number).
type callArgs struct {
	has        uint
	s          [nArgs]string
	n          [nArgs]float64
	argv       []string // "command" as a list
	replaceAll bool     // Edit's replace_all
	ignoreCase bool     // Grep's -i
}

// read decodes args, a JSON object; false if it is not one.
func (a *callArgs) read(args string) bool {
	var sc message.Scanner
	sc.Reset([]byte(args))
	if sc.Kind() != '{' {
		return false
	}
	err := sc.Object(func(k []byte) (err error) {
		key := string(k)
		switch key {
		case "replace_all":
			a.replaceAll, err = sc.Bool()
			return err
		case "-i":
			a.ignoreCase, err = sc.Bool()
			return err
		}
		i, ok := argKeys[key]
		if !ok {
			return sc.Skip()
		}
		a.has &^= 1 << i
		if i == argCommand {
			a.argv = nil
			if sc.Kind() == '[' {
				a.argv = []string{}
				return sc.List(func() error {
					s, err := sc.String()
					a.argv = append(a.argv, s)
					return err
				})
			}
		}
		var ok2 bool
		if i >= argTimeout {
			a.n[i], ok2, err = sc.Number()
		} else {
			ok2 = sc.Kind() == '"'
			a.s[i], err = sc.String()
		}
		if ok2 {
			a.has |= 1 << i
		}
		return err
	})
	return err == nil && sc.End() == nil
}

func (a *callArgs) str(i int) (string, bool) { return a.s[i], a.has&(1<<i) != 0 }

func (a *callArgs) num(i int) (float64, bool) { return a.n[i], a.has&(1<<i) != 0 }

// argsWriter writes a translated call's arguments as a model writes them:
// without json.Marshal's HTML escaping, so a command's > and && read as
// such where the arguments are printed (`rewind show`). Keys are written
// in the order given.
type argsWriter struct{ b []byte }

func (w *argsWriter) key(k string) {
	if len(w.b) == 0 {
		w.b = append(w.b, '{')
	} else {
		w.b = append(w.b, ',')
	}
	w.b = message.AppendString(w.b, k, false)
	w.b = append(w.b, ':')
}

func (w *argsWriter) str(k, v string) {
	w.key(k)
	w.b = message.AppendString(w.b, v, false)
}

func (w *argsWriter) strs(k string, vs []string) {
	w.key(k)
	w.b = append(w.b, '[')
	for i, v := range vs {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = message.AppendString(w.b, v, false)
	}
	w.b = append(w.b, ']')
}

func (w *argsWriter) int(k string, n int) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, int64(n), 10)
}

func (w *argsWriter) bool(k string) {
	w.key(k)
	w.b = append(w.b, "true"...)
}

func (w *argsWriter) done() string {
	if len(w.b) == 0 {
		return "{}"
	}
	return string(append(w.b, '}'))
}

// joinArgv is an argv as one shell command: codex's ["bash", "-lc", CMD]
// is CMD.
func joinArgv(argv []string) string {
	ss := append([]string(nil), argv...)
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
