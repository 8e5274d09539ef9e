package main

// MCP servers end to end: `rewind -p` with a stdio server (this test binary,
// re-executed as mcptest's server) and a scripted model that calls it.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/soul/mcp/mcptest"
)

// withMCP writes $REWIND_HOME/mcp.json with the test server as "test"; the
// server writes its pid and its child's to the returned file.
func (e *env) withMCP(extra map[string]any) string {
	e.t.Helper()
	pidFile := filepath.Join(e.t.TempDir(), "pids")
	cmd, args, env := mcptest.Command()
	env[mcptest.PIDFileEnv] = pidFile
	server := map[string]any{"command": cmd, "args": args, "env": env}
	for k, v := range extra {
		server[k] = v
	}
	b, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"test": server}})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, "mcp.json"), b, 0o600); err != nil {
		e.t.Fatal(err)
	}
	return pidFile
}

// noServerLeft checks that the processes named in pidFile are gone.
func noServerLeft(t *testing.T, pidFile string) {
	t.Helper()
	pids, err := mcptest.ReadPIDs(pidFile, 0)
	if err != nil {
		t.Fatalf("the MCP server never started: %v", err)
	}
	if pid := mcptest.WaitGone(pids, 5*time.Second); pid != 0 {
		t.Fatalf("MCP server process %d is still running after rewind exited", pid)
	}
}

func TestPrintModeCallsMCPTools(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("c1", "mcp__test__echo", map[string]any{"text": "hi"})),
		llmtest.Calls(llmtest.Call("c2", "mcp__test__touch", map[string]any{"path": "made-by-mcp.txt", "content": "x"})),
		llmtest.Text("All done."),
	)
	e := newEnv(t).withServer(srv)
	pidFile := e.withMCP(nil)

	r := e.run("-p", "use the server", "--yolo", "--output", "jsonl")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	noServerLeft(t, pidFile)
	reqs := srv.Requests()
	if len(reqs) != 3 || !containsIn(reqs[0].ToolNames(), "mcp__test__echo") || !containsIn(reqs[0].ToolNames(), "Shell") {
		t.Fatalf("%d requests; tools offered %v", len(reqs), reqs[0].ToolNames())
	}
	var results []string
	for _, ev := range parseEvents(t, r.stdout) {
		if ev.Type == "ToolResult" {
			res := payload[struct {
				Name    string `json:"name"`
				Output  string `json:"output"`
				IsError bool   `json:"is_error"`
			}](t, ev)
			results = append(results, res.Name+": "+res.Output)
		}
	}
	if len(results) != 2 || results[0] != "mcp__test__echo: echo: hi" || results[1] != "mcp__test__touch: wrote made-by-mcp.txt" {
		t.Fatalf("tool results %q", results)
	}
	// Stored like any other tool result.
	id := e.onlySession()
	if texts := e.view(id).texts(t); !containsIn(texts, "tool: echo: hi") {
		t.Errorf("view: %v", texts)
	}
	// The file the server wrote in the work dir entered the file
	// checkpoints: reverting the files to checkpoint 0 removes it.
	made := filepath.Join(e.workDir, "made-by-mcp.txt")
	if _, err := os.Stat(made); err != nil {
		t.Fatalf("the server did not write in the work dir: %v", err)
	}
	e.mustOK("revert", id, "0", "--files")
	if _, err := os.Stat(made); !os.IsNotExist(err) {
		t.Errorf("revert --files left the file the MCP server wrote: %v", err)
	}
}

