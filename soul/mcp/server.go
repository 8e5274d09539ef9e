package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rewind-agent/rewind/internal/childproc"
	"github.com/rewind-agent/rewind/soul/tools"
)

// Shutdown timing: a stdio server gets closeGrace after its stdin closes
// (the spec's polite shutdown) before its whole process group is killed.
const (
	closeGrace     = time.Second
	terminateGrace = 500 * time.Millisecond
	// crashSettle is how long a failed call waits for the server's
	// connection to be seen closed, so it can say the server crashed.
	crashSettle = 500 * time.Millisecond
)

// server is one configured MCP server and its current connection.
type server struct {
	m      *Manager
	cfg    ServerConfig
	stderr *tailBuffer

	mu       sync.Mutex
	gen      int // bumped by every start and stop: stale goroutines see it and quit
	state    State
	err      string
	tools    []*Tool
	conn     *conn
	started  chan struct{} // closed when the current start ends, either way
	progress map[string]func(string)
	tokens   int
}

// conn is one connection to a server: the SDK session and, for stdio, the
// process group to kill.
type conn struct {
	// cancel ends the start (connect, initialize, first listing) early.
	cancel context.CancelFunc

	mu      sync.Mutex
	session *sdk.ClientSession
	pgid    int           // 0: no process (HTTP, in-memory) or not started yet
	untrack func()        // forgets pgid in tools' process-group registry
	killed  bool          // set by kill; a process starting later is killed at once
	done    chan struct{} // closed when the connection ended
}

func newServer(m *Manager, cfg ServerConfig) *server {
	started := make(chan struct{})
	close(started)
	return &server{m: m, cfg: cfg, stderr: &tailBuffer{max: 8 << 10}, state: StateStopped, started: started, progress: map[string]func(string){}}
}

// start begins connecting in the background.
func (s *server) start() {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.startTimeout())
	c := &conn{done: make(chan struct{}), cancel: cancel}
	s.mu.Lock()
	s.gen++
	gen := s.gen
	s.state, s.err, s.conn = StateStarting, "", c
	s.started = make(chan struct{})
	started := s.started
	s.mu.Unlock()
	s.m.changed()
	go s.connect(ctx, gen, c, started) // owner: this server; ends when the start succeeds, fails or is cancelled
}

func (s *server) connect(ctx context.Context, gen int, c *conn, started chan struct{}) {
	defer close(started)
	defer c.cancel()
	transport, err := s.transport(c)
	if err != nil {
		s.fail(gen, c, err.Error())
		return
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "rewind", Version: clientVersion()}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			s.onProgress(req.Params)
		},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			go s.refreshTools(gen) // owner: this connection; ends after one listing
		},
	})
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		s.fail(gen, c, s.startError(ctx, err))
		return
	}
	c.mu.Lock()
	c.session = cs
	killed := c.killed
	c.mu.Unlock()
	if killed { // stopped while connecting
		go cs.Close()
		return
	}
	go func() { // owner: this connection; ends when it closes
		_ = cs.Wait()
		close(c.done)
		s.exited(gen, c)
	}()
	list, err := s.listTools(ctx, cs)
	if err != nil {
		s.fail(gen, c, s.startError(ctx, fmt.Errorf("listing its tools: %w", err)))
		return
	}
	s.mu.Lock()
	if s.gen != gen {
		s.mu.Unlock()
		return
	}
	s.state, s.tools = StateReady, list
	s.mu.Unlock()
	s.m.changed()
}

// transport builds the SDK transport for the server's config.
func (s *server) transport(c *conn) (sdk.Transport, error) {
	if s.m.opts.Transport != nil {
		return s.m.opts.Transport(s.cfg)
	}
	if s.cfg.URL != "" {
		return &sdk.StreamableClientTransport{
			Endpoint:   s.cfg.URL,
			HTTPClient: &http.Client{Transport: headerTransport{headers: s.cfg.Headers}},
			MaxRetries: -1, // a dead server fails the start at once; /mcp restarts it
		}, nil
	}
	if strings.TrimSpace(s.cfg.Command) == "" {
		return nil, errors.New("no command and no url configured")
	}
	path, err := exec.LookPath(s.cfg.Command)
	if err != nil {
		return nil, fmt.Errorf("cannot start %q: %v", s.cfg.Command, errors.Unwrap(err))
	}
	cmd := exec.Command(path, s.cfg.Args...)
	cmd.Dir = s.m.opts.WorkDir
	env := s.m.opts.Environ
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append([]string(nil), env...)
	for k, v := range s.cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stderr = s.stderr
	cmd.WaitDelay = closeGrace
	// Its own process group, so that stopping it also stops what it started
	// (npx → node, uvx → python), dying with rewind (childproc).
	cmd.SysProcAttr = childproc.Attr()
	s.stderr.reset()
	return &commandTransport{inner: &sdk.CommandTransport{Command: cmd, TerminateDuration: terminateGrace}, conn: c}, nil
}

