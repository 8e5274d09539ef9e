package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rewind-agent/rewind/soul/mcp/mcptest"
	"github.com/rewind-agent/rewind/soul/tools"
)

func TestMain(m *testing.M) {
	mcptest.ServeIfAsked()
	os.Exit(m.Run())
}

// inMemory serves a fresh test server over the SDK's in-memory transport
// for every start.
func inMemory(t *testing.T) func(ServerConfig) (sdk.Transport, error) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return func(ServerConfig) (sdk.Transport, error) {
		client, server := sdk.NewInMemoryTransports()
		go func() { _ = mcptest.NewServer().Run(ctx, server) }()
		return client, nil
	}
}

func stdio(name string, extraEnv map[string]string) ServerConfig {
	cmd, args, env := mcptest.Command()
	for k, v := range extraEnv {
		env[k] = v
	}
	return ServerConfig{Name: name, Command: cmd, Args: args, Env: env}
}

// started starts a manager and waits until no server is starting.
func started(t *testing.T, opts Options, cfgs ...ServerConfig) *Manager {
	t.Helper()
	if opts.WorkDir == "" {
		opts.WorkDir = t.TempDir()
	}
	m := NewManager(cfgs, opts)
	t.Cleanup(func() { m.Close() })
	m.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Wait(ctx); err != nil {
		t.Fatalf("servers did not start: %v", err)
	}
	return m
}

func toolNamed(t *testing.T, m *Manager, name string) tools.Tool {
	t.Helper()
	for _, tl := range m.Tools() {
		if tl.Name() == name {
			return tl
		}
	}
	t.Fatalf("no tool %s; status %+v", name, m.Status())
	return nil
}

func call(t *testing.T, m *Manager, name, args string, env *tools.Env) tools.Result {
	t.Helper()
	return toolNamed(t, m, name).Call(context.Background(), env, json.RawMessage(args))
}

