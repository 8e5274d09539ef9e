package agentspec

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/rewind-agent/rewind/internal/regfile"
)

//go:embed agents
var builtinFS embed.FS

// builtins are the embedded agents, by the name --agent and extend take.
var builtins = map[string]string{
	"default": "agents/default/agent.yaml",
	"okabe":   "agents/okabe/agent.yaml",
	"coder":   "agents/default/coder.yaml",
	"explore": "agents/default/explore.yaml",
	"plan":    "agents/default/plan.yaml",
}

// Version is the agent file format version rewind reads (kimi-cli's).
const Version = "1"

// Error is a bad agent file: the file, the line (0: the file as a whole)
// and one sentence with the fix.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// loc is where a file is: in the embedded built-ins or on disk.
type loc struct {
	builtin bool
	path    string // embed path, or absolute OS path
	// root, for a project's file, is the directory every file it reads
	// must be in (symlinks resolved).
	root string
}

func (l loc) String() string {
	if l.builtin {
		return "built-in " + strings.TrimPrefix(l.path, "agents/")
	}
	return l.path
}

func (l loc) read() ([]byte, error) {
	if l.builtin {
		return builtinFS.ReadFile(l.path)
	}
	if st, err := os.Stat(l.path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory", l.path)
	}
	if l.root != "" {
		real, err := filepath.EvalSymlinks(l.path)
		if err != nil {
			return nil, err
		}
		root, err := filepath.EvalSymlinks(l.root)
		if err != nil {
			return nil, err
		}
		if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, errOutsideProject
		}
	}
	return regfile.ReadFile(l.path)
}

// rel is a path written in the file at l, relative to its directory.
func (l loc) rel(p string) loc {
	if l.builtin {
		return loc{builtin: true, path: path.Join(path.Dir(l.path), p)}
	}
	if filepath.IsAbs(p) {
		return loc{path: filepath.Clean(p), root: l.root}
	}
	return loc{path: filepath.Join(filepath.Dir(l.path), p), root: l.root}
}

// toolRef is a tool name as written, and where.
type toolRef struct {
	written string
	file    loc
	line    int
}

// toolList is a tools/allowed_tools/exclude_tools field: absent (inherit),
// null, or a list.
type toolList struct {
	set  bool
	null bool
	refs []toolRef
}

type subagentRef struct {
	name, description string
	file              loc
	line              int
}

// spec is a file's agent section merged with what it extends (kimi-cli's
// AgentSpec with its Inherit markers: set says the field was given).
type spec struct {
	name         string
	hasName      bool
	prompt       loc
	promptLine   int
	promptFrom   loc // the file that named the prompt
	hasPrompt    bool
	args         map[string]string
	argsFrom     loc // the last file that gave args: where to add one
	model        string
	whenToUse    string
	hasWhenToUse bool
	tools        toolList
	allowed      toolList
	exclude      toolList
	subagents    []subagentRef
	subagentsSet bool
}

// errOutsideProject refuses a project agent file's path that leaves the
// project: a cloned repository's file must not put, say, ~/.ssh/id_rsa into
// the prompt sent to the model.
var errOutsideProject = errors.New("outside the project: a project's agent file reads only files in the project")

// LoadProjectFile is LoadFile for the work dir's .rewind/agent.yaml: every
// file it reads (prompt, extended files, sub-agents) must be inside root,
// the work dir. It may still extend a built-in by name.
func LoadProjectFile(p, root string) (*Agent, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, fmt.Errorf("agent file %s: %w", p, err)
	}
	return load(loc{path: abs, root: root}, "")
}

// LoadFile reads the agent file at path (--agent-file), with the files it
// extends, its prompt and its sub-agents. A bad file is an *Error.
func LoadFile(p string) (*Agent, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, fmt.Errorf("agent file %s: %w", p, err)
	}
	return load(loc{path: abs}, "")
}

// Builtin is the embedded agent called name (default, okabe, coder,
// explore, plan).
func Builtin(name string) (*Agent, error) {
	p, ok := builtins[name]
	if !ok {
		return nil, fmt.Errorf("no built-in agent %q: use one of %s (rewind agents lists them), or --agent-file PATH", name, strings.Join(BuiltinNames(), ", "))
	}
	v, _ := builtinLoads.LoadOrStore(name, &builtinLoad{})
	l := v.(*builtinLoad)
	l.once.Do(func() {
		l.agent, l.err = load(loc{builtin: true, path: p}, name)
		if l.agent != nil {
			l.agent.Ref = name
		}
	})
	if l.err != nil {
		return nil, l.err
	}
	return l.agent.clone(), nil
}

