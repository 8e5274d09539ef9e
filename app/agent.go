package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/agentspec"
	"github.com/rewind-agent/rewind/store"
)

// Where the agent comes from (issue 21 §3), first found wins: --agent or
// --agent-file; for a resumed session, the agent it was started with; the
// work dir's .rewind/agent.yaml; the config's agent or agent_file; the
// built-in default. A project's agent file needs no trust (it starts no
// program and every tool still asks), but reads no file outside the work
// dir (agentspec.LoadProjectFile); see DECISIONS.

// projectAgentPath is the work dir's own agent file.
func projectAgentPath(workDir string) string {
	return filepath.Join(workDir, ".rewind", "agent.yaml")
}

// expandAgentPath makes a configured path absolute: ~/ is the home
// directory, a relative path is relative to base.
func expandAgentPath(p, base string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if filepath.IsAbs(p) || base == "" {
		return p
	}
	return filepath.Join(base, p)
}

// StartAgent is the agent a new session starts with. A bad agent file is a
// usage error (exit 2) whose one line names the file, the line and the fix.
func (c Config) StartAgent() (*agentspec.Agent, error) {
	if c.Agent != "" && c.AgentFile != "" {
		if c.AgentFromFlag {
			return nil, Usage(errors.New("--agent and --agent-file cannot be used together: pick one"))
		}
		return nil, Usage(fmt.Errorf("%s sets both agent and agent_file: keep one", c.configPath()))
	}
	if !c.AgentFromFlag {
		p := projectAgentPath(c.WorkDir)
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			return agentResult(agentspec.LoadProjectFile(p, c.WorkDir))
		}
	}
	switch {
	case c.AgentFile != "":
		return agentResult(agentspec.LoadFile(c.AgentFile))
	case c.Agent != "":
		return agentResult(agentspec.Builtin(c.Agent))
	}
	return agentspec.Default(), nil
}

// SessionAgent is the agent sess goes on with: start (StartAgent) when a
// flag named it or the session recorded none, else the one it was started
// with (a built-in's name or a file's path), loaded again. A sub-agent
// session runs as its type of that agent (the agent file that defines its
// type, which it records; a child from before it did takes its parent's),
// so opening it directly keeps its prompt and tools.
func (c Config) SessionAgent(ctx context.Context, db *store.DB, sess store.Session, start *agentspec.Agent) (*agentspec.Agent, error) {
	stored, err := db.SessionAgent(ctx, sess.ID)
	if err != nil {
		return nil, err
	}
	child := sess.SubagentOf != ""
	if stored == "" && child {
		stored, _ = db.SessionAgent(ctx, sess.SubagentOf) // a parent gone: the start agent
	}
	a := start
	if !c.AgentFromFlag && stored != "" && stored != start.Ref {
		if a, err = loadAgentRef(stored, c.WorkDir); err != nil {
			return nil, agentError(fmt.Errorf("session %s was started with the agent %s, which does not load now: %v; fix it, or resume with --agent NAME or --agent-file PATH", shortSessionID(sess.ID), stored, err))
		}
	}
	if !child {
		return a, nil
	}
	if sub, ok := a.Subagent(sess.SubagentType); ok {
		return sub, nil
	}
	if stored == "" {
		// Nothing recorded (an imported sub-agent, say, of a type rewind
		// does not define): it goes on as a session of its own.
		return a, nil
	}
	return nil, agentError(fmt.Errorf("session %s is a %s sub-agent of the agent %s, which defines no %s now: add it to the subagents of %s, or continue it with --agent NAME or --agent-file PATH of an agent that defines it",
		shortSessionID(sess.ID), sess.SubagentType, a.Label(c.WorkDir), sess.SubagentType, a.File))
}

// loadAgentRef loads an agent by what a session recorded of it.
func loadAgentRef(ref, workDir string) (*agentspec.Agent, error) {
	if !filepath.IsAbs(ref) {
		return agentspec.Builtin(ref)
	}
	if ref == projectAgentPath(workDir) {
		return agentspec.LoadProjectFile(ref, workDir)
	}
	return agentspec.LoadFile(ref)
}

func shortSessionID(id string) string { return id[:min(len(id), 10)] }

// agentError is a bad agent file: its message already says the fix, and
// the exit code is a usage error's (2).
func agentError(err error) error {
	return &UserError{Msg: err.Error(), Code: ExitUsage, Err: err}
}

// agentResult turns a bad agent file into a usage error (exit 2).
func agentResult(a *agentspec.Agent, err error) (*agentspec.Agent, error) {
	if err != nil {
		return nil, agentError(err)
	}
	return a, nil
}

// Agents prints `rewind agents`: the built-in agents and sub-agent types
// with their tools, and the agent a new session here starts with (a bad
// agent file is its one-line error, as when starting).
func Agents(rt *Runtime) error {
	cfg, err := rt.Config()
	if err != nil {
		return err
	}
	start, err := cfg.StartAgent()
	if err != nil {
		return err
	}
	w := rt.Stdout
	show := func(a *agentspec.Agent, kind string) {
		head := a.Label(cfg.WorkDir)
		if kind != "" {
			head = a.Name + " (" + kind + ")"
		}
		if a.Ref == start.Ref {
			head += " · in use"
		}
		fmt.Fprintln(w, head)
		if a.Description != "" {
			fmt.Fprintln(w, "  "+a.Description)
		}
		tools := append([]string(nil), a.Tools...)
		if a.AllowsMCP("mcp__*__*") {
			tools = append(tools, "MCP tools")
		}
		fmt.Fprintln(w, "  tools: "+strings.Join(tools, ", "))
		if names := a.SubagentNames(); len(names) > 0 && a.Offers(soul.AgentToolName) {
			fmt.Fprintln(w, "  sub-agents: "+strings.Join(names, ", "))
		}
		if len(a.Unavailable) > 0 {
			fmt.Fprintln(w, "  not in rewind: "+strings.Join(a.Unavailable, ", "))
		}
	}
	def := agentspec.Default()
	for _, name := range []string{"default", "okabe"} {
		a, err := agentspec.Builtin(name)
		if err != nil {
			return err
		}
		show(a, "")
	}
	for _, s := range def.Subagents {
		sub, _ := def.Subagent(s.Name)
		show(sub, "built-in sub-agent type")
	}
	if filepath.IsAbs(start.Ref) {
		fmt.Fprintln(w)
		show(start, "")
	}
	return nil
}
