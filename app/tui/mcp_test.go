package tui

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/soul/mcp"
	"github.com/rewind-agent/rewind/soul/mcp/mcptest"
	"github.com/rewind-agent/rewind/soul/tools"
)

// mcpServers starts "test" (the in-repo server, in memory), "broken"
// (which never starts) and "mute" (which never answers the initialize, so
// stays starting), and counts the starts of each.
func mcpServers(t *testing.T, work string) (*mcp.Manager, func(string) int) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var mu sync.Mutex
	starts := map[string]int{}
	m := mcp.NewManager([]mcp.ServerConfig{{Name: "test"}, {Name: "broken"}, {Name: "mute", Timeout: time.Minute}}, mcp.Options{WorkDir: work,
		Transport: func(cfg mcp.ServerConfig) (sdk.Transport, error) {
			mu.Lock()
			starts[cfg.Name]++
			mu.Unlock()
			if cfg.Name == "broken" {
				return nil, errors.New("no credentials configured")
			}
			if cfg.Name == "mute" {
				return mcptest.MuteTransport(ctx), nil
			}
			client, server := sdk.NewInMemoryTransports()
			go func() { _ = mcptest.NewServer().Run(ctx, server) }()
			return client, nil
		}})
	t.Cleanup(func() { m.Close() })
	m.Start()
	return m, func(name string) int { mu.Lock(); defer mu.Unlock(); return starts[name] }
}

func withMCP(m *mcp.Manager, problems ...string) func(*Options) {
	return func(o *Options) {
		o.MCP, o.MCPProblems = m, problems
		o.Tools = tools.Default().WithSource(m.Tools)
	}
}

func TestMCPPanelListsServersAndRestarts(t *testing.T) {
	t.Parallel()
	var m *mcp.Manager
	var starts func(string) int
	h := newHarness(t, hopts{w: 80, h: 24,
		before: func(h *harness) { m, starts = mcpServers(t, h.work) },
		mutate: func(o *Options) {
			withMCP(m, "/home/u/mcp.json: mcpServers.x.args: want an array of strings; the server x does not start")(o)
		},
	})
	// The workspace does not wait for a server still starting; the failed
	// one stays named in the status bar.
	h.waitFor("MCP: broken failed")
	h.submit("/mcp")
	h.waitFor("MCP servers", "test (stdio) ready · 10 tools", "mcp__test__echo [read-only]", "broken (stdio) failed", "no credentials configured", "mute (stdio) starting", "mcp.json: mcpServers.x.args")
	// j selects the broken server, r restarts it.
	h.typeText("j", false)
	h.waitFor("▶ broken")
	h.typeText("r", false)
	h.waitUntil("a second start of broken", func() bool { return starts("broken") == 2 })
	if starts("test") != 1 {
		t.Errorf("test started %d times", starts("test"))
	}
	h.key(tcell.KeyEsc)
	h.waitGone("▶ broken")
}

func TestMCPToolCallAsksAndShowsProgress(t *testing.T) {
	t.Parallel()
	var m *mcp.Manager
	h := newHarness(t, hopts{
		before: func(h *harness) {
			m, _ = mcpServers(t, h.work)
			deadline := time.Now().Add(waitLimit)
			for len(m.Tools()) == 0 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond) // poll: the manager signals nothing when a server's tools arrive
			}
		},
		mutate: func(o *Options) { withMCP(m)(o) },
	},
		llmtest.Calls(llmtest.Call("c1", "mcp__test__slow", map[string]any{"steps": 3})),
		llmtest.Text("The server is done."))
	h.submit("run the slow tool")
	h.waitFor("Approve mcp__test__slow", "call MCP tool mcp__test__slow", "Call slow on the MCP server test")
	h.clock.advance(approvalGrace)
	h.typeText("y", false)
	h.waitFor("progress 1/3: step 1", "The server is done.")
	h.waitUntil("the run to end", h.idle)
	if reqs := h.srv.Requests(); len(reqs) != 2 || !contains(reqs[0].ToolNames(), "mcp__test__slow") {
		t.Errorf("tools offered: %v", reqs[0].ToolNames())
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
