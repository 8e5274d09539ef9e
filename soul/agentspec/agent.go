package agentspec

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-agent/rewind/soul/instructions"
	"github.com/rewind-agent/rewind/soul/tools"
)

// Agent is a resolved agent file: its name, prompt template, tools and
// sub-agent types. It is immutable once loaded and safe to share.
type Agent struct {
	// Ref says where to load it again (a session records it): a built-in's
	// name, or the file's absolute path.
	Ref string
	// Name is the file's agent.name; for a file that leaves it empty, the
	// built-in's or sub-agent type's name, else the file's base name.
	Name string
	// File is where it was read from: a path, or "built-in default/agent.yaml".
	File string
	// Description is the parent file's description of a sub-agent type
	// ("" for a top-level agent).
	Description string
	WhenToUse   string
	// Model is the file's model alias ("" for the configured model).
	Model string
	// Tools are rewind's names of the tools offered, in file order (MCP
	// tools are decided by AllowsMCP).
	Tools []string
	// Unavailable are the kimi-cli tools the file names that rewind does
	// not have (AskUserQuestion, TaskList, …): the file loads without them,
	// and the front end names them in one warning line.
	Unavailable []string
	// Subagents are the sub-agent types the file defines, in file order.
	Subagents []Subagent

	children    map[string]*Agent
	prompt      *template
	promptFile  string
	args        map[string]string
	mcpAll      bool
	mcpPatterns []string
	mcpExcluded []string
}

// Subagent is one entry of a file's subagents: section.
type Subagent struct {
	Name        string
	Description string
	loc         loc
}

// Subagent is the resolved agent of the sub-agent type name (its prompt,
// tools, description), or false when the file defines no such type.
func (a *Agent) Subagent(name string) (*Agent, bool) {
	c, ok := a.children[name]
	return c, ok
}

// SubagentNames are the sub-agent type names, in file order: the enum of
// the Agent tool's subagent_type.
func (a *Agent) SubagentNames() []string {
	names := make([]string, len(a.Subagents))
	for i, s := range a.Subagents {
		names[i] = s.Name
	}
	return names
}

// Offers reports whether the agent offers the (built-in or MCP) tool name.
func (a *Agent) Offers(name string) bool {
	if strings.HasPrefix(name, "mcp__") {
		return a.AllowsMCP(name)
	}
	for _, t := range a.Tools {
		if t == name {
			return true
		}
	}
	return false
}

// AllowsMCP reports whether the MCP tool name (mcp__server__tool) is
// offered: every one when the file lists tools without naming an MCP tool
// (kimi-cli's root agent gets all its MCP servers' tools), else those the
// file names, where * matches any run of characters. An allowed_tools list
// is exact: without MCP names it offers none (kimi-cli's sub-agents).
func (a *Agent) AllowsMCP(name string) bool {
	for _, p := range a.mcpExcluded {
		if ok, _ := path.Match(p, name); ok || p == name {
			return false
		}
	}
	if a.mcpAll {
		return true
	}
	for _, p := range a.mcpPatterns {
		if ok, _ := path.Match(p, name); ok || p == name {
			return true
		}
	}
	return false
}

// ToolSet is all narrowed to the agent's tools: exactly the ones the file
// names that all has (SearchWeb, say, only with a search provider), and
// the MCP tools AllowsMCP lets through as they come and go.
func (a *Agent) ToolSet(all *tools.Set) *tools.Set {
	return all.Only(a.Offers)
}

// Warning is the one line naming the kimi-cli tools the file lists that
// rewind does not have, "" when there are none.
func (a *Agent) Warning() string {
	if len(a.Unavailable) == 0 {
		return ""
	}
	them := "them"
	if len(a.Unavailable) == 1 {
		them = "it"
	}
	return fmt.Sprintf("agent %s: rewind has no %s; it runs without %s", a.Name, strings.Join(a.Unavailable, ", "), them)
}

// Label names the agent for /status, the welcome screen and rewind
// agents: "default (built-in)", "reviewer (.rewind/agent.yaml)" (a file
// under workDir relative to it).
func (a *Agent) Label(workDir string) string {
	if !filepath.IsAbs(a.Ref) {
		return a.Name + " (built-in)"
	}
	where := a.Ref
	if rel, err := filepath.Rel(workDir, a.Ref); err == nil && workDir != "" && !strings.HasPrefix(rel, "..") {
		where = rel
	}
	return a.Name + " (" + where + ")"
}