// builtinLoads holds each built-in agent loaded once: its files are
// embedded, so a second load is the same agent, and a load parses YAML
// and the prompt template (2 ms; every Soul and sub-agent asks).
var builtinLoads sync.Map // name -> *builtinLoad

type builtinLoad struct {
	once  sync.Once
	agent *Agent
	err   error
}

// clone is a copy of a that shares nothing a caller could change.
func (a *Agent) clone() *Agent {
	c := *a
	c.Tools = slices.Clone(a.Tools)
	c.Unavailable = slices.Clone(a.Unavailable)
	c.Subagents = slices.Clone(a.Subagents)
	c.children = make(map[string]*Agent, len(a.children))
	for name, child := range a.children {
		c.children[name] = child.clone()
	}
	return &c
}

// Default is the built-in default agent: rewind's own prompt and tools.
func Default() *Agent {
	a, err := Builtin("default")
	if err != nil {
		panic("agentspec: the built-in default agent does not load: " + err.Error())
	}
	return a
}

// BuiltinNames are the names --agent takes: the agents first, then the
// sub-agent types.
func BuiltinNames() []string {
	return []string{"default", "okabe", "coder", "explore", "plan"}
}

// load resolves the file at l into an Agent, and its sub-agents one level
// down. fallbackName names an agent whose file leaves the name empty.
func load(l loc, fallbackName string) (*Agent, error) {
	a, err := resolve(l, fallbackName)
	if err != nil {
		return nil, err
	}
	for _, s := range a.Subagents {
		child, err := resolve(s.loc, s.Name)
		if err != nil {
			return nil, err
		}
		child.Name = s.Name
		child.Description = s.Description
		// A sub-agent starts no sub-agents and has no checkpoints of its
		// parent's to send a D-Mail to, whatever its file lists; nor does
		// its session opened on its own.
		child.Tools = slices.DeleteFunc(child.Tools, func(t string) bool { return t == "Agent" || t == "SendDMail" })
		child.Subagents = nil
		a.children[s.Name] = child
	}
	return a, nil
}

// resolve is kimi-cli's load_agent_spec, plus rewind's checks of tool
// names and of the prompt's variables.
func resolve(l loc, fallbackName string) (*Agent, error) {
	sp, err := readSpec(l, nil)
	if err != nil {
		return nil, err
	}
	if !sp.hasPrompt {
		return nil, &Error{File: l.String(), Msg: "the agent has no system_prompt_path: set one, or extend an agent that has (extend: default)"}
	}
	if !sp.tools.set {
		return nil, &Error{File: l.String(), Msg: "the agent has no tools: list them under tools:, or extend an agent that has (extend: default)"}
	}
	a := &Agent{
		Ref:       l.path,
		Name:      sp.name,
		File:      l.String(),
		Model:     sp.model,
		WhenToUse: strings.TrimSpace(sp.whenToUse),
		args:      sp.args,
		children:  map[string]*Agent{},
	}
	if a.Name == "" {
		a.Name = fallbackName
	}
	if a.Name == "" {
		a.Name = fileAgentName(l.path)
	}
	for _, s := range sp.subagents {
		a.Subagents = append(a.Subagents, Subagent{Name: s.name, Description: s.description, loc: s.file})
	}
	if err := a.resolveTools(sp); err != nil {
		return nil, err
	}
	src, err := sp.prompt.read()
	if err != nil {
		return nil, &Error{File: sp.promptFrom.String(), Line: sp.promptLine, Msg: fmt.Sprintf("system_prompt_path %s cannot be read (%s): create it or correct the path (it is relative to the agent file)", sp.prompt, shortErr(err))}
	}
	// kimi-cli strips the file; rewind keeps it as written, so its own
	// prompt stays byte for byte what it was before agent files.
	t, err := parseTemplate(string(src))
	if err != nil {
		var te *templateError
		if errors.As(err, &te) {
			return nil, &Error{File: sp.prompt.String(), Line: te.line, Msg: te.msg}
		}
		return nil, err
	}
	for name, line := range t.uses {
		if _, ok := sp.args[name]; ok || isBuiltinVar(name) {
			continue
		}
		return nil, &Error{File: sp.prompt.String(), Line: line, Msg: fmt.Sprintf("unknown variable ${%s}: add %s to system_prompt_args in %s, or use one of %s", name, name, sp.argsFrom, strings.Join(builtinVarNames, ", "))}
	}
	a.prompt, a.promptFile = t, sp.prompt.String()
	return a, nil
}

// fileAgentName names an agent whose file leaves the name empty (kimi-cli's
// own default does): its file's base name, or for an agent.yaml its
// directory's (kimi-cli keeps agents as agents/NAME/agent.yaml), "project"
// for a work dir's .rewind/agent.yaml.
func fileAgentName(p string) string {
	name := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
	if name != "agent" {
		return name
	}
	dir := filepath.Base(filepath.Dir(p))
	if strings.HasPrefix(dir, ".") || dir == string(filepath.Separator) {
		return "project"
	}
	return dir
}

