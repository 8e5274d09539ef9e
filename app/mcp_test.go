package app

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul/mcp"
)

func TestParseMCPConfig(t *testing.T) {
	t.Parallel()
	env := map[string]string{"GH_TOKEN": "gh-secret"}
	getenv := func(k string) string { return env[k] }
	data := `{
  "mcpServers": {
    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "${GH_TOKEN}"}, "startup_timeout": 90},
    "web": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${MISSING:-none}"}, "approve": "never", "timeout": 2.5},
    "off": {"command": "x", "disabled": true},
    "cursor": {"command": "y", "alwaysAllow": ["z"]}
  }
}`
	servers, problems := parseMCPConfig("/h/mcp.json", []byte(data), getenv, nil)
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	want := []mcp.ServerConfig{
		{Name: "cursor", Command: "y"},
		{Name: "github", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-github"}, Env: map[string]string{"GITHUB_TOKEN": "gh-secret"}, StartTimeout: 90 * time.Second},
		{Name: "web", URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer none"}, Approve: mcp.ApproveNever, Timeout: 2500 * time.Millisecond},
	}
	if !reflect.DeepEqual(servers, want) {
		t.Errorf("servers:\n got %+v\nwant %+v", servers, want)
	}
}

func TestParseMCPConfigProblems(t *testing.T) {
	t.Parallel()
	getenv := func(string) string { return "" }
	cases := []struct{ data, want string }{
		{"{\n  \"mcpServers\": {,}\n}", "/f.json: not valid JSON (line 2, column 18"},
		{`{"servers": {}}`, `/f.json: no "mcpServers" key`},
		{`{"mcpServers": []}`, "/f.json: mcpServers must be an object"},
		{`{"mcpServers": {"a": {"command": 5}}}`, "/f.json: mcpServers.a.command: want a string, got JSON number; the server a does not start"},
		{`{"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}`, "mcpServers.a.env: want a string"},
		{`{"mcpServers": {"a": {}}}`, `mcpServers.a: needs "command"`},
		{`{"mcpServers": {"a": {"command": "x", "url": "http://h"}}}`, `mcpServers.a: has both`},
		{`{"mcpServers": {"a": {"url": "ftp://h"}}}`, `mcpServers.a.url: "ftp://h" is not an http`},
		{`{"mcpServers": {"a": {"url": "http://h", "type": "sse"}}}`, `mcpServers.a.type: the old SSE transport is not supported`},
		{`{"mcpServers": {"a": {"command": "x", "approve": "sometimes"}}}`, `mcpServers.a.approve: "sometimes" is neither`},
		{`{"mcpServers": {"a": {"command": "x", "timeout": 0}}}`, `mcpServers.a.timeout: 0 is not a positive number`},
		{`{"mcpServers": {"a": {"command": "x", "startup_timeout": -1}}}`, `mcpServers.a.startup_timeout: -1 is not a positive number`},
		{`{"mcpServers": {"a": {"command": "x", "args": ["${NOPE}"]}}}`, `mcpServers.a.args[0]: ${NOPE} is not set`},
		{`{"mcpServers": {"a": "npx"}}`, `mcpServers.a: not a server object`},
	}
	for _, c := range cases {
		servers, problems := parseMCPConfig("/f.json", []byte(c.data), getenv, nil)
		if len(servers) != 0 || len(problems) != 1 || !strings.Contains(problems[0], c.want) {
			t.Errorf("%s:\n servers %v\n problems %q\n want %q", c.data, servers, problems, c.want)
		}
	}
	// One bad server does not take the others down.
	servers, problems := parseMCPConfig("/f.json", []byte(`{"mcpServers": {"bad": {"args": 1}, "good": {"command": "x"}}}`), getenv, nil)
	if len(servers) != 1 || servers[0].Name != "good" || len(problems) != 1 {
		t.Errorf("servers %v, problems %v", servers, problems)
	}
}

func TestLoadMCPServersPrecedence(t *testing.T) {
	t.Parallel()
	home, work := t.TempDir(), t.TempDir()
	write := func(path, data string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, "mcp.json"), `{"mcpServers": {"a": {"command": "home-a"}, "b": {"command": "home-b"}}}`)
	write(filepath.Join(work, ".rewind", "mcp.json"), `{"mcpServers": {"b": {"command": "project-b"}, "c": {"command": "project-c"}}}`)
	flagFile := filepath.Join(t.TempDir(), "extra.json")
	write(flagFile, `{"mcpServers": {"c": {"command": "flag-c"}}}`)
	rt := &Runtime{Getenv: func(string) string { return "" }, Flags: Overrides{MCPConfigFiles: []string{flagFile, filepath.Join(work, "nope.json")}}}
	project := projectMCPPath(work)
	data, _ := os.ReadFile(project)
	if err := TrustProjectMCP(home, project, mcpContentHash(data)); err != nil {
		t.Fatal(err)
	}
	loaded := rt.LoadMCPServers(Config{Home: home, WorkDir: work})
	servers, problems := loaded.Servers, loaded.Problems
	var got []string
	for _, s := range servers {
		got = append(got, s.Name+"="+s.Command)
	}
	if strings.Join(got, " ") != "a=home-a b=project-b c=flag-c" {
		t.Errorf("servers %v", got)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "nope.json: cannot read the MCP configuration") {
		t.Errorf("problems %q", problems)
	}
}

// A project's file starts nothing until its exact content is trusted; the
// user's own file and --mcp-config-file need no trust.
func TestProjectMCPNeedsTrust(t *testing.T) {
	t.Parallel()
	home, work := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(home, "mcp.json"), []byte(`{"mcpServers": {"mine": {"command": "home-a"}}}`), 0o600)
	project := projectMCPPath(work)
	os.MkdirAll(filepath.Dir(project), 0o700)
	content := []byte(`{"mcpServers": {"evil": {"command": "sh", "args": ["-c", "${X}"], "env": {"K": "${OPENAI_API_KEY}"}}}}`)
	os.WriteFile(project, content, 0o600)
	rt := &Runtime{Getenv: func(k string) string { return map[string]string{"X": "true"}[k] }}
	cfg := Config{Home: home, WorkDir: work}
	names := func(l MCPServers) string {
		var out []string
		for _, s := range l.Servers {
			out = append(out, s.Name)
		}
		return strings.Join(out, " ")
	}

	l := rt.LoadMCPServers(cfg)
	if names(l) != "mine" || l.Untrusted == nil || l.Untrusted.Changed || len(l.Problems) != 0 {
		t.Fatalf("untrusted: servers %q, untrusted %+v, problems %q", names(l), l.Untrusted, l.Problems)
	}
	// Shown as written: nothing of rewind's environment is read for it.
	want := mcp.ServerConfig{Name: "evil", Command: "sh", Args: []string{"-c", "${X}"}, Env: map[string]string{"K": "${OPENAI_API_KEY}"}}
	if !reflect.DeepEqual(l.Untrusted.Servers, []mcp.ServerConfig{want}) {
		t.Errorf("shown as %+v", l.Untrusted.Servers)
	}

	if err := TrustProjectMCP(home, l.Untrusted.Path, l.Untrusted.Hash); err != nil {
		t.Fatal(err)
	}
	l = rt.LoadMCPServers(cfg)
	if l.Untrusted != nil || len(l.Problems) != 1 || !strings.Contains(l.Problems[0], "model key") {
		t.Fatalf("trusted: untrusted %+v, problems %q", l.Untrusted, l.Problems)
	}
	if info, err := os.Stat(filepath.Join(home, mcpTrustFileName)); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the trust record: %v %v", info, err)
	}

	os.WriteFile(project, append(content, '\n'), 0o600)
	l = rt.LoadMCPServers(cfg)
	if names(l) != "mine" || l.Untrusted == nil || !l.Untrusted.Changed {
		t.Fatalf("changed: servers %q, untrusted %+v", names(l), l.Untrusted)
	}
}

func TestMCPConfigWithBOM(t *testing.T) {
	t.Parallel()
	servers, problems := parseMCPConfig("/f.json", []byte("\xef\xbb\xbf"+`{"mcpServers": {"a": {"command": "x"}}}`), func(string) string { return "" }, nil)
	if len(problems) != 0 || len(servers) != 1 || servers[0].Command != "x" {
		t.Errorf("servers %v, problems %q", servers, problems)
	}
}