// commandTransport is the SDK's CommandTransport that records the process
// group it started, so that stop can kill it even mid-start.
type commandTransport struct {
	inner *sdk.CommandTransport
	conn  *conn
}

func (t *commandTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	var cn sdk.Connection
	// The SDK starts the process: from the thread childproc starts every
	// child from, for the parent-death signal.
	err := childproc.Do(func() (err error) {
		cn, err = t.inner.Connect(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	c := t.conn
	pgid := t.inner.Command.Process.Pid
	// Registered with Shell's groups: a signal that ends rewind at once
	// (a second Ctrl-C, a hang-up during shutdown) kills it too.
	untrack, ok := tools.TrackProcessGroup(pgid)
	c.mu.Lock()
	c.pgid, c.untrack = pgid, untrack
	killed := c.killed || !ok
	c.mu.Unlock()
	if killed {
		c.kill()
	}
	return cn, nil
}

// headerTransport adds the configured headers to every request.
type headerTransport struct{ headers map[string]string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// clientVersion is rewind's module version as the build recorded it
// ("(devel)" for a build from a checkout).
func clientVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}

// startError phrases why a start failed.
func (s *server) startError(ctx context.Context, err error) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("did not start within %s", s.cfg.startTimeout())
	}
	msg := oneLine(err.Error())
	if tail := s.stderr.lastLine(); tail != "" {
		// What the server said is what the user can act on.
		msg = tail + " (" + msg + ")"
	}
	return msg
}

// fail marks the start of generation gen failed and kills what it started.
func (s *server) fail(gen int, c *conn, reason string) {
	s.mu.Lock()
	current := s.gen == gen
	if current {
		s.state, s.err, s.conn = StateFailed, reason, nil
	}
	s.mu.Unlock()
	c.close()
	if current {
		s.m.changed()
	}
}

// exited is called when the connection of generation gen closed. Unless
// rewind closed it, the server crashed or quit.
func (s *server) exited(gen int, c *conn) {
	s.mu.Lock()
	if s.gen != gen || s.conn != c { // a stop, a restart or a failed start closed it
		s.mu.Unlock()
		return
	}
	reason := "the server exited"
	if tail := s.stderr.lastLine(); tail != "" {
		reason += "; its last output: " + tail
	}
	s.state, s.err, s.conn = StateFailed, reason, nil
	s.mu.Unlock()
	c.close()
	s.m.changed()
}

// stop closes the current connection and kills its process group.
func (s *server) stop() {
	s.mu.Lock()
	s.gen++
	c := s.conn
	s.conn = nil
	s.state, s.err = StateStopped, ""
	s.mu.Unlock()
	if c != nil {
		c.close()
	}
	s.m.changed()
}

// close ends the connection politely, then kills the process group. A
// start still under way is cancelled.
func (c *conn) close() {
	c.cancel()
	c.mu.Lock()
	cs, pid := c.session, c.pgid
	c.mu.Unlock()
	// What the server started, found while it still runs: a child that
	// left its group (setsid) is out of reach of the group kill below.
	var below []childproc.Proc
	if pid > 0 {
		below = childproc.Descendants(pid)
	}
	defer childproc.KillAll(below)
	if cs != nil {
		closed := make(chan struct{})
		go func() { // owner: this close; the SDK's Close is bounded by its own kill
			_ = cs.Close()
			close(closed)
		}()
		select {
		case <-closed:
		case <-time.After(closeGrace):
		}
	}
	c.kill()
}

// kill SIGKILLs the process group, now or as soon as it exists.
func (c *conn) kill() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.killed = true
	if c.pgid > 0 {
		_ = syscall.Kill(-c.pgid, syscall.SIGKILL)
	}
	if c.untrack != nil {
		c.untrack()
		c.untrack = nil
	}
}

