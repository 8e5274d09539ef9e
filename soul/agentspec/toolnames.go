package agentspec

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// The tools rewind offers, by the name the model sees. An agent file may
// name them bare (ReadFile) or as kimi-cli writes them
// ("kimi_cli.tools.file:ReadFile"); kimi's Bash is Shell.
var rewindTools = []string{
	"Agent", "Shell", "ReadFile", "ReadMediaFile", "WriteFile", "StrReplaceFile", "Glob", "Grep",
	"ListDir", "Think", "SetTodoList", "SendDMail", "FetchURL", "SearchWeb",
	"EnterPlanMode", "ExitPlanMode",
}

// aliases map another name of a tool to rewind's.
var aliases = map[string]string{
	"Bash": "Shell",
	"Task": "Agent", // kimi-cli before 1.49 (kimi_cli.tools.multiagent:Task)
}

// kimiOnlyTools are kimi-cli 1.49's tools rewind does not have: a file
// naming them loads, and they are named in one warning.
var kimiOnlyTools = map[string]bool{
	"AskUserQuestion": true,
	"TaskList":        true,
	"TaskOutput":      true,
	"TaskStop":        true,
	"CreateSubagent":  true,
}

// ReadOnlyTools are the tools plan mode lets run: they neither write nor
// execute. (The explore and plan sub-agents are allowed too; that is the
// Agent tool's own check.)
var ReadOnlyTools = []string{"ReadFile", "ReadMediaFile", "Glob", "Grep", "ListDir", "FetchURL", "SearchWeb", "Think", "SetTodoList", "EnterPlanMode", "ExitPlanMode"}

// ToolNames is every tool name an agent file may use (besides
// mcp__server__tool), sorted.
func ToolNames() []string {
	names := append([]string(nil), rewindTools...)
	sort.Strings(names)
	return names
}

var (
	kimiPathRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*:([A-Za-z_][A-Za-z0-9_]*)$`)
	mcpNameRe  = regexp.MustCompile(`^mcp__[^_\s].*__\S+$`)
)

// toolKind is what a name in an agent file turned out to be.
type toolKind int

const (
	toolRewind  toolKind = iota // one of rewind's tools
	toolMCP                     // mcp__server__tool (a * matches any run of characters)
	toolMissing                 // a kimi-cli tool rewind does not have
)

// resolveTool maps a tool name as written in a file to rewind's name.
func resolveTool(written string) (string, toolKind, error) {
	name := strings.TrimSpace(written)
	if strings.HasPrefix(name, "mcp__") {
		if !mcpNameRe.MatchString(name) {
			return "", 0, fmt.Errorf("%q is not an MCP tool name: write mcp__SERVER__TOOL", written)
		}
		return name, toolMCP, nil
	}
	if m := kimiPathRe.FindStringSubmatch(name); m != nil {
		if !strings.HasPrefix(name, "kimi_cli.") {
			return "", 0, fmt.Errorf("unknown tool %q: rewind cannot load Python tools; remove it, or name one of %s", written, strings.Join(ToolNames(), ", "))
		}
		name = m[1]
	}
	if a, ok := aliases[name]; ok {
		name = a
	}
	for _, t := range rewindTools {
		if t == name {
			return name, toolRewind, nil
		}
	}
	if kimiOnlyTools[name] {
		return name, toolMissing, nil
	}
	return "", 0, fmt.Errorf("unknown tool %q: name one of %s, or an MCP tool as mcp__SERVER__TOOL", written, strings.Join(ToolNames(), ", "))
}
