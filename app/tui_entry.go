package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rewind-agent/rewind/app/demo"
	"github.com/rewind-agent/rewind/app/tui"
	"github.com/rewind-agent/rewind/soul/agentspec"
	"github.com/rewind-agent/rewind/soul/filecp"
	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
)

// This file is the one place where the CLI hands over to the full-screen
// workspace (package app/tui); nothing else in the CLI knows about it.

// TUIMode says which workspace the user asked for.
type TUIMode int

const (
	TUINew      TUIMode = iota // `rewind`: a new session in the work dir
	TUIContinue                // `rewind -c`: the newest session of the work dir
	TUIResume                  // `rewind --session ID`
	TUIWatch                   // `rewind watch [ID]`: read-only follow
	TUIDemo                    // `rewind demo`: scripted model, no key
)

// TUIOptions are what the workspace needs to start.
type TUIOptions struct {
	Mode      TUIMode
	SessionID string // TUIResume, TUIWatch ("" = newest live session)
	Runtime   *Runtime
}

// Demo context size: small, so the context bar and /compact visibly matter.
const (
	demoMaxContext = 32000
	demoReserved   = 4000
)

// RunTUI starts the workspace and blocks until the user quits it.
func RunTUI(ctx context.Context, opts TUIOptions) error {
	rt := opts.Runtime
	// A bad agent file stops everything before the terminal is touched.
	var agent *agentspec.Agent
	if cfg, err := rt.Config(); err == nil && opts.Mode != TUIWatch {
		if agent, err = cfg.StartAgent(); err != nil {
			return err
		}
	}
	if err := checkTerminal(rt, opts.Mode); err != nil {
		return err
	}
	cfg, err := rt.Config()
	if err != nil {
		return err
	}
	o := tui.Options{
		WorkDir: cfg.WorkDir,
		Soul:    soulConfig(cfg),
		Model:   cfg.Model,
		Theme:   cfg.Theme,
		Home:    cfg.Home,
		Tools:   cfg.ToolSet(),

		ConfigFile: cfg.configPath(),
		Models: func() []string {
			var out []string
			for _, m := range cfg.Models() {
				out = append(out, m.String())
			}
			return out
		},
		SwitchModel: func(name string) (llm.Client, string, error) {
			client, choice, err := rt.SwitchModel(cfg, name)
			return client, choice.String(), err
		},
		ImageIn: func(model string) bool {
			if next, _, err := cfg.resolveModel(model); err == nil && model != "" {
				return next.HasCapability(llm.CapImageIn)
			}
			return cfg.HasCapability(llm.CapImageIn)
		},
		// The configured effort: the workspace checks it against the model
		// (CheckThinking) and says why when it cannot be used.
		CheckThinking: func(model string, e llm.Effort) (llm.Effort, string) {
			mc := cfg
			if next, _, err := cfg.resolveModel(model); err == nil && model != "" {
				mc = next
			}
			return mc.checkThinking(e)
		},
		AllowRemoteApproval: cfg.AllowRemoteApproval,
		Notify:              cfg.Notify,
		WebSearch:           cfg.searchStatus(),
	}
	o.Soul.Thinking = cfg.Thinking
	switch opts.Mode {
	case TUIDemo:
		m, err := demo.Start(demo.Options{})
		if err != nil {
			return userErrorf(err, "cannot start the demo model: %v", err)
		}
		defer m.Close()
		wd, err := demo.WorkDir(cfg.Home)
		if err != nil {
			return userErrorf(err, "cannot create the demo work directory: %v", err)
		}
		o.Mode, o.WorkDir, o.Client, o.Model = tui.ModeNew, wd, m.Client(), demo.ModelName
		o.Demo, o.NewSessionTitle, o.Welcome = true, demo.Title, demo.Welcome
		o.ApprovalAnswered = m.Answered
		o.Soul.MaxContextSize, o.Soul.ReservedTokens = demoMaxContext, demoReserved
	case TUIWatch:
		o.Mode, o.SessionID, o.ReadOnly = tui.ModeWatch, opts.SessionID, true
		// A model, when configured, lets the watcher fork the session and
		// continue it; watching itself needs none.
		if client, err := newProvider(rt, cfg); err == nil {
			o.Client = client
		}
	default:
		if setup := setupText(cfg); setup != "" {
			// Nothing to talk to yet: open the workspace anyway, with a
			// screen saying what to set; the session asked for (or past
			// ones, from the list) can still be read.
			o.Setup, o.ReadOnly = setup, true
		} else {
			client, err := newProvider(rt, cfg)
			if err != nil {
				return err
			}
			o.Client = client
		}
		switch opts.Mode {
		case TUIContinue:
			o.Mode = tui.ModeContinue
		case TUIResume:
			o.Mode, o.SessionID = tui.ModeResume, opts.SessionID
		default:
			o.Mode = tui.ModeNew
		}
	}
	rt.workspace = true
	db, _, err := rt.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	o.DB, o.Notice = db, rt.RecoveryNotice
	o.Soul.Subagents = SubagentsConfig(db, cfg)
	if agent != nil {
		o.Agent = agent
		o.AgentOf = func(ctx context.Context, s store.Session) (*agentspec.Agent, error) {
			return cfg.SessionAgent(ctx, db, s, agent)
		}
		if w := agent.Warning(); w != "" {
			o.Notice = strings.TrimPrefix(o.Notice+" · "+w, " · ")
		}
	}
	o.Export = func(ctx context.Context, id, path string) (int, error) {
		return exportFile(ctx, db, cfg, id, -1, path, false)
	}
	o.FileOptions = filecp.Options{MaxFileSize: cfg.FileSizeCap}
	if opts.Mode != TUIDemo && opts.Mode != TUIWatch {
		defer rt.workspaceMCP(cfg, &o)()
	}
	o.Files = func(s store.Session) (tools.FileTracker, error) {
		if s.WorkDir == "" {
			s.WorkDir = o.WorkDir
		}
		return fileTracker(db, s, cfg)
	}
	if err := tui.Run(ctx, o); err != nil {
		if opts.Mode == TUIWatch && errors.Is(err, store.ErrSessionNotFound) && opts.SessionID == "" {
			return userErrorf(err, "no running session to watch: start one with `rewind`, or pass a session id")
		}
		if errors.Is(err, store.ErrSessionNotFound) || errors.Is(err, store.ErrAmbiguousID) {
			return storeError(err, opts.SessionID, "")
		}
		return fmt.Errorf("workspace: %w", err)
	}
	return nil
}