// resolveTools applies kimi-cli's rule (allowed_tools, when given,
// replaces tools; exclude_tools then removes) and maps each name to rewind's.
func (a *Agent) resolveTools(sp *spec) error {
	list := sp.tools.refs
	allowlist := sp.allowed.set && !sp.allowed.null
	if allowlist {
		list = sp.allowed.refs
	}
	excluded := map[string]bool{}
	for _, r := range sp.exclude.refs {
		name, _, err := resolveTool(r.written)
		if err != nil {
			return &Error{File: r.file.String(), Line: r.line, Msg: err.Error()}
		}
		excluded[name] = true
	}
	seen := map[string]bool{}
	mcpNamed := false
	for _, r := range list {
		name, kind, err := resolveTool(r.written)
		if err != nil {
			return &Error{File: r.file.String(), Line: r.line, Msg: err.Error()}
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		switch kind {
		case toolMissing:
			if !excluded[name] {
				a.Unavailable = append(a.Unavailable, name)
			}
			continue
		case toolMCP:
			mcpNamed = true
		}
		if excluded[name] {
			continue
		}
		if kind == toolMCP {
			a.mcpPatterns = append(a.mcpPatterns, name)
		} else {
			a.Tools = append(a.Tools, name)
		}
	}
	// An agent that lists its tools (no allowlist) and names no MCP tool
	// gets every MCP tool the configuration starts, as kimi-cli's root
	// agent does; an allowlist is exact.
	a.mcpAll = !allowlist && !mcpNamed
	for name := range excluded {
		if strings.HasPrefix(name, "mcp__") {
			a.mcpExcluded = append(a.mcpExcluded, name)
		}
	}
	return nil
}

// readSpec parses the file at l and merges it over what it extends; chain
// is the files being extended, to find a cycle.
func readSpec(l loc, chain []loc) (*spec, error) {
	for _, c := range chain {
		if c == l {
			names := make([]string, 0, len(chain)+1)
			for _, x := range append(chain, l) {
				names = append(names, x.String())
			}
			return nil, &Error{File: chain[len(chain)-1].String(), Line: 0, Msg: fmt.Sprintf("extend makes a cycle (%s): remove one of the extends", strings.Join(names, " → "))}
		}
	}
	data, err := l.read()
	if err != nil {
		if len(chain) == 0 {
			return nil, &Error{File: l.String(), Msg: fmt.Sprintf("cannot read the agent file (%s): check the path, or name a built-in agent with --agent (rewind agents lists them)", shortErr(err))}
		}
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := yamlErr(err)
		return nil, &Error{File: l.String(), Line: line, Msg: "not valid YAML (" + msg + "): fix the syntax"}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Error{File: l.String(), Line: root.Line, Msg: "an agent file is a mapping with version: 1 and agent: …; see rewind agents for examples"}
	}
	var agent *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "version":
			if v.Value != Version {
				return nil, &Error{File: l.String(), Line: v.Line, Msg: fmt.Sprintf("agent file version %q is not supported: write version: %s", v.Value, Version)}
			}
		case "agent":
			agent = v
		}
	}
	own := &spec{}
	var extend string
	var extendLine int
	if agent != nil && agent.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(agent.Content); i += 2 {
			k, v := agent.Content[i], agent.Content[i+1]
			bad := func(want string) error {
				return &Error{File: l.String(), Line: v.Line, Msg: fmt.Sprintf("agent.%s must be %s", k.Value, want)}
			}
			isNull := v.Kind == yaml.ScalarNode && v.Tag == "!!null"
			switch k.Value {
			case "extend":
				if v.Kind != yaml.ScalarNode {
					return nil, bad("a built-in agent's name or a path")
				}
				extend, extendLine = v.Value, v.Line
			case "name":
				if v.Kind != yaml.ScalarNode {
					return nil, bad("a text")
				}
				own.name, own.hasName = v.Value, true
			case "system_prompt_path":
				if v.Kind != yaml.ScalarNode || isNull || v.Value == "" {
					return nil, bad("the path of a prompt file, relative to the agent file")
				}
				own.prompt, own.promptLine, own.promptFrom, own.hasPrompt = l.rel(v.Value), v.Line, l, true
			case "system_prompt_args":
				if isNull {
					continue
				}
				if v.Kind != yaml.MappingNode {
					return nil, bad("a mapping of NAME: text")
				}
				own.args = map[string]string{}
				for j := 0; j+1 < len(v.Content); j += 2 {
					own.args[v.Content[j].Value] = v.Content[j+1].Value
				}
			case "model":
				own.model = v.Value
			case "when_to_use":
				own.whenToUse, own.hasWhenToUse = v.Value, !isNull
			case "tools", "allowed_tools", "exclude_tools":
				tl := toolList{set: true, null: isNull}
				if !isNull {
					if v.Kind != yaml.SequenceNode {
						return nil, bad("a list of tool names")
					}
					for _, item := range v.Content {
						tl.refs = append(tl.refs, toolRef{written: item.Value, file: l, line: item.Line})
					}
				}
				switch k.Value {
				case "tools":
					own.tools = tl
				case "allowed_tools":
					own.allowed = tl
				default:
					own.exclude = tl
				}
			case "subagents":
				own.subagentsSet = true
				if isNull {
					continue
				}
				if v.Kind != yaml.MappingNode {
					return nil, bad("a mapping of NAME: {path: …, description: …}")
				}
				for j := 0; j+1 < len(v.Content); j += 2 {
					sk, sv := v.Content[j], v.Content[j+1]
					ref := subagentRef{name: sk.Value, line: sk.Line}
					var hasPath bool
					for m := 0; sv.Kind == yaml.MappingNode && m+1 < len(sv.Content); m += 2 {
						switch sv.Content[m].Value {
						case "path":
							ref.file, hasPath = l.rel(sv.Content[m+1].Value), true
						case "description":
							ref.description = sv.Content[m+1].Value
						}
					}
					if !hasPath {
						return nil, &Error{File: l.String(), Line: sk.Line, Msg: fmt.Sprintf("sub-agent %s has no path: give it path: FILE.yaml (relative to this file) and a description", sk.Value)}
					}
					if _, err := ref.file.read(); err != nil {
						return nil, &Error{File: l.String(), Line: sk.Line, Msg: fmt.Sprintf("sub-agent %s: %s cannot be read (%s): create it or correct the path (it is relative to the agent file)", sk.Value, ref.file, shortErr(err))}
					}
					own.subagents = append(own.subagents, ref)
				}
			}
		}
	} else if agent != nil && !(agent.Kind == yaml.ScalarNode && agent.Tag == "!!null") {
		return nil, &Error{File: l.String(), Line: agent.Line, Msg: "agent: must be a mapping (name, extend, system_prompt_path, tools, …)"}
	}
	if own.args == nil {
		own.args = map[string]string{}
	}
	own.argsFrom = l
	if extend == "" {
		return own, nil
	}
	var base loc
	if p, ok := builtins[extend]; ok && !strings.ContainsAny(extend, `/\.`) {
		base = loc{builtin: true, path: p}
	} else {
		base = l.rel(extend)
		if _, err := base.read(); err != nil {
			return nil, &Error{File: l.String(), Line: extendLine, Msg: fmt.Sprintf("extend %s: %s cannot be read (%s): correct the path (relative to this file) or extend a built-in agent (%s)", extend, base, shortErr(err), strings.Join(BuiltinNames(), ", "))}
		}
	}
	sp, err := readSpec(base, append(chain, l))
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Line == 0 && strings.Contains(e.Msg, "makes a cycle") && e.File == l.String() {
			e.Line = extendLine
		}
		return nil, err
	}
	// kimi-cli's merge: what this file gives replaces the base's, except
	// system_prompt_args, which are merged key by key.
	if own.hasName {
		sp.name, sp.hasName = own.name, true
	}
	if own.hasPrompt {
		sp.prompt, sp.promptLine, sp.promptFrom, sp.hasPrompt = own.prompt, own.promptLine, own.promptFrom, true
	}
	for k, v := range own.args {
		sp.args[k] = v
	}
	if len(own.args) > 0 {
		sp.argsFrom = l
	}
	if own.model != "" {
		sp.model = own.model
	}
	if own.hasWhenToUse {
		sp.whenToUse, sp.hasWhenToUse = own.whenToUse, true
	}
	if own.tools.set {
		sp.tools = own.tools
	}
	if own.allowed.set {
		sp.allowed = own.allowed
	}
	if own.exclude.set {
		sp.exclude = own.exclude
	}
	if own.subagentsSet {
		sp.subagents, sp.subagentsSet = own.subagents, true
	}
	return sp, nil
}

// yamlErr pulls the line out of a yaml.v3 error ("yaml: line 3: …").
func yamlErr(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
		if _, rest, ok := strings.Cut(msg, ": "); ok {
			msg = rest
		}
	}
	return line, msg
}

// shortErr is the reason of a file error without the path it repeats.
func shortErr(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, errOutsideProject):
		return errOutsideProject.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
