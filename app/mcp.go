package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/rewind-agent/rewind/internal/regfile"
	"github.com/rewind-agent/rewind/soul/mcp"
)

// MCPFileName is the MCP configuration file in $REWIND_HOME and in the work
// dir's .rewind directory.
const MCPFileName = "mcp.json"

// MCPServers is what the MCP configuration files say.
type MCPServers struct {
	// Servers are the servers to start: those of the user's own files
	// ($REWIND_HOME/mcp.json, --mcp-config-file) and, once its content is
	// trusted, of the project's .rewind/mcp.json.
	Servers []mcp.ServerConfig
	// Problems are configuration problems, one line each.
	Problems []string
	// Untrusted is the project's file when it exists and its content was
	// never trusted: none of its servers start.
	Untrusted *ProjectMCP
}

// ProjectMCP is a work dir's .rewind/mcp.json that waits for the user's
// trust: a cloned repository can ship one, and its commands run as the user.
type ProjectMCP struct {
	Path string
	// Hash is the content's hash: trusting records it, so the trust covers
	// exactly what was shown.
	Hash string
	// Changed says another content of this file was trusted before.
	Changed bool
	// Servers are its servers as written (no ${VAR} expanded), to show.
	Servers []mcp.ServerConfig
}

// Names are the names of its servers, in order.
func (p *ProjectMCP) Names() []string {
	out := make([]string, len(p.Servers))
	for i, s := range p.Servers {
		out[i] = s.Name
	}
	return out
}

// projectMCPPath is the work dir's own MCP file.
func projectMCPPath(workDir string) string {
	return filepath.Join(workDir, ".rewind", MCPFileName)
}

// LoadMCPServers reads the MCP configuration files, lowest precedence
// first: $REWIND_HOME/mcp.json, <work dir>/.rewind/mcp.json (only if its
// content is trusted), then every --mcp-config-file in order. A server
// defined again later replaces the earlier definition. The first two are
// optional; a file named on the command line must exist. Each problem (a
// file that cannot be read or parsed, a server entry with a bad key) is one
// line naming the file and the key; the servers it concerns are left out and
// everything else is kept, so rewind starts without them.
func (rt *Runtime) LoadMCPServers(cfg Config) MCPServers {
	var out MCPServers
	byName := map[string]mcp.ServerConfig{}
	var order []string
	add := func(path string, data []byte) {
		servers, probs := parseMCPConfig(path, data, rt.getenv, cfg.ShellEnv.IsSecret)
		out.Problems = append(out.Problems, probs...)
		for _, s := range servers {
			if _, seen := byName[s.Name]; !seen {
				order = append(order, s.Name)
			}
			byName[s.Name] = s
		}
	}
	read := func(path string, mustExist bool) ([]byte, bool) {
		data, err := regfile.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) && !mustExist {
			return nil, false
		}
		if err != nil {
			out.Problems = append(out.Problems, fmt.Sprintf("%s: cannot read the MCP configuration: %v", path, unwrapPath(err)))
			return nil, false
		}
		return data, true
	}
	home := filepath.Join(cfg.Home, MCPFileName)
	if data, ok := read(home, false); ok {
		add(home, data)
	}
	project := projectMCPPath(cfg.WorkDir)
	// The work dir may be $REWIND_HOME/..: then the project's file is the
	// user's own, read above.
	if !sameFile(home, project) {
		if data, ok := read(project, false); ok {
			switch trusted, changed, err := mcpTrusted(cfg.Home, project, data); {
			case err != nil:
				out.Problems = append(out.Problems, err.Error())
				fallthrough
			case !trusted:
				servers, _ := parseMCPConfig(project, data, nil, nil)
				out.Untrusted = &ProjectMCP{Path: project, Hash: mcpContentHash(data), Changed: changed, Servers: servers}
			default:
				add(project, data)
			}
		}
	}
	for _, p := range rt.Flags.MCPConfigFiles {
		if data, ok := read(p, true); ok {
			add(p, data)
		}
	}
	if out.Untrusted != nil && len(out.Untrusted.Servers) == 0 {
		out.Untrusted = nil // nothing of it would start anyway
	}
	out.Servers = make([]mcp.ServerConfig, 0, len(order))
	for _, name := range order {
		out.Servers = append(out.Servers, byName[name])
	}
	return out
}