// setupText is the onboarding screen's text when no model can be reached
// (no API key or no model), "" when one is configured.
func setupText(cfg Config) string {
	if cfg.APIKey != "" && cfg.Model != "" {
		return ""
	}
	// Short lines: the screen is a modal, readable at 80 columns.
	var b strings.Builder
	b.WriteString("rewind talks to any OpenAI-compatible model.\nSet these, then start rewind again:\n\n")
	if cfg.APIKey == "" {
		b.WriteString("OPENAI_API_KEY=sk-…\n    the API key (or KIMI_API_KEY, or api_key)\n")
	}
	if cfg.Model == "" {
		b.WriteString("REWIND_MODEL=gpt-4.1\n    the model (or model, or --model)\n")
	}
	fmt.Fprintf(&b, "OPENAI_BASE_URL=https://…/v1\n    another server (or base_url); now\n    %s\n", cfg.BaseURL)
	state := "not created yet"
	if cfg.File != "" {
		state = "exists"
	}
	fmt.Fprintf(&b, "\nConfig file (%s):\n%s\n", state, cfg.configPath())
	b.WriteString("\nNo key at hand? Try rewind demo: the\nworkspace on a built-in scripted model.")
	return b.String()
}

// checkTerminal refuses to start the workspace where it cannot be drawn or
// read: before the screen library fails with its own terse error. The way
// out it names is the headless command that does what the mode does.
func checkTerminal(rt *Runtime, mode TUIMode) error {
	headless := "use `rewind -p PROMPT` for headless runs"
	if mode == TUIWatch {
		headless = "use `rewind show ID` to print a session, `rewind runs` to list the live ones"
	}
	if !isTerminal(rt.Stdin) || !isTerminal(rt.Stdout) {
		return userErrorf(nil, "the workspace needs a terminal (stdin/stdout is not a TTY); %s", headless)
	}
	if rt.getenv("TERM") == "" {
		return userErrorf(nil, "the workspace needs to know the terminal type, and TERM is not set: set it (e.g. TERM=xterm-256color), or %s", headless)
	}
	return nil
}

// workspaceMCP starts the configured MCP servers in the background (the
// workspace never waits for them), adds their tools to o.Tools as they come
// up, and returns what stops them all when the workspace closes. The
// project's servers wait for the user's trust (the workspace asks).
func (rt *Runtime) workspaceMCP(cfg Config, o *tui.Options) func() {
	loaded := rt.LoadMCPServers(cfg)
	o.MCPProblems = loaded.Problems
	if len(loaded.Servers) == 0 && loaded.Untrusted == nil {
		return func() {}
	}
	m := startMCP(cfg, loaded.Servers, o.WorkDir)
	o.MCP = m
	o.Tools = o.Tools.WithSource(m.Tools)
	if u := loaded.Untrusted; u != nil {
		o.MCPTrust = &tui.MCPTrustRequest{File: u.Path, Changed: u.Changed, Servers: u.Servers, Trust: func() ([]string, error) {
			if err := TrustProjectMCP(cfg.Home, u.Path, u.Hash); err != nil {
				return nil, err
			}
			// Read again: what starts is what the files say now, and a
			// project file changed since it was shown stays untrusted.
			again := rt.LoadMCPServers(cfg)
			m.Apply(again.Servers)
			problems := again.Problems
			if again.Untrusted != nil {
				problems = append(problems, untrustedMCPLine(again.Untrusted, cfg.WorkDir, cfg.WorkDir, rt.homeFlag()))
			}
			return problems, nil
		}}
	}
	return func() { m.Close() }
}
