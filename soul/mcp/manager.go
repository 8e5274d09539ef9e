package mcp

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul/tools"
)

// Options are the Manager's surroundings.
type Options struct {
	// WorkDir is where stdio servers run.
	WorkDir string
	// Environ is the base environment of stdio servers, already scrubbed of
	// rewind's secrets by the caller; nil means the process's environment.
	Environ []string
	// Transport, when set, replaces the transport a ServerConfig names
	// (tests use the SDK's in-memory transports). It is called for every
	// start and restart.
	Transport func(ServerConfig) (sdk.Transport, error)
	// MaxTools caps the tools offered in all, MaxToolsPerServer those of
	// one server (0: no cap). The first ones in config and listing order
	// are kept; Status says how many of each server's were left out.
	MaxTools          int
	MaxToolsPerServer int
}

// Manager owns the MCP servers of one rewind process.
type Manager struct {
	opts Options

	listMu  sync.Mutex // guards servers only: held for no I/O
	servers []*server  // config order; names are unique

	mu     sync.Mutex // held across starts, stops and Apply
	closed bool

	changeMu sync.Mutex
	onChange func()
}

// NewManager prepares the servers; nothing starts before Start.
func NewManager(cfgs []ServerConfig, opts Options) *Manager {
	m := &Manager{opts: opts}
	for _, c := range uniqueConfigs(cfgs) {
		m.servers = append(m.servers, newServer(m, c))
	}
	return m
}

// uniqueConfigs drops a config whose name came before.
func uniqueConfigs(cfgs []ServerConfig) []ServerConfig {
	var out []ServerConfig
	seen := map[string]bool{}
	for _, c := range cfgs {
		if !seen[c.Name] {
			seen[c.Name] = true
			out = append(out, c)
		}
	}
	return out
}

// list is the current servers, in config order.
func (m *Manager) list() []*server {
	m.listMu.Lock()
	defer m.listMu.Unlock()
	return m.servers
}

// Start starts every server in the background and returns at once.
func (m *Manager) Start() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	for _, s := range m.list() {
		s.start()
	}
}

// Apply makes cfgs the configured servers, as after the user trusted a
// project's file: a server whose config is unchanged keeps running, a new
// or changed one starts (in the background), one no longer configured
// stops. A closed Manager starts nothing.
func (m *Manager) Apply(cfgs []ServerConfig) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	old := map[string]*server{}
	for _, s := range m.list() {
		old[s.cfg.Name] = s
	}
	var next, fresh, gone []*server
	for _, c := range uniqueConfigs(cfgs) {
		if s, ok := old[c.Name]; ok && reflect.DeepEqual(s.cfg, c) {
			next = append(next, s)
			delete(old, c.Name)
			continue
		}
		s := newServer(m, c)
		next, fresh = append(next, s), append(fresh, s)
	}
	for _, s := range old {
		gone = append(gone, s)
	}
	m.listMu.Lock()
	m.servers = next
	m.listMu.Unlock()
	var wg sync.WaitGroup
	for _, s := range gone {
		wg.Add(1)
		go func() { // owner: this Apply, which waits
			defer wg.Done()
			s.stop()
		}()
	}
	wg.Wait()
	for _, s := range fresh {
		s.start()
	}
	m.changed()
}

// Wait blocks until no server is starting any more (each is ready or has
// failed), or ctx ends. Print mode waits so that the model sees the tools.
func (m *Manager) Wait(ctx context.Context) error {
	for _, s := range m.list() {
		if err := s.waitStarted(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Tools are the tools of the ready servers, in config order, within the
// caps of Options. A server's tools stay listed while it is failed, so that
// a call says why it cannot run instead of the tool vanishing from under
// the model.
func (m *Manager) Tools() []tools.Tool {
	var out []tools.Tool
	for _, s := range m.list() {
		list := s.toolList()
		list = list[:m.offered(len(out), len(list))]
		for _, t := range list {
			out = append(out, t)
		}
	}
	return out
}

// offered is how many of a server's n tools are offered when before tools
// of the servers ahead of it already are.
func (m *Manager) offered(before, n int) int {
	if c := m.opts.MaxToolsPerServer; c > 0 {
		n = min(n, c)
	}
	if c := m.opts.MaxTools; c > 0 {
		n = max(0, min(n, c-before))
	}
	return n
}

// Status is a snapshot of every server, in config order.
func (m *Manager) Status() []Status {
	servers := m.list()
	out := make([]Status, len(servers))
	before := 0
	for i, s := range servers {
		out[i] = s.status()
		n := m.offered(before, len(out[i].Tools))
		for j := n; j < len(out[i].Tools); j++ {
			out[i].Tools[j].LeftOut = true
		}
		out[i].LeftOut = len(out[i].Tools) - n
		before += n
	}
	return out
}

// Restart stops the named server (killing its process group) and starts it
// again in the background.
func (m *Manager) Restart(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return fmt.Errorf("MCP servers are shut down")
	}
	for _, s := range m.list() {
		if s.cfg.Name == name {
			s.stop()
			s.start()
			return nil
		}
	}
	return fmt.Errorf("no MCP server named %q", name)
}

// Close stops every server and kills their process groups. It is safe to
// call more than once; a closed Manager starts nothing.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range m.list() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.stop()
		}()
	}
	wg.Wait()
	return nil
}

// SetOnChange sets f to be called, from any goroutine, after a server's
// state or tool list changed. f must not block.
func (m *Manager) SetOnChange(f func()) {
	m.changeMu.Lock()
	m.onChange = f
	m.changeMu.Unlock()
}

func (m *Manager) changed() {
	m.changeMu.Lock()
	f := m.onChange
	m.changeMu.Unlock()
	if f != nil {
		f()
	}
}

// State is where a server is in its life.
type State string

const (
	StateStarting State = "starting"
	StateReady    State = "ready"
	StateFailed   State = "failed"  // never started, crashed or exited
	StateStopped  State = "stopped" // by Close
)

// Status describes one server for /mcp and the status bar.
type Status struct {
	Name      string
	Transport string // "stdio" or "http"
	State     State
	Err       string // why it failed, one line
	Tools     []ToolInfo
	// LeftOut counts the tools not offered to the model: over
	// Options.MaxToolsPerServer or Options.MaxTools (marked in Tools).
	LeftOut int
}

// ToolInfo describes one tool of a server.
type ToolInfo struct {
	Name        string // as the model sees it (mcp__server__tool)
	Remote      string // as the server names it
	Description string
	ReadOnly    bool
	LeftOut     bool // over a cap: not offered to the model
}

// LeftOutNotice is one line naming the tools the caps left out, "" when
// none was: each server with how many of its tools are not offered.
func LeftOutNotice(status []Status) string {
	var parts []string
	total := 0
	for _, st := range status {
		if st.LeftOut == 0 {
			continue
		}
		total += st.LeftOut
		first := ""
		for _, t := range st.Tools {
			if t.LeftOut {
				first = t.Remote
				break
			}
		}
		parts = append(parts, fmt.Sprintf("%s: %d of %d, from %s on", st.Name, st.LeftOut, len(st.Tools), first))
	}
	if total == 0 {
		return ""
	}
	return fmt.Sprintf("%d MCP %s left out, over the tool caps (mcp_max_tools, mcp_max_tools_per_server in config.toml): %s",
		total, words.Plural(total, "tool", "tools"), strings.Join(parts, "; "))
}