// listTools lists the server's tools and adapts them.
func (s *server) listTools(ctx context.Context, cs *sdk.ClientSession) ([]*Tool, error) {
	var list []*Tool
	taken := map[string]bool{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		name := uniqueName(s.cfg.Name, t.Name, taken)
		taken[name] = true
		list = append(list, newTool(s, name, t))
	}
	return list, nil
}

// refreshTools lists the tools again after the server said they changed.
func (s *server) refreshTools(gen int) {
	s.mu.Lock()
	c := s.conn
	ok := s.gen == gen && s.state == StateReady && c != nil
	s.mu.Unlock()
	if !ok {
		return
	}
	c.mu.Lock()
	cs := c.session
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.timeout())
	defer cancel()
	list, err := s.listTools(ctx, cs)
	if err != nil {
		return // the old list stays; a call of a vanished tool gets the server's error
	}
	s.mu.Lock()
	if s.gen == gen {
		s.tools = list
	}
	s.mu.Unlock()
	s.m.changed()
}

// session returns the live session, waiting while the server starts (at
// most until ctx ends), or says why there is none.
func (s *server) session(ctx context.Context) (*sdk.ClientSession, *conn, error) {
	for {
		s.mu.Lock()
		state, reason, c, started := s.state, s.err, s.conn, s.started
		s.mu.Unlock()
		switch state {
		case StateReady:
			c.mu.Lock()
			cs := c.session
			c.mu.Unlock()
			return cs, c, nil
		case StateStarting:
			select {
			case <-started:
				continue
			case <-ctx.Done():
				return nil, nil, fmt.Errorf("MCP server %s is still starting", s.cfg.Name)
			}
		case StateFailed:
			return nil, nil, fmt.Errorf("MCP server %s is not running: %s", s.cfg.Name, reason)
		default:
			return nil, nil, fmt.Errorf("MCP server %s is stopped", s.cfg.Name)
		}
	}
}

func (s *server) waitStarted(ctx context.Context) error {
	s.mu.Lock()
	started := s.started
	s.mu.Unlock()
	select {
	case <-started:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// failure is the server's failure reason, if it failed.
func (s *server) failure() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StateFailed {
		return s.err
	}
	return ""
}

func (s *server) toolList() []*Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.cfg.Name, Transport: s.cfg.Transport(), State: s.state, Err: s.err}
	for _, t := range s.tools {
		st.Tools = append(st.Tools, ToolInfo{Name: t.name, Remote: t.remote, Description: t.description, ReadOnly: t.readOnly})
	}
	return st
}

// watchProgress routes the progress notifications of one call to out and
// returns the token to send and a function that stops the routing.
func (s *server) watchProgress(out func(string)) (string, func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens++
	token := fmt.Sprintf("rewind-%d", s.tokens)
	// The SDK handles notifications on another goroutine than responses:
	// one may come in after the call returned, when out must not be called.
	var callMu sync.Mutex
	open := true
	s.progress[token] = func(text string) {
		callMu.Lock()
		defer callMu.Unlock()
		if open {
			out(text)
		}
	}
	return token, func() {
		s.mu.Lock()
		delete(s.progress, token)
		s.mu.Unlock()
		callMu.Lock()
		open = false
		callMu.Unlock()
	}
}

func (s *server) onProgress(p *sdk.ProgressNotificationParams) {
	if p == nil {
		return
	}
	s.mu.Lock()
	out := s.progress[fmt.Sprint(p.ProgressToken)]
	s.mu.Unlock()
	if out == nil {
		return
	}
	line := "progress " + formatNumber(p.Progress)
	if p.Total > 0 {
		line += "/" + formatNumber(p.Total)
	}
	if msg := oneLine(p.Message); msg != "" {
		line += ": " + msg
	}
	out(line + "\n")
}

func formatNumber(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}

// oneLine joins the lines of s with spaces and trims it.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// tailBuffer keeps the last max bytes written to it (a server's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = append(b.buf[:0:0], b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) reset() {
	b.mu.Lock()
	b.buf = nil
	b.mu.Unlock()
}

// lastLine is the last non-empty line written, cut to 200 bytes.
func (b *tailBuffer) lastLine() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	lines := strings.Split(strings.TrimRight(string(b.buf), "\n"), "\n")
	line := strings.TrimSpace(lines[len(lines)-1])
	if len(line) > 200 {
		line = line[:200] + "…"
	}
	return strings.ToValidUTF8(line, "")
}