// Vars are the values of the prompt's built-in variables.
type Vars struct {
	// Now is ${KIMI_NOW} (zero: time.Now()).
	Now time.Time
	// WorkDir is ${KIMI_WORK_DIR} (and rewind's ${WORK_DIR}); its listing
	// is ${KIMI_WORK_DIR_LS}.
	WorkDir string
	// Instructions are the AGENTS.md files: ${KIMI_AGENTS_MD}, or, in a
	// prompt that does not use it, the "Project instructions" section
	// rewind appends to every prompt.
	Instructions []instructions.File
}

// builtinVarNames are the variables every prompt may use: kimi-cli 1.49's,
// and rewind's ${WORK_DIR} and ${OS} (its own prompt's).
var builtinVarNames = []string{"KIMI_NOW", "KIMI_WORK_DIR", "KIMI_WORK_DIR_LS", "KIMI_AGENTS_MD", "KIMI_OS", "KIMI_SHELL", "KIMI_SKILLS", "KIMI_ADDITIONAL_DIRS_INFO", "WORK_DIR", "OS"}

func isBuiltinVar(name string) bool {
	for _, n := range builtinVarNames {
		if n == name {
			return true
		}
	}
	return false
}

// SystemPrompt renders the agent's prompt. It cannot fail: every variable
// the template reads was checked when the file was loaded.
func (a *Agent) SystemPrompt(v Vars) string {
	now := v.Now
	if now.IsZero() {
		now = time.Now()
	}
	vars := map[string]string{
		"KIMI_NOW":                  now.Format(time.RFC3339),
		"KIMI_WORK_DIR":             v.WorkDir,
		"WORK_DIR":                  v.WorkDir,
		"KIMI_OS":                   kimiOS(),
		"OS":                        runtime.GOOS + "/" + runtime.GOARCH,
		"KIMI_SHELL":                "bash (`/bin/bash`)",
		"KIMI_SKILLS":               "No skills found.",
		"KIMI_ADDITIONAL_DIRS_INFO": "",
	}
	if _, ok := a.prompt.uses["KIMI_WORK_DIR_LS"]; ok {
		vars["KIMI_WORK_DIR_LS"] = listWorkDir(v.WorkDir)
	}
	_, inline := a.prompt.uses["KIMI_AGENTS_MD"]
	if inline {
		parts := make([]string, 0, len(v.Instructions))
		for _, f := range v.Instructions {
			parts = append(parts, strings.TrimSpace(f.Text))
		}
		vars["KIMI_AGENTS_MD"] = strings.Join(parts, "\n\n")
	}
	for k, val := range a.args {
		vars[k] = val
	}
	out := a.prompt.render(vars)
	if !inline {
		out += instructions.Format(v.Instructions)
	}
	return out
}

func kimiOS() string {
	switch runtime.GOOS {
	case "darwin":
		return "macOS"
	case "windows":
		return "Windows"
	case "linux":
		return "Linux"
	}
	return runtime.GOOS
}

// listWorkDir is ${KIMI_WORK_DIR_LS}: the work dir's entries and those of
// its subdirectories, two levels as kimi-cli shows them, each capped.
func listWorkDir(dir string) string {
	const perDir = 30
	var b strings.Builder
	var walk func(d, indent string, depth int)
	walk = func(d, indent string, depth int) {
		entries, err := os.ReadDir(d)
		if err != nil {
			return
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for i, e := range entries {
			if i == perDir {
				b.WriteString(indent + "... and " + strconv.Itoa(len(entries)-perDir) + " more\n")
				return
			}
			name := e.Name()
			if e.IsDir() {
				b.WriteString(indent + name + "/\n")
				if depth < 2 && name != ".git" {
					walk(d+"/"+name, indent+"  ", depth+1)
				}
				continue
			}
			b.WriteString(indent + name + "\n")
		}
	}
	walk(dir, "", 1)
	return strings.TrimRight(b.String(), "\n")
}