// sameFile says whether two paths name one file, by their absolute paths.
func sameFile(a, b string) bool {
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}

// unwrapPath drops the path an *fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// mcpServerEntry is one entry of "mcpServers", in the format Claude Code,
// Cursor and kimi-cli share. Keys rewind does not know are ignored, since
// the same file often serves those tools too.
type mcpServerEntry struct {
	Type    *string            `json:"type"`
	Command *string            `json:"command"`
	Args    *[]string          `json:"args"`
	Env     *map[string]string `json:"env"`
	URL     *string            `json:"url"`
	Headers *map[string]string `json:"headers"`
	Approve *string            `json:"approve"`
	Timeout *float64           `json:"timeout"`
	// StartupTimeout bounds the start alone (codex's startup_timeout_sec).
	StartupTimeout *float64 `json:"startup_timeout"`
	Disabled       *bool    `json:"disabled"`
}

// utf8BOM starts files some Windows editors save.
var utf8BOM = []byte("\xef\xbb\xbf")

// parseMCPConfig parses one file. A JSON syntax error loses the whole file;
// a bad entry loses only that server. getenv expands ${VAR} references; nil
// keeps them as written (to show a file). secret names the variables and
// values no server may get (rewind's model keys).
func parseMCPConfig(path string, data []byte, getenv func(string) string, secret func(name, value string) bool) ([]mcp.ServerConfig, []string) {
	data = bytes.TrimPrefix(data, utf8BOM)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, []string{fmt.Sprintf("%s: not valid JSON (%s); none of its MCP servers start", path, jsonError(data, err))}
	}
	raw, ok := top["mcpServers"]
	if !ok {
		return nil, []string{fmt.Sprintf("%s: no \"mcpServers\" key; expected {\"mcpServers\": {\"NAME\": {\"command\": …}}}", path)}
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil || entries == nil {
		return nil, []string{fmt.Sprintf("%s: mcpServers must be an object of servers by name", path)}
	}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	sort.Strings(names)
	var servers []mcp.ServerConfig
	var problems []string
	for _, name := range names {
		s, skip, err := parseMCPServer(name, entries[name], getenv, secret)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: mcpServers.%s%s; the server %s does not start", path, name, err.Error(), name))
		case !skip:
			servers = append(servers, s)
		}
	}
	return servers, problems
}

// parseMCPServer checks one entry; its error starts with the key at fault
// (".args: …") or ": " for the entry as a whole.
func parseMCPServer(name string, raw json.RawMessage, getenv func(string) string, secret func(name, value string) bool) (mcp.ServerConfig, bool, error) {
	s := mcp.ServerConfig{Name: name}
	if strings.TrimSpace(name) == "" {
		return s, false, errors.New(": the server name is empty")
	}
	var e mcpServerEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return s, false, keyError(raw, err)
	}
	if e.Disabled != nil && *e.Disabled {
		return s, true, nil
	}
	expand := func(key, v string) (string, error) { return expandVars(key, v, getenv, secret) }
	var err error
	if e.Command != nil {
		if s.Command, err = expand(".command", *e.Command); err != nil {
			return s, false, err
		}
	}
	if e.Args != nil {
		for i, a := range *e.Args {
			v, err := expand(fmt.Sprintf(".args[%d]", i), a)
			if err != nil {
				return s, false, err
			}
			s.Args = append(s.Args, v)
		}
	}
	if s.Env, err = expandMap(".env", e.Env, expand); err != nil {
		return s, false, err
	}
	if e.URL != nil {
		if s.URL, err = expand(".url", *e.URL); err != nil {
			return s, false, err
		}
	}
	if s.Headers, err = expandMap(".headers", e.Headers, expand); err != nil {
		return s, false, err
	}
	if e.Type != nil {
		switch *e.Type {
		case "stdio", "http", "streamable-http", "streamableHttp":
		case "sse":
			return s, false, errors.New(".type: the old SSE transport is not supported; use the server's streamable HTTP endpoint")
		default:
			return s, false, fmt.Errorf(".type: unknown transport %q (stdio or http)", *e.Type)
		}
	}
	switch {
	case s.Command != "" && s.URL != "":
		return s, false, errors.New(": has both \"command\" and \"url\"; give one")
	case s.Command == "" && s.URL == "":
		return s, false, errors.New(": needs \"command\" (a stdio server) or \"url\" (a streamable HTTP server)")
	case s.URL != "" && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://"):
		return s, false, fmt.Errorf(".url: %q is not an http:// or https:// URL", s.URL)
	}
	if e.Approve != nil {
		switch a := mcp.Approve(*e.Approve); a {
		case mcp.ApproveAlways, mcp.ApproveNever:
			s.Approve = a
		default:
			return s, false, fmt.Errorf(".approve: %q is neither \"always\" nor \"never\"", *e.Approve)
		}
	}
	if e.Timeout != nil {
		if *e.Timeout <= 0 {
			return s, false, fmt.Errorf(".timeout: %v is not a positive number of seconds", *e.Timeout)
		}
		s.Timeout = time.Duration(*e.Timeout * float64(time.Second))
	}
	if e.StartupTimeout != nil {
		if *e.StartupTimeout <= 0 {
			return s, false, fmt.Errorf(".startup_timeout: %v is not a positive number of seconds", *e.StartupTimeout)
		}
		s.StartTimeout = time.Duration(*e.StartupTimeout * float64(time.Second))
	}
	return s, false, nil
}