func TestPrintModeMCPApprovals(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("c1", "mcp__test__echo", map[string]any{"text": "read-only"})),
		llmtest.Calls(llmtest.Call("c2", "mcp__test__touch", map[string]any{"path": "f.txt", "content": "x"})),
	)
	e := newEnv(t).withServer(srv)
	pidFile := e.withMCP(nil)
	// Without --yolo the read-only tool runs and the other needs approval.
	r := e.run("-p", "go")
	expectError(t, r, 1, "mcp__test__touch needs approval", "--yolo")
	noServerLeft(t, pidFile)
	if _, err := os.Stat(filepath.Join(e.workDir, "f.txt")); err == nil {
		t.Error("the unapproved call ran")
	}
	if texts := e.view(e.onlySession()).texts(t); !containsIn(texts, "tool: echo: read-only") {
		t.Errorf("view: %v", texts)
	}

	// "approve": "never" trusts the server.
	srv.Enqueue(llmtest.Calls(llmtest.Call("c3", "mcp__test__touch", map[string]any{"path": "f.txt", "content": "x"})), llmtest.Text("ok"))
	e.withMCP(map[string]any{"approve": "never"})
	if r := e.run("-p", "again"); r.code != 0 {
		t.Fatalf("%s", r)
	}
	if _, err := os.Stat(filepath.Join(e.workDir, "f.txt")); err != nil {
		t.Errorf("the trusted server's call did not run: %v", err)
	}
}

func TestPrintModeMCPConfigProblems(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text("fine"))
	e := newEnv(t).withServer(srv)
	bad := filepath.Join(e.workDir, "bad.json")
	os.WriteFile(bad, []byte(`{"mcpServers": {"oops": {"command": "x", "args": "not a list"}, "gone": {"command": "/nonexistent/server"}}}`), 0o600)
	r := e.run("-p", "hello", "--mcp-config-file", bad, "--mcp-config-file", filepath.Join(e.workDir, "missing.json"))
	if r.code != 0 || r.stdout != "fine\n" {
		t.Fatalf("%s", r)
	}
	for _, want := range []string{
		bad + ": mcpServers.oops.args: want an array of strings",
		"missing.json: cannot read the MCP configuration",
		"MCP server gone did not start",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "goroutine") {
		t.Errorf("stack trace on stderr:\n%s", r.stderr)
	}
}

func TestSIGTERMStopsMCPServers(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Calls(llmtest.Call("c1", "mcp__test__hang", map[string]any{})))
	e := newEnv(t).withServer(srv)
	pidFile := e.withMCP(map[string]any{"approve": "never"})
	cmd := e.command(context.Background(), "-p", "hang")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the call is under way: the model was asked once and the
	// server runs.
	deadline := time.Now().Add(20 * time.Second)
	for len(srv.Requests()) == 0 || !fileHasLine(pidFile) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the run never reached the MCP call")
		}
		time.Sleep(20 * time.Millisecond) // poll: another process (its pid file, its exit) signals nothing here
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("rewind did not exit after SIGTERM")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit code %d after SIGTERM, want 130", code)
	}
	noServerLeft(t, pidFile)
}

func fileHasLine(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.HasSuffix(string(b), "\n")
}

// MCP servers get Shell's scrubbed environment: no API key, no *TOKEN*
// variables, unless mcp.json passes one on with ${VAR}.
func TestMCPServersGetTheScrubbedEnvironment(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("c1", "mcp__test__getenv", map[string]any{"names": []string{"OPENAI_API_KEY", "MY_TOKEN", "PASSED", "PATH"}})),
		llmtest.Text("ok"),
	)
	e := newEnv(t).withServer(srv)
	e.vars["MY_TOKEN"] = "tok-123"
	cmd, args, env := mcptest.Command()
	env["PASSED"] = "${MY_TOKEN}"
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"test": map[string]any{"command": cmd, "args": args, "env": env}}})
	if err := os.WriteFile(filepath.Join(e.home, "mcp.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := e.run("-p", "env"); r.code != 0 {
		t.Fatalf("%s", r)
	}
	texts := e.view(e.onlySession()).texts(t)
	for _, want := range []string{"OPENAI_API_KEY=(unset)", "MY_TOKEN=(unset)", "PASSED=tok-123", "PATH=" + os.Getenv("PATH")} {
		if !containsIn(texts, want) {
			t.Errorf("the server's environment lacks %q: %v", want, texts)
		}
	}
}
