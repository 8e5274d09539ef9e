package mcp

import (
	"sort"
	"strings"
	"time"
)

// DefaultTimeout bounds one tool call, and a server's start (connect,
// initialize and the first tool listing), unless ServerConfig.Timeout or
// StartTimeout says otherwise.
const DefaultTimeout = 60 * time.Second

// Approve is a server's approval policy.
type Approve string

const (
	// ApproveAuto asks before calling a tool unless the server annotates it
	// readOnlyHint.
	ApproveAuto Approve = ""
	// ApproveAlways asks before every call, read-only or not (for a server
	// whose annotations are not trusted).
	ApproveAlways Approve = "always"
	// ApproveNever calls without asking (a trusted server).
	ApproveNever Approve = "never"
)

// ServerConfig is one MCP server: a command speaking stdio, or a URL
// speaking streamable HTTP.
type ServerConfig struct {
	Name string

	// stdio: the command runs in the work dir, in its own process group,
	// with Options.Environ plus Env.
	Command string
	Args    []string
	Env     map[string]string

	// streamable HTTP: Headers go with every request (e.g. Authorization).
	URL     string
	Headers map[string]string

	Approve Approve
	// Timeout bounds each call, and the start when StartTimeout is 0; 0
	// means DefaultTimeout.
	Timeout time.Duration
	// StartTimeout bounds the start alone (a first npx download can take
	// longer than any call should); 0 means Timeout.
	StartTimeout time.Duration
}

// Transport names how a server is reached: "stdio" or "http".
func (c ServerConfig) Transport() string {
	if c.URL != "" {
		return "http"
	}
	return "stdio"
}

func (c ServerConfig) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

func (c ServerConfig) startTimeout() time.Duration {
	if c.StartTimeout > 0 {
		return c.StartTimeout
	}
	return c.timeout()
}

// CommandLine is the server's command and arguments as a shell would read
// them (ShellQuote), or its URL.
func (c ServerConfig) CommandLine() string {
	if c.URL != "" {
		return c.URL
	}
	parts := []string{ShellQuote(c.Command)}
	for _, a := range c.Args {
		parts = append(parts, ShellQuote(a))
	}
	return strings.Join(parts, " ")
}

// EnvNames are the variables the server sets, sorted.
func (c ServerConfig) EnvNames() []string { return sortedKeys(c.Env) }

// HeaderNames are the headers the server sends, sorted.
func (c ServerConfig) HeaderNames() []string { return sortedKeys(c.Headers) }

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>(){}*?!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