func expandMap(key string, m *map[string]string, expand func(key, v string) (string, error)) (map[string]string, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]string, len(*m))
	for k, v := range *m {
		x, err := expand(key+"."+k, v)
		if err != nil {
			return nil, err
		}
		out[k] = x
	}
	return out, nil
}

// envRef is ${NAME} or ${NAME:-default}, as Claude Code expands them.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expandVars replaces ${NAME} and ${NAME:-default} with rewind's own
// environment, so a file can pass a token the scrubbed environment of the
// servers would drop. An unset NAME without a default is an error, and so
// is a reference that would carry rewind's model key (secret): not through
// its own variable, nor through another variable holding the same value.
// A nil getenv keeps the references as written.
func expandVars(key, v string, getenv func(string) string, secret func(name, value string) bool) (string, error) {
	if getenv == nil {
		return v, nil
	}
	var missing, leaked string
	out := envRef.ReplaceAllStringFunc(v, func(ref string) string {
		m := envRef.FindStringSubmatch(ref)
		val := getenv(m[1])
		if secret != nil && secret(m[1], val) && leaked == "" {
			leaked = m[1]
		}
		if val != "" {
			return val
		}
		if m[2] != "" {
			return m[3]
		}
		if missing == "" {
			missing = m[1]
		}
		return ""
	})
	switch {
	case leaked != "":
		return "", fmt.Errorf("%s: ${%s} holds rewind's model key, which no MCP server gets; give the server a key of its own", key, leaked)
	case missing != "":
		return "", fmt.Errorf("%s: ${%s} is not set in the environment", key, missing)
	}
	return out, nil
}

// keyError names the key of a type error in a server entry.
func keyError(raw []byte, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Errorf(".%s: want %s, got JSON %s", te.Field, jsonTypeName(te.Type.String()), te.Value)
	}
	return fmt.Errorf(": not a server object (%s)", jsonError(raw, err))
}

func jsonTypeName(goType string) string {
	switch goType {
	case "string":
		return "a string"
	case "[]string":
		return "an array of strings"
	case "map[string]string":
		return "an object of strings"
	case "float64":
		return "a number"
	case "bool":
		return "true or false"
	}
	return goType
}

// jsonError is a JSON syntax error with its line and column.
func jsonError(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:se.Offset], []byte("\n"))
		col := int(se.Offset) - bytes.LastIndexByte(data[:se.Offset], '\n') - 1
		return fmt.Sprintf("line %d, column %d: %v", line, col, err)
	}
	return err.Error()
}

// startMCP starts the configured MCP servers in the background, in the work
// dir and with the scrubbed environment Shell gets. The caller closes the
// Manager, which kills every server's process group.
func startMCP(cfg Config, servers []mcp.ServerConfig, workDir string) *mcp.Manager {
	m := mcp.NewManager(servers, mcp.Options{WorkDir: workDir, Environ: cfg.ShellEnviron(), MaxTools: cfg.MCPMaxTools, MaxToolsPerServer: cfg.MCPMaxToolsPerServer})
	m.Start()
	return m
}
