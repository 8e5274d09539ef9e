package tools

import "encoding/json"

// Labeler is a tool that labels its own calls (every Typed tool does).
type Labeler interface {
	// Label is a call's one-line label: its key argument, "" for none.
	Label(args json.RawMessage) string
}

// builtinLabelers are the tools rewind ships (SearchWeb and ReadMediaFile
// too, offered only with a provider and image_in), by name, for labelling
// calls where no tool set is at hand (a stored or imported session).
var builtinLabelers = func() map[string]Labeler {
	m := map[string]Labeler{}
	for _, t := range append(Default().All(), &SearchWeb{}, &ReadMediaFile{}) {
		if l, ok := t.(Labeler); ok {
			m[t.Name()] = l
		}
	}
	return m
}()

// RegisterLabeler adds a built-in tool defined outside this package (the
// soul's Agent tool and its alias Task) to the tools CallLabel knows by
// name. Call it from an init function: CallLabel reads without a lock.
func RegisterLabeler(name string, l Labeler) { builtinLabelers[name] = l }

// fallbackLabelKeys are the arguments that say what a call of a tool
// rewind does not know does (an MCP tool, a tool of an imported session),
// in order.
var fallbackLabelKeys = []string{"path", "file_path", "command", "pattern", "url", "query", "thought", "message", "directory", "description", "name"}

// CallLabel is the one-line label of a call of the tool name with args:
// what the conversation, the timeline, approvals and the CLI show after the
// tool's name. A built-in tool labels its own calls; any other tool's label
// is its first argument named like a key argument (path, command, …), and
// arguments that are not a JSON object label themselves. The text may hold
// newlines: each front end cuts it to its width.
func CallLabel(name, args string) string {
	if l, ok := builtinLabelers[name]; ok && isObject(json.RawMessage(args)) {
		return l.Label(json.RawMessage(args))
	}
	var obj map[string]any
	if json.Unmarshal([]byte(args), &obj) != nil || obj == nil {
		return args
	}
	for _, k := range fallbackLabelKeys {
		if s, ok := obj[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}