func TestToolListing(t *testing.T) {
	t.Parallel()
	m := started(t, Options{Transport: inMemory(t)}, ServerConfig{Name: "test"})
	st := m.Status()
	if len(st) != 1 || st[0].State != StateReady || st[0].Err != "" {
		t.Fatalf("status = %+v", st)
	}
	names := map[string]ToolInfo{}
	for _, ti := range st[0].Tools {
		names[ti.Name] = ti
	}
	for _, want := range []string{"echo", "add", "fail", "crash", "hang", "slow", "picture", "touch", "big", "getenv"} {
		if _, ok := names["mcp__test__"+want]; !ok {
			t.Errorf("tool %s not listed; got %v", want, names)
		}
	}
	if !names["mcp__test__echo"].ReadOnly || names["mcp__test__touch"].ReadOnly {
		t.Errorf("readOnlyHint not carried: echo %v, touch %v", names["mcp__test__echo"].ReadOnly, names["mcp__test__touch"].ReadOnly)
	}
	echo := toolNamed(t, m, "mcp__test__echo")
	if echo.Description() != "Echo the text back." {
		t.Errorf("description = %q", echo.Description())
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(echo.Schema(), &schema); err != nil || schema.Type != "object" || schema.Properties["text"] == nil {
		t.Errorf("schema = %s (%v)", echo.Schema(), err)
	}
}

func TestCallResults(t *testing.T) {
	t.Parallel()
	m := started(t, Options{Transport: inMemory(t)}, ServerConfig{Name: "test"})
	cases := []struct {
		tool, args string
		isErr      bool
		want       []string
	}{
		{"echo", `{"text":"hi"}`, false, []string{"echo: hi"}},
		{"add", `{"a":1,"b":2}`, false, []string{`"sum":3`}},
		{"picture", `{}`, false, []string{"here it is", "[image: image/png, 2.0 KB; not shown]", "[resource link: file:///tmp/picture.png (picture.png), image/png]"}},
		{"fail", `{}`, true, []string{"it failed on purpose"}},
		{"big", `{}`, false, []string{"BEGIN", "bytes elided", "END"}},
		{"echo", `{"text":5}`, true, []string{"text"}},
	}
	for _, c := range cases {
		res := call(t, m, "mcp__test__"+c.tool, c.args, nil)
		if res.IsError != c.isErr {
			t.Errorf("%s: IsError = %v, output %q", c.tool, res.IsError, res.Output)
		}
		for _, w := range c.want {
			if !strings.Contains(res.Output, w) {
				t.Errorf("%s: output %q lacks %q", c.tool, clip(res.Output), w)
			}
		}
		if len(res.Output) > 41<<10 {
			t.Errorf("%s: output of %d bytes is not capped", c.tool, len(res.Output))
		}
	}
	// Structured content also sent as text is shown once.
	if out := call(t, m, "mcp__test__add", `{"a":1,"b":2}`, nil).Output; strings.Count(out, "sum") != 1 {
		t.Errorf("structured content repeated: %q", out)
	}
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func TestStdioCrashMidCallAndRestart(t *testing.T) {
	t.Parallel()
	m := started(t, Options{}, stdio("local", nil))
	if res := call(t, m, "mcp__local__echo", `{"text":"one"}`, nil); res.IsError || res.Output != "echo: one" {
		t.Fatalf("echo over stdio = %+v", res)
	}
	res := call(t, m, "mcp__local__crash", `{}`, nil)
	if !res.IsError || !strings.Contains(res.Output, "stopped during the call") || !strings.Contains(res.Output, "crashing on purpose") {
		t.Fatalf("crash = %+v", res)
	}
	st := m.Status()[0]
	if st.State != StateFailed || !strings.Contains(st.Err, "exited") {
		t.Fatalf("status after crash = %+v", st)
	}
	// Its tools stay listed and say why they cannot run, without asking
	// for an approval first.
	asked := false
	env := &tools.Env{Approve: func(context.Context, tools.Approval) tools.Decision {
		asked = true
		return tools.Decision{Approved: true}
	}}
	res = call(t, m, "mcp__local__touch", `{"path":"x","content":"y"}`, env)
	if !res.IsError || !strings.Contains(res.Output, "is not running") || !strings.Contains(res.Output, "/mcp") || asked {
		t.Fatalf("touch after crash = %+v (asked: %v)", res, asked)
	}
	if err := m.Restart("local"); err != nil {
		t.Fatal(err)
	}
	// A call during the restart waits for it.
	if res := call(t, m, "mcp__local__echo", `{"text":"three"}`, nil); res.IsError || res.Output != "echo: three" {
		t.Fatalf("echo after restart = %+v", res)
	}
	if err := m.Restart("nope"); err == nil {
		t.Error("restarting an unknown server did not fail")
	}
}

func TestHangPastTheTimeout(t *testing.T) {
	t.Parallel()
	// The start has a bound of its own, a minute: the call timeout is what
	// is checked here, and a start under the race detector on a loaded
	// machine is not bounded by it. The second is the echo's after it.
	m := started(t, Options{Transport: inMemory(t)}, ServerConfig{Name: "test", Timeout: time.Second, StartTimeout: time.Minute})
	res := call(t, m, "mcp__test__hang", `{}`, nil)
	if !res.IsError || !strings.Contains(res.Output, "did not answer the call of hang within 1s") || res.Brief != "timed out after 1s" {
		t.Fatalf("hang = %+v", res)
	}
	// The server is still up for the next call.
	if res := call(t, m, "mcp__test__echo", `{"text":"still here"}`, nil); res.IsError {
		t.Fatalf("echo after a timeout = %+v", res)
	}
}

func TestServerThatNeverStarts(t *testing.T) {
	t.Parallel()
	m := started(t, Options{},
		ServerConfig{Name: "missing", Command: "/nonexistent/mcp-server"},
		stdio("broken", map[string]string{mcptest.FailStartEnv: "no credentials configured"}),
		ServerConfig{Name: "http", URL: "http://127.0.0.1:1/mcp"},
		stdio("good", nil),
	)
	st := m.Status()
	want := map[string]string{"missing": "cannot start", "broken": "no credentials configured", "http": "connect"}
	for _, s := range st[:3] {
		if s.State != StateFailed || !strings.Contains(s.Err, want[s.Name]) {
			t.Errorf("%s: %s %q, want failed with %q", s.Name, s.State, s.Err, want[s.Name])
		}
	}
	if st[3].State != StateReady {
		t.Errorf("good server: %+v", st[3])
	}
}

func TestSlowStartTimesOut(t *testing.T) {
	t.Parallel()
	// A command that never speaks MCP: the start times out, then the
	// process is killed. The call timeout bounds the start unless the
	// start's own says otherwise.
	m := started(t, Options{},
		ServerConfig{Name: "mute", Command: "sleep", Args: []string{"300"}, Timeout: 300 * time.Millisecond},
		ServerConfig{Name: "mute-start", Command: "sleep", Args: []string{"300"}, Timeout: time.Minute, StartTimeout: 300 * time.Millisecond},
	)
	for _, st := range m.Status() {
		if st.State != StateFailed || !strings.Contains(st.Err, "did not start within 300ms") {
			t.Errorf("status = %+v", st)
		}
	}
}

// A start's own timeout lets a server take longer to start than a call may
// take: the start below is held past the call timeout, then the calls are
// bounded by the call timeout alone.
func TestStartTimeoutIsTheStartsOwn(t *testing.T) {
	t.Parallel()
	const callTimeout = 50 * time.Millisecond
	serve := inMemory(t)
	m := started(t, Options{Transport: func(cfg ServerConfig) (sdk.Transport, error) {
		tr, err := serve(cfg)
		return heldTransport{inner: tr, hold: 2 * callTimeout}, err
	}}, ServerConfig{Name: "test", Timeout: callTimeout, StartTimeout: time.Minute})
	if st := m.Status()[0]; st.State != StateReady {
		t.Fatalf("a start longer than the call timeout failed: %+v", st)
	}
	if res := call(t, m, "mcp__test__hang", `{}`, nil); res.Brief != "timed out after 50ms" {
		t.Fatalf("hang = %+v", res)
	}
}

// heldTransport connects after hold, or fails when the start ends first.
type heldTransport struct {
	inner sdk.Transport
	hold  time.Duration
}

func (h heldTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	// A timer, not a wait on the test: what is held is the start's clock.
	select {
	case <-time.After(h.hold):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return h.inner.Connect(ctx)
}

func TestHTTPTransportWithHeaders(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var auth []string
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcptest.NewServer() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	m := started(t, Options{}, ServerConfig{Name: "web", URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer t0k"}})
	if st := m.Status()[0]; st.State != StateReady || st.Transport != "http" {
		t.Fatalf("status = %+v", st)
	}
	if res := call(t, m, "mcp__web__echo", `{"text":"over http"}`, nil); res.IsError || res.Output != "echo: over http" {
		t.Fatalf("echo = %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, a := range auth {
		if a != "Bearer t0k" {
			t.Fatalf("a request went without the header: %q", auth)
		}
	}
}

func TestApprovals(t *testing.T) {
	t.Parallel()
	type asked struct{ tool, action string }
	run := func(approve Approve, tool string, answer bool) ([]asked, tools.Result, string) {
		wd := t.TempDir()
		m := started(t, Options{WorkDir: wd}, func() ServerConfig { c := stdio("s", nil); c.Approve = approve; return c }())
		var got []asked
		env := &tools.Env{WorkDir: wd, Approve: func(_ context.Context, a tools.Approval) tools.Decision {
			got = append(got, asked{a.Tool, a.Action})
			return tools.Decision{Approved: answer, Feedback: "not now"}
		}}
		args := `{"text":"x"}`
		if tool == "touch" {
			args = `{"path":"f.txt","content":"x"}`
		}
		res := call(t, m, "mcp__s__"+tool, args, env)
		return got, res, wd
	}
	// Default: a tool without readOnlyHint asks; a read-only one does not.
	got, res, wd := run(ApproveAuto, "touch", false)
	if len(got) != 1 || got[0].tool != "mcp__s__touch" || got[0].action != "call MCP tool mcp__s__touch" {
		t.Errorf("asked %v", got)
	}
	if !res.Rejected || !strings.Contains(res.Output, "not now") {
		t.Errorf("rejected call = %+v", res)
	}
	if _, err := os.Stat(filepath.Join(wd, "f.txt")); err == nil {
		t.Error("a rejected call ran")
	}
	if got, res, _ := run(ApproveAuto, "echo", false); len(got) != 0 || res.IsError {
		t.Errorf("read-only tool: asked %v, result %+v", got, res)
	}
	if got, res, wd := run(ApproveNever, "touch", false); len(got) != 0 || res.IsError {
		t.Errorf("approve never: asked %v, result %+v", got, res)
	} else if _, err := os.Stat(filepath.Join(wd, "f.txt")); err != nil {
		t.Errorf("the approved call did not write in the work dir: %v", err)
	}
	if got, _, _ := run(ApproveAlways, "echo", true); len(got) != 1 {
		t.Errorf("approve always: asked %v", got)
	}
}

// countingTracker records AroundShell scans.
type countingTracker struct {
	mu            sync.Mutex
	before, after int
}

func (c *countingTracker) BeforeWrite(context.Context, []string) ([]tools.NotKeptFile, error) {
	return nil, nil
}
func (c *countingTracker) AroundShell(context.Context) (func(context.Context) ([]tools.NotKeptFile, error), error) {
	c.mu.Lock()
	c.before++
	c.mu.Unlock()
	return func(context.Context) ([]tools.NotKeptFile, error) {
		c.mu.Lock()
		c.after++
		c.mu.Unlock()
		return nil, nil
	}, nil
}

func TestCallsAreScannedForFileChanges(t *testing.T) {
	t.Parallel()
	// 200 ms for the hang's call; the start's bound is a minute, not the
	// 200 ms a loaded machine under the race detector missed.
	m := started(t, Options{Transport: inMemory(t)}, ServerConfig{Name: "test", Approve: ApproveNever, Timeout: 200 * time.Millisecond, StartTimeout: time.Minute})
	tr := &countingTracker{}
	env := &tools.Env{Files: tr}
	call(t, m, "mcp__test__echo", `{"text":"x"}`, env) // read-only: no scan
	call(t, m, "mcp__test__fail", `{}`, env)
	call(t, m, "mcp__test__hang", `{}`, env) // times out: still scanned after
	if tr.before != 2 || tr.after != 2 {
		t.Errorf("scans before %d, after %d; want 2 and 2", tr.before, tr.after)
	}
}

func TestProgressIsLiveOutput(t *testing.T) {
	t.Parallel()
	m := started(t, Options{Transport: inMemory(t)}, ServerConfig{Name: "test", Approve: ApproveNever})
	var mu sync.Mutex
	var live strings.Builder
	env := &tools.Env{Output: func(s string) { mu.Lock(); live.WriteString(s); mu.Unlock() }}
	res := call(t, m, "mcp__test__slow", `{"steps":3}`, env)
	if res.IsError || res.Output != "done after 3 steps" {
		t.Fatalf("slow = %+v", res)
	}
	// A notification handled after the result is dropped (Output is called
	// only before Call returns); those sent 50 ms before it arrive.
	mu.Lock()
	defer mu.Unlock()
	if got := live.String(); !strings.HasPrefix(got, "progress 1/3: step 1\nprogress 2/3: step 2\n") {
		t.Errorf("live output = %q", got)
	}
}

func serverPIDs(t *testing.T, file string) []int {
	t.Helper()
	pids, err := mcptest.ReadPIDs(file, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return pids
}

func waitGone(t *testing.T, pids []int) {
	t.Helper()
	if pid := mcptest.WaitGone(pids, 10*time.Second); pid != 0 {
		t.Fatalf("process %d (of %v) still runs", pid, pids)
	}
}

func TestCloseKillsTheProcessGroup(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pids")
	m := started(t, Options{}, stdio("s", map[string]string{mcptest.PIDFileEnv: pidFile}))
	pids := serverPIDs(t, pidFile)
	for _, pid := range pids {
		if !mcptest.Running(pid) {
			t.Fatalf("process %d is not running before Close", pid)
		}
	}
	start := time.Now()
	m.Close()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %s", d)
	}
	waitGone(t, pids)
	// A closed manager starts nothing.
	m.Start()
	if err := m.Restart("s"); err == nil {
		t.Error("restart after Close did not fail")
	}
}

// A child the server moved out of its process group (setsid) is killed
// too: it is found below the server before the server is stopped.
func TestCloseKillsASetsidChild(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pids")
	m := started(t, Options{}, stdio("s", map[string]string{mcptest.PIDFileEnv: pidFile, mcptest.SetsidEnv: "1"}))
	pids := serverPIDs(t, pidFile)
	t.Cleanup(func() {
		for _, pid := range pids {
			if mcptest.Running(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	m.Close()
	waitGone(t, pids)
}

func TestRestartKillsTheOldProcessGroup(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pids")
	m := started(t, Options{}, stdio("s", map[string]string{mcptest.PIDFileEnv: pidFile}))
	old := serverPIDs(t, pidFile)
	os.Remove(pidFile)
	if err := m.Restart("s"); err != nil {
		t.Fatal(err)
	}
	waitGone(t, old)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Wait(ctx); err != nil || m.Status()[0].State != StateReady {
		t.Fatalf("after restart: %v %+v", err, m.Status())
	}
}

func TestChangeNotifications(t *testing.T) {
	t.Parallel()
	changes := make(chan struct{}, 100)
	m := NewManager([]ServerConfig{{Name: "test"}}, Options{Transport: inMemory(t)})
	t.Cleanup(func() { m.Close() })
	m.SetOnChange(func() { changes <- struct{}{} })
	m.Start()
	if err := m.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(changes) < 2 { // starting, ready
		t.Errorf("%d change notifications for a start", len(changes))
	}
	m.Close()
	if st := m.Status()[0]; st.State != StateStopped {
		t.Errorf("after Close: %+v", st)
	}
}

func TestCloseCancelsAStartUnderWay(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	// The server never answers: the start would wait a minute.
	m := NewManager([]ServerConfig{{Name: "mute", Timeout: time.Minute}}, Options{Transport: func(ServerConfig) (sdk.Transport, error) {
		return mcptest.MuteTransport(ctx), nil
	}})
	m.Start()
	if st := m.Status()[0]; st.State != StateStarting {
		t.Fatalf("status = %+v", st)
	}
	start := time.Now()
	m.Close()
	waitCtx, waitCancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer waitCancel()
	if err := m.Wait(waitCtx); err != nil {
		t.Fatalf("the start was not cancelled: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close and the end of the start took %s", d)
	}
	if st := m.Status()[0]; st.State != StateStopped {
		t.Errorf("status after Close = %+v", st)
	}
}
