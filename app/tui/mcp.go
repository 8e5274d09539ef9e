package tui

import (
	"fmt"
	"strings"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul/mcp"
	"github.com/rewind-agent/rewind/views"
)

// The MCP servers in the workspace: /mcp opens a panel listing every
// server, its state and its tools, where r restarts the selected one. The
// servers start in the background (package app starts them before the
// workspace opens and never waits); each change of state reaches the UI
// through the Manager's change callback. A server that fails says so once
// in the status bar's message, and stays named in its alert until it is
// running again. Calls of MCP tools need nothing here: they are tool calls
// like any other, with their progress as live output in the tool pane.

const mcpPage = "mcp"

// mcpController owns the /mcp feature (UI goroutine, except where noted).
type mcpController struct {
	c        mcpDeps
	servers  *mcp.Manager // nil: none configured (or a read-only workspace)
	problems []string     // configuration problems, one line each
	panel    *views.MCPPanel
	reported map[string]string // failed server → the failure already announced
	// trust is the project's MCP file waiting for the user's trust (nil:
	// none, or trusted since); mcp_trust.go.
	trust       *MCPTrustRequest
	trustDialog *views.TrustDialog
	leftOut     string // the tool caps' notice last shown
}

// mcpDeps is what /mcp reaches: its pages, the typing guard its trust
// dialog arms, the status bar's alert, workers and notices.
type mcpDeps struct {
	featureCommon
	tg *typingGuard
}

// initMCP registers /mcp and subscribes to the servers' changes (New).
func (c *Controller) initMCP() {
	mc := &mcpController{c: mcpDeps{featureCommon: c.common(), tg: c.tg}, servers: c.opts.MCP, problems: c.opts.MCPProblems, panel: views.NewMCPPanel(), reported: map[string]string{},
		trust: c.opts.MCPTrust, trustDialog: views.NewTrustDialog()}
	c.theme.addThemed(mc.panel, mc.trustDialog)
	mc.panel.SetOnClose(func() { c.pages.pop(mcpPage) })
	mc.panel.SetOnRestart(mc.onUIRestart)
	c.AddCommand(Command{Name: "/mcp", Args: "[trust]", Description: "MCP servers: their state and tools (r restarts the selected one); /mcp trust reviews the project's file", Run: func(arg string) {
		if arg == "trust" {
			mc.onUIAskTrust()
			return
		}
		mc.onUIOpen()
	}})
	if mc.servers != nil {
		// Any goroutine: the Manager calls it from its own.
		mc.servers.SetOnChange(func() { c.onUIThreadAsync(mc.onUIRefresh) })
	}
	c.onUIThreadAsync(func() {
		mc.onUIAnnounceProblems()
		mc.onUIRefresh()
		// Without a model the setup screen comes first; /mcp trust asks later.
		if mc.trust != nil && c.opts.Setup == "" {
			mc.onUIAskTrust()
		}
	})
}

// onUIAnnounceProblems puts the first configuration problem in the status
// bar, with how many there are.
func (mc *mcpController) onUIAnnounceProblems() {
	if n := len(mc.problems); n > 0 {
		mc.c.setMessage(fmt.Sprintf("%s (%d MCP configuration %s: /mcp)", mc.problems[0], n, words.Plural(n, "problem", "problems")), true)
	}
}

// onUIOpen shows the panel.
func (mc *mcpController) onUIOpen() {
	mc.onUIRefresh()
	mc.c.pages.push(Page{Name: mcpPage, Primitive: mc.panel})
}

// onUIRefresh takes a snapshot of the servers (a few mutexes, no I/O) into
// the panel, the status bar alert and, for a newly failed server, a message.
func (mc *mcpController) onUIRefresh() {
	var status []mcp.Status
	if mc.servers != nil {
		status = mc.servers.Status()
	}
	servers := make([]views.MCPServer, len(status))
	var failed []string
	for i, st := range status {
		s := views.MCPServer{Name: st.Name, Transport: st.Transport, State: string(st.State), Failed: st.State == mcp.StateFailed, Err: st.Err}
		for _, t := range st.Tools {
			s.Tools = append(s.Tools, views.MCPTool{Name: t.Name, Description: t.Description, ReadOnly: t.ReadOnly, LeftOut: t.LeftOut})
		}
		servers[i] = s
		if !s.Failed {
			delete(mc.reported, st.Name)
			continue
		}
		failed = append(failed, st.Name)
		if mc.reported[st.Name] != st.Err {
			mc.reported[st.Name] = st.Err
			mc.c.setMessage(fmt.Sprintf("MCP server %s failed: %s — /mcp to restart it", st.Name, st.Err), true)
		}
	}
	problems := mc.problems
	if line := mc.pendingTrustLine(); line != "" {
		problems = append([]string{line}, problems...)
	}
	mc.panel.SetServers(servers, problems)
	if line := mcp.LeftOutNotice(status); line != mc.leftOut {
		mc.leftOut = line
		if line != "" {
			mc.c.setMessage(line+" — /mcp marks them", false)
		}
	}
	alert := ""
	if len(failed) > 0 {
		alert = "MCP: " + strings.Join(failed, ", ") + " failed"
	}
	if st := mc.c.statusModel(); alert != st.Alert {
		st.Alert = alert
		mc.c.refreshStatus()
	}
}

// onUIRestart restarts a server on a worker: stopping it may wait for its
// process to exit.
func (mc *mcpController) onUIRestart(name string) {
	if mc.servers == nil {
		return
	}
	mc.c.setMessage("restarting MCP server "+name+"…", false)
	mc.c.onWorker(func() {
		if err := mc.servers.Restart(name); err != nil {
			mc.c.post(evNote{text: "restart: " + err.Error(), isErr: true})
		}
	})
}
