package mcp

import (
	"context"
	"fmt"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

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
}

// Manager owns the MCP servers of one rewind process.
type Manager struct {
	opts    Options
	servers []*server // config order; names are unique

	mu     sync.Mutex // held across starts and stops
	closed bool

	changeMu sync.Mutex
	onChange func()
}

// NewManager prepares the servers; nothing starts before Start.
func NewManager(cfgs []ServerConfig, opts Options) *Manager {
	m := &Manager{opts: opts}
	seen := map[string]bool{}
	for _, c := range cfgs {
		if seen[c.Name] {
			continue
		}
		seen[c.Name] = true
		m.servers = append(m.servers, newServer(m, c))
	}
	return m
}

// Start starts every server in the background and returns at once.
func (m *Manager) Start() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	for _, s := range m.servers {
		s.start()
	}
}

// Wait blocks until no server is starting any more (each is ready or has
// failed), or ctx ends. Print mode waits so that the model sees the tools.
func (m *Manager) Wait(ctx context.Context) error {
	for _, s := range m.servers {
		if err := s.waitStarted(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Tools are the tools of the ready servers, in config order. A server's
// tools stay listed while it is failed, so that a call says why it cannot
// run instead of the tool vanishing from under the model.
func (m *Manager) Tools() []tools.Tool {
	var out []tools.Tool
	for _, s := range m.servers {
		for _, t := range s.toolList() {
			out = append(out, t)
		}
	}
	return out
}

// Status is a snapshot of every server, in config order.
func (m *Manager) Status() []Status {
	out := make([]Status, len(m.servers))
	for i, s := range m.servers {
		out[i] = s.status()
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
	for _, s := range m.servers {
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
	for _, s := range m.servers {
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
}

// ToolInfo describes one tool of a server.
type ToolInfo struct {
	Name        string // as the model sees it (mcp__server__tool)
	Remote      string // as the server names it
	Description string
	ReadOnly    bool
}
