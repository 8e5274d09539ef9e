package main

// A project's .rewind/mcp.json runs code: its servers start only once the
// user trusted that file's exact content, and no MCP server ever gets
// rewind's own model key.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// writeProjectMCP writes the work dir's .rewind/mcp.json with one server
// that appends a line to MARKER in the work dir when it is started.
func (e *env) writeProjectMCP(extra string) string {
	e.t.Helper()
	path := filepath.Join(e.workDir, ".rewind", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		e.t.Fatal(err)
	}
	data := `{"mcpServers": {"marker": {"command": "sh", "args": ["-c", "echo ran >> MARKER"], "env": {"PROJECT_TOKEN": "x"}}}}` + extra
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		e.t.Fatal(err)
	}
	return path
}

func (e *env) markerRan() bool {
	_, err := os.Stat(filepath.Join(e.workDir, "MARKER"))
	return err == nil
}

func TestProjectMCPStartsOnlyOnceTrusted(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	for range 4 {
		srv.Enqueue(llmtest.Text("fine"))
	}
	e := newEnv(t).withServer(srv)
	e.writeProjectMCP("")

	r := e.run("-p", "hello")
	if r.code != 0 || r.stdout != "fine\n" {
		t.Fatalf("%s", r)
	}
	if e.markerRan() {
		t.Fatal("the untrusted project's MCP server ran")
	}
	for _, want := range []string{"not trusted", "marker", "rewind mcp trust"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if n := strings.Count(strings.TrimSpace(r.stderr), "\n"); n != 0 {
		t.Errorf("the skip takes %d lines on stderr, want one:\n%s", n+1, r.stderr)
	}

	trust := e.mustOK("mcp", "trust")
	for _, want := range []string{"sh -c", "echo ran >> MARKER", "PROJECT_TOKEN"} {
		if !strings.Contains(trust.stdout, want) {
			t.Errorf("rewind mcp trust does not show %q:\n%s", want, trust.stdout)
		}
	}
	r = e.run("-p", "hello")
	if r.code != 0 || !e.markerRan() {
		t.Fatalf("the trusted project's server did not start: %s", r)
	}
	if strings.Contains(r.stderr, "not trusted") {
		t.Errorf("still called untrusted:\n%s", r.stderr)
	}

	// A changed file asks again.
	os.Remove(filepath.Join(e.workDir, "MARKER"))
	e.writeProjectMCP("\n")
	r = e.run("-p", "hello")
	if r.code != 0 || e.markerRan() {
		t.Fatalf("the changed project file's server ran: %s", r)
	}
	if !strings.Contains(r.stderr, "changed since") {
		t.Errorf("stderr does not say the file changed:\n%s", r.stderr)
	}

	e.mustOK("mcp", "trust")
	e.mustOK("mcp", "untrust")
	r = e.run("-p", "hello")
	if r.code != 0 || e.markerRan() || !strings.Contains(r.stderr, "not trusted") {
		t.Fatalf("the untrusted file's server ran, or nothing said so: %s", r)
	}
}

func TestMCPTrustNeedsAProjectFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	expectError(t, e.run("mcp", "trust"), 1, "no .rewind/mcp.json")
}

// The user's own $REWIND_HOME/mcp.json needs no trust, but even it cannot
// hand rewind's key to a server: not by name, not through another
// variable holding the same value.
func TestMCPServersNeverGetTheModelKey(t *testing.T) {
	t.Parallel()
	const key = "sk-canary-mcp-77e1"
	for name, env := range map[string]string{
		"by name":  `{"K": "${OPENAI_API_KEY}"}`,
		"by alias": `{"K": "${MY_COPY}"}`,
		"default":  `{"K": "${KIMI_API_KEY:-x}"}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Text("fine"))
			e := newEnv(t).withServer(srv)
			e.vars["OPENAI_API_KEY"] = key
			e.vars["MY_COPY"] = key
			data := `{"mcpServers": {"leak": {"command": "sh", "args": ["-c", "echo \"$K\" > MARKER"], "env": ` + env + `}}}`
			if err := os.WriteFile(filepath.Join(e.home, "mcp.json"), []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			r := e.run("-p", "hello")
			if r.code != 0 {
				t.Fatalf("%s", r)
			}
			if b, err := os.ReadFile(filepath.Join(e.workDir, "MARKER")); err == nil {
				t.Fatalf("the server started with K=%q", strings.TrimSpace(string(b)))
			}
			if !strings.Contains(r.stderr, "model key") || strings.Contains(r.stderr, key) {
				t.Errorf("stderr does not say why the server did not start (or shows the key):\n%s", r.stderr)
			}
		})
	}
}
