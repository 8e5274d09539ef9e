package tui

import (
	"fmt"
	"strings"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/views"
)

// Trusting a project's MCP file: a cloned repository's .rewind/mcp.json
// starts nothing until the user trusts it. When the workspace opens on such
// a file (Options.MCPTrust), a dialog lists what its servers would run; t
// (once the whole list was on screen) records the trust and starts them,
// n/Esc leaves them stopped, and `/mcp trust` asks again later. Trusting
// runs on a worker: it writes the trust record and may stop servers.

const mcpTrustPage = "mcp-trust"

// onUIAskTrust shows the dialog for the pending project file, if any.
func (mc *mcpController) onUIAskTrust() {
	req := mc.trust
	if req == nil {
		mc.c.setMessage("no project MCP file waits for trust (rewind mcp untrust takes a trust back)", false)
		return
	}
	if mc.c.pages.top() == mcpTrustPage {
		return
	}
	view := views.TrustRequest{File: req.File, Changed: req.Changed}
	for _, s := range req.Servers {
		view.Servers = append(view.Servers, views.TrustServer{Name: s.Name, Command: s.CommandLine(), URL: s.URL != "", Env: s.EnvNames(), Headers: s.HeaderNames()})
	}
	mc.trustDialog.Show(view, func(trust bool) {
		mc.c.pages.pop(mcpTrustPage)
		if trust {
			mc.onUITrust()
			return
		}
		mc.c.setMessage("project MCP servers not started: /mcp trust reviews them", false)
	})
	mc.c.pages.push(Page{Name: mcpTrustPage, Primitive: mc.trustDialog})
	mc.c.tg.onUIConfirmShown(mc.trustDialog.Decline)
}

// onUITrust records the trust and starts the servers, on a worker.
func (mc *mcpController) onUITrust() {
	req := mc.trust
	mc.trust = nil
	mc.c.setMessage("trusted .rewind/mcp.json: starting its MCP servers…", false)
	mc.c.onWorker(func() {
		problems, err := req.Trust()
		mc.c.onUIThreadAsync(func() {
			if err != nil {
				mc.trust = req
				mc.c.setMessage("cannot record the trust: "+err.Error(), true)
				return
			}
			mc.problems = problems // every file's, read again
			mc.onUIAnnounceProblems()
			mc.onUIRefresh()
		})
	})
}

// pendingTrustLine is the panel's line for a file waiting for trust.
func (mc *mcpController) pendingTrustLine() string {
	if mc.trust == nil {
		return ""
	}
	return fmt.Sprintf("%s is not trusted: its MCP %s (%s) did not start; /mcp trust to review them",
		mc.trust.File, words.Plural(len(mc.trust.Servers), "server", "servers"), strings.Join(serverNames(mc.trust), ", "))
}

func serverNames(req *MCPTrustRequest) []string {
	out := make([]string, len(req.Servers))
	for i, s := range req.Servers {
		out[i] = s.Name
	}
	return out
}
