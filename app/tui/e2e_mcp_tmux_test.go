package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul/mcp/mcptest"
)

// TestMCPServersStopWithTheWorkspaceInTmux: the real binary in a real
// terminal starts the MCP server of $REWIND_HOME/mcp.json (this test
// binary, re-executed by mcptest), shows it in /mcp, and leaves no server
// process behind, neither after /exit nor after kill -TERM.
func TestMCPServersStopWithTheWorkspaceInTmux(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"/exit", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "home")
			pidFile := filepath.Join(t.TempDir(), "pids")
			cmd, args, env := mcptest.Command()
			env[mcptest.PIDFileEnv] = pidFile
			b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"test": map[string]any{"command": cmd, "args": args, "env": env}}})
			if err := os.MkdirAll(home, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, "mcp.json"), b, 0o600); err != nil {
				t.Fatal(err)
			}
			tt := startTmux(t, []string{"OPENAI_API_KEY=test-key", "OPENAI_BASE_URL=http://127.0.0.1:1/v1", "REWIND_MODEL=test-model"},
				"--home "+home+" --work-dir "+t.TempDir())
			tt.waitFor("Ask anything")
			tt.send("-l", "/mcp")
			tt.send("Enter")
			tt.waitFor("test (stdio) ready", "mcp__test__echo [read-only]")
			pids, err := mcptest.ReadPIDs(pidFile, 15*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if how == "/exit" {
				tt.send("Escape")
				// Keys sent right after Escape would arrive as Alt-keys.
				tt.waitGone("MCP servers ·")
				tt.send("-l", "/exit")
				tt.send("Enter")
			} else {
				out, err := tt.tmux("display", "-p", "-t", "demo", "#{pane_pid}")
				pane, _ := strconv.Atoi(strings.TrimSpace(out))
				if err != nil || pane == 0 {
					t.Fatalf("pane pid: %v %q", err, out)
				}
				// The pane's process group: rewind (and the shell that started it).
				if err := syscall.Kill(-pane, syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			}
			if pid := mcptest.WaitGone(pids, 15*time.Second); pid != 0 {
				t.Fatalf("MCP server process %d still runs after rewind exited (%s); screen:\n%s", pid, how, tt.capture())
			}
		})
	}
}
