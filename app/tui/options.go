package tui

import (
	"context"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/agentspec"
	"github.com/rewind-agent/rewind/soul/filecp"
	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/mcp"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
)

// Mode says which session the workspace opens.
type Mode int

const (
	// ModeNew starts a new session in WorkDir (created on the first prompt).
	ModeNew Mode = iota
	// ModeContinue resumes the newest session of WorkDir (a new one if none).
	ModeContinue
	// ModeResume resumes SessionID.
	ModeResume
	// ModeWatch follows SessionID (or the newest live session) read-only.
	ModeWatch
)

// Options is everything the workspace needs; package app builds it.
type Options struct {
	DB        *store.DB
	Mode      Mode
	SessionID string // ModeResume, ModeWatch ("" = newest session with a live writer)
	WorkDir   string

	Client llm.Client  // the model; nil only in ModeWatch
	Soul   soul.Config // Yolo, limits…
	// Files, when set, makes the file checkpoint tracker of a session the
	// workspace writes to (Soul.Files is set from it per session).
	Files func(store.Session) (tools.FileTracker, error)
	// FileOptions are the file tracker's options (MaxFileSize from
	// file_size_cap) for rewinds, so they see what the agent recorded.
	FileOptions filecp.Options
	Tools       *tools.Set // nil = tools.Default()
	// Agent is the agent new sessions start with (nil: the built-in
	// default); each session's soul gets its prompt and Tools narrowed to
	// its tools. AgentOf, when set, is the agent a session goes on with
	// (app.Config.SessionAgent: the one it recorded, a sub-agent its type
	// of it); nil: Agent.
	Agent   *agentspec.Agent
	AgentOf func(ctx context.Context, sess store.Session) (*agentspec.Agent, error)
	// MCP are the MCP servers, already starting; their tools are in Tools
	// (through tools.Set.WithSource). nil: none. The caller closes it.
	MCP *mcp.Manager
	// MCPProblems are the MCP configuration problems, one line each.
	MCPProblems []string
	// MCPTrust, when set, is the project's .rewind/mcp.json waiting for
	// the user's trust: the workspace shows its servers and asks.
	MCPTrust *MCPTrustRequest
	Model    string // shown in the status bar (default Client.Model())

	Theme string // theme name ("" = the default)
	Home  string // $REWIND_HOME: user themes load from Home/themes

	// Demo labels the workspace as the demo (status bar DEMO); new sessions
	// get NewSessionTitle as their title.
	Demo            bool
	NewSessionTitle string
	// Welcome, when set, is shown as an info banner in an empty session.
	Welcome string
	// Notice, when set, is shown on the status line at start (what opening
	// the database recovered).
	Notice string

	// Models lists what /model can switch to ("provider/model" or
	// "model"); SwitchModel builds the client for one (it is called on a
	// worker) and returns the name to show. nil: /model cannot switch.
	Models      func() []string
	SwitchModel func(name string) (llm.Client, string, error)
	// ImageIn reports whether the model named (as the status bar names
	// it) takes images; /model tells the soul. nil: every model does.
	ImageIn func(model string) bool
	// WebSearch is /status's line about SearchWeb (its provider, or how to
	// enable one).
	WebSearch string
	// CheckThinking is effort e as the model named (as the status bar
	// names it) can take it, and one line saying why not when it cannot;
	// nil takes every effort.
	CheckThinking func(model string, e llm.Effort) (llm.Effort, string)
	// Export writes a session's current generation to path as kimi-cli
	// context.jsonl, never replacing a file, and returns the lines written
	// (the CLI's export; called on a worker).
	Export func(ctx context.Context, sessionID, path string) (int, error)
	// Setup, when set, is the onboarding text: no model is configured, the
	// workspace opens read-only with a screen saying what to set.
	Setup string
	// ConfigFile is the config file's path, shown by /status and the setup
	// screen.
	ConfigFile string
	// AllowRemoteApproval lets watchers of the session this workspace
	// writes answer its approval requests (the live channel, app/live).
	AllowRemoteApproval bool
	// ApprovalAnswered, when set, hears who answered each approval request
	// of the session this workspace writes, as the answer counts (before
	// the tool runs): watcherPID 0 for this screen, else the process of the
	// watcher that did (`rewind demo`'s script says who).
	ApprovalAnswered func(toolCallID string, watcherPID int)
	// Notify announces runs that finish, fail or wait for approval: "bell",
	// "osc" (OSC 9 + OSC 777) or "off" ("" = "bell").
	Notify string

	// ReadOnly opens the session without writing (watch); implied by ModeWatch.
	ReadOnly bool

	// Screen replaces the terminal (tests: tcell.NewSimulationScreen).
	Screen tcell.Screen
	// polls replaces the poll periods from the start (tests shorten the
	// writer check, whose loop starts in New).
	polls *pollPeriods
	// window replaces the window's reads (tests page through a session of
	// hundreds of turns in pages of tens, as the product does through
	// thousands in pages of hundreds).
	window *windowSizes
}

// Run opens the workspace and blocks until the user quits or ctx is
// cancelled. A run in progress is cancelled and waited for, and the session
// lease released, before Run returns.
func Run(ctx context.Context, o Options) error {
	c, err := New(ctx, o)
	if err != nil {
		return err
	}
	return c.Run(ctx)
}

// MCPTrustRequest is a project's MCP file whose servers start only once the
// user trusts it (package app records the trust and applies it).
type MCPTrustRequest struct {
	File string
	// Changed says another content of the file was trusted before.
	Changed bool
	// Servers are the file's servers as written (no ${VAR} expanded).
	Servers []mcp.ServerConfig
	// Trust records the trust of the content shown and starts the
	// servers; it returns the configuration problems then found. Called
	// on a worker.
	Trust func() ([]string, error)
}
