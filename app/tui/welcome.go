package tui

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-agent/rewind/views"
)

// welcomeKeys are the five keys a newcomer needs first; ? lists the rest.
var welcomeKeys = []views.KeyHint{
	{Key: "Enter", Description: "send · Alt-Enter for a new line"},
	{Key: "/", Description: "slash commands (Up/Down or Tab to pick)"},
	{Key: "Esc", Description: "interrupt the run · Esc Esc: rewind to a checkpoint"},
	{Key: "Tab", Description: "next pane (conversation, tool output, timeline, sessions)"},
	{Key: "?", Description: "every key and command"},
}

// refreshWelcome updates what the empty conversation shows: the work dir,
// the model and the approval mode as they are now (UI).
func (c *Controller) refreshWelcome() {
	approval := "ask before edits and shell commands (/yolo to stop asking)"
	switch {
	case c.opts.Setup != "":
		approval = "no model configured yet (see the setup screen)"
	case c.readOnly:
		approval = "read-only: another process writes this session"
	case c.plan.Load():
		approval = "plan mode: only read-only tools run until you approve the model's plan (Shift-Tab to leave)"
	case c.statusM.Mode == "YOLO":
		approval = "yolo: every tool call runs without asking (/yolo to ask again)"
	}
	c.conv.SetWelcome(views.Welcome{WorkDir: homeShort(c.opts.WorkDir), Model: c.statusM.Model, Agent: c.agentLabel(), Approval: approval, Keys: welcomeKeys})
}

// agentLabel names the agent of the open session's soul, else the one a
// new session starts with (any goroutine).
func (c *Controller) agentLabel() string {
	a := c.opts.Agent
	if o := c.cur(); o != nil && o.agent != nil {
		a = o.agent
	}
	return a.Label(c.opts.WorkDir)
}

// homeShort writes a path under the home directory as ~/….
func homeShort(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return p
	}
	if p == home {
		return "~"
	}
	if rel, ok := strings.CutPrefix(p, home+string(filepath.Separator)); ok {
		return filepath.Join("~", rel)
	}
	return p
}
