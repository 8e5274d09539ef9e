package views

import (
	"encoding/json"
	"fmt"
	"strings"
)

// keyArgFields are the argument names shown on a tool call's one-liner,
// in order of preference (kimi-cli tool argument names).
var keyArgFields = []string{"command", "pattern", "path", "directory", "thought", "message", "checkpoint_id", "todos"}

// ToolKeyArg picks the argument worth showing on a tool call's one-liner
// from its JSON arguments: the command for Shell, the path for file tools,
// the pattern for Glob/Grep, and so on; else the first string argument;
// else the raw text. Arguments that are not valid JSON (a call still
// streaming, or a malformed one) are shown as they are, on one line.
func ToolKeyArg(argsJSON string) string {
	var m map[string]any
	if err := json.Unmarshal([]byte(argsJSON), &m); err != nil {
		return SanitizeLine(strings.TrimSpace(argsJSON))
	}
	for _, k := range keyArgFields {
		if v, ok := m[k]; ok {
			return SanitizeLine(argString(k, v))
		}
	}
	// deterministic: the alphabetically first string argument
	var best string
	for k, v := range m {
		if _, ok := v.(string); ok && (best == "" || k < best) {
			best = k
		}
	}
	if best != "" {
		return SanitizeLine(m[best].(string))
	}
	return SanitizeLine(strings.TrimSpace(argsJSON))
}

func argString(k string, v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		if k == "checkpoint_id" {
			return fmt.Sprintf("checkpoint %d", int(x))
		}
		return fmt.Sprint(x)
	case []any:
		return fmt.Sprintf("%d items", len(x))
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// KeyHints renders visible bindings as a one-line hint ("j/↓ next · …"),
// for a status or footer line generated from the same registry as help.
func KeyHints(bindings []KeyBinding, width int) string {
	var parts []string
	used := 0
	for _, b := range Keymap(bindings).Visible() {
		p := b.Label() + " " + b.Description
		w := strWidth(p) + 3
		if width > 0 && used+w > width {
			break
		}
		parts = append(parts, p)
		used += w
	}
	return strings.Join(parts, " · ")
}
