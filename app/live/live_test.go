package live

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

// home is a short private REWIND_HOME (socket paths must stay under 108
// bytes, which a long t.TempDir() name may not).
func home(t testing.TB) string {
	t.Helper()
	d, err := os.MkdirTemp("", "rwl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func listen(t *testing.T, h, id string, allow bool) *Publisher {
	t.Helper()
	p, err := Listen(Options{Home: h, Hello: Hello{SessionID: id, Title: "t", WorkDir: "/w"}, AllowRemoteApproval: allow})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func dial(t *testing.T, h, id string) *Conn {
	t.Helper()
	c, err := Dial(context.Background(), h, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// next reads the next event, failing after a few seconds.
func next(t *testing.T, c *Conn) soul.Event {
	t.Helper()
	select {
	case e, ok := <-c.Events():
		if !ok {
			t.Fatalf("events closed: %v", c.Err())
		}
		return e
	case <-time.After(30 * time.Second): // a timeout, not a bound
		t.Fatal("no event")
	}
	return nil
}

// TestWatcherConnectsMidStep: a watcher that connects while a step streams
// gets the step so far (deltas merged), then the rest live, in order.
func TestWatcherConnectsMidStep(t *testing.T) {
	t.Parallel()
	h := home(t)
	p := listen(t, h, "s1", false)
	p.Publish(soul.StepBegin{N: 1, Checkpoint: 0})
	p.Publish(soul.StepBegin{N: 2, Checkpoint: 1}) // a new step drops the old one
	p.Publish(soul.ReasoningPart{Text: "let me "})
	p.Publish(soul.ReasoningPart{Text: "think"})
	p.Publish(soul.ContentPart{Text: "hel"})
	p.Publish(soul.ContentPart{Text: "lo"})
	p.Publish(soul.StatusUpdate{Step: 2, Tokens: 6800, MaxContext: 128000})
	c := dial(t, h, "s1")
	if c.Hello.SessionID != "s1" || c.Hello.Run.State != StateStreaming || c.Hello.Run.Step != 2 || c.Hello.Run.Tokens != 6800 || c.Hello.PID != os.Getpid() {
		t.Fatalf("hello %+v", c.Hello)
	}
	want := []soul.Event{
		soul.StepBegin{N: 2, Checkpoint: 1},
		soul.ReasoningPart{Text: "let me think"},
		soul.ContentPart{Text: "hello"},
		soul.StatusUpdate{Step: 2, Tokens: 6800, MaxContext: 128000},
	}
	for _, w := range want {
		if got := next(t, c); got != w {
			t.Fatalf("replay: got %#v, want %#v", got, w)
		}
	}
	p.Publish(soul.ContentPart{Text: " world"})
	if got := next(t, c); got != (soul.ContentPart{Text: " world"}) {
		t.Fatalf("live: %#v", got)
	}
	p.Publish(soul.RunEnd{Reason: "done", Steps: 2})
	if got := next(t, c); got != (soul.RunEnd{Reason: "done", Steps: 2}) {
		t.Fatalf("end: %#v", got)
	}
	// After the run nothing is replayed.
	c2 := dial(t, h, "s1")
	if c2.Hello.Run.State != StateIdle || c2.Hello.Run.LastEnd != "done" {
		t.Fatalf("hello after the run: %+v", c2.Hello.Run)
	}
	p.Publish(soul.StatusUpdate{Step: 3})
	if got := next(t, c2); got != (soul.StatusUpdate{Step: 3}) {
		t.Fatalf("after the run: %#v", got)
	}
}

// TestTwoWatchersAtOnce: both get every event, in order.
func TestTwoWatchersAtOnce(t *testing.T) {
	t.Parallel()
	h := home(t)
	p := listen(t, h, "s2", false)
	a, b := dial(t, h, "s2"), dial(t, h, "s2")
	p.Publish(soul.StepBegin{N: 1})
	for i := range 100 {
		p.Publish(soul.ToolOutput{ID: "c", Text: string(rune('a' + i%26))})
	}
	for _, c := range []*Conn{a, b} {
		if got := next(t, c); got != (soul.StepBegin{N: 1}) {
			t.Fatalf("%#v", got)
		}
		var text strings.Builder
		for text.Len() < 100 {
			text.WriteString(next(t, c).(soul.ToolOutput).Text)
		}
		if !strings.HasPrefix(text.String(), "abcdefghijklmnopqrstuvwxyzabc") {
			t.Fatalf("out of order: %q", text.String())
		}
	}
}

// TestListAsksForTheHelloOnly: the runs view lists every writer each
// second; a listing must not make the writer encode and queue its step in
// flight (it did, for a connection that hung up after the hello), while a
// watcher still gets it.
func TestListAsksForTheHelloOnly(t *testing.T) {
	t.Parallel()
	h := home(t)
	p := listen(t, h, "s3", false)
	p.Publish(soul.StepBegin{N: 1})
	for range 50 {
		p.Publish(soul.ToolCallPart{ID: "c", Name: "Shell"})
	}
	for range 5 {
		runs, err := List(context.Background(), h)
		if err != nil || len(runs) != 1 || runs[0].SessionID != "s3" || runs[0].Run.Step != 1 {
			t.Fatalf("List = %+v, %v", runs, err)
		}
	}
	if n := p.replayed.Load(); n != 0 {
		t.Fatalf("5 listings replayed %d events of the step in flight", n)
	}
	c := dial(t, h, "s3")
	if got := next(t, c); got != (soul.StepBegin{N: 1}) {
		t.Fatalf("the watcher's first event: %#v", got)
	}
	if p.replayed.Load() == 0 {
		t.Fatal("a watcher's replay was not counted: the test checks nothing")
	}
}

// TestWatcherWithoutJoin: a watcher older than the Join line sends nothing
// first; it still gets the hello, the step in flight and what follows.
func TestWatcherWithoutJoin(t *testing.T) {
	t.Parallel()
	h := home(t)
	p := listen(t, h, "s4", false)
	p.Publish(soul.StepBegin{N: 1})
	p.Publish(soul.ContentPart{Text: "partial"})
	path, err := SocketPath(h, "s4")
	if err != nil {
		t.Fatal(err)
	}
	nc, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sc := bufio.NewScanner(nc)
	var got []soul.Event
	for len(got) < 4 && sc.Scan() {
		e, err := decode(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if _, ping := e.(Ping); ping {
			continue
		}
		got = append(got, e)
		if len(got) == 3 {
			p.Publish(soul.ContentPart{Text: " more"})
		}
	}
	if len(got) != 4 {
		t.Fatalf("read %d events (%v): %v", len(got), sc.Err(), got)
	}
	if hello, ok := got[0].(Hello); !ok || hello.SessionID != "s4" {
		t.Fatalf("first line %#v, want the hello", got[0])
	}
	want := []soul.Event{soul.StepBegin{N: 1}, soul.ContentPart{Text: "partial"}, soul.ContentPart{Text: " more"}}
	for i, w := range want {
		if got[i+1] != w {
			t.Fatalf("event %d: %#v, want %#v", i+1, got[i+1], w)
		}
	}
}

// TestSocketPermissionsAndCleanup: only the user can reach the socket; it
// is gone after Close; one left by a dead writer is replaced and listed as
// nothing.
func TestSocketPermissionsAndCleanup(t *testing.T) {
	t.Parallel()
	h := home(t)
	p := listen(t, h, "s3", false)
	st, err := os.Stat(Dir(h))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("run dir mode %v, %v", st.Mode().Perm(), err)
	}
	st, err = os.Stat(p.Path())
	if err != nil || st.Mode().Perm() != 0o600 || st.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket mode %v, %v", st.Mode(), err)
	}
	if _, err := Listen(Options{Home: h, Hello: Hello{SessionID: "s3"}}); err == nil {
		t.Fatal("a second publisher of a live session was allowed")
	}
	p.Close()
	if _, err := os.Stat(p.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left after Close: %v", err)
	}
	// A socket whose writer died: still on disk, nobody accepts.
	stale := filepath.Join(Dir(h), "dead.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := Dial(context.Background(), h, "dead"); !errors.Is(err, ErrNoWriter) {
		t.Fatalf("dial a dead writer: %v", err)
	}
	runs, err := List(context.Background(), h)
	if err != nil || len(runs) != 0 {
		t.Fatalf("runs %v, %v", runs, err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("List left the stale socket")
	}
	p2 := listen(t, h, "dead", false) // a new writer of that session
	if runs, _ := List(context.Background(), h); len(runs) != 1 || runs[0].SessionID != "dead" {
		t.Fatalf("runs %+v", runs)
	}
	p2.Close()
}

// approvalRun runs a real Soul that asks to run a Shell command, publishing
// its events, and returns the request as a watcher sees it.
func approvalRun(t *testing.T, p *Publisher, c *Conn) (*soul.ApprovalRequest, chan error) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db := storetest.OpenAt(t, filepath.Join(dir, "rewind.db"), store.Options{})
	sess, err := db.CreateSession(ctx, store.NewSession{WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Calls(llmtest.Call("c1", "Shell", map[string]any{"command": "echo hi > out.txt"})), llmtest.Text("done"))
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	s := soul.New(soul.Config{}, db, sess.ID, client, tools.Default(), dir, p.Publish)
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, "make out.txt") }()
	for {
		if req, ok := next(t, c).(*soul.ApprovalRequest); ok {
			return req, done
		}
	}
}

// TestRemoteApproval: a watcher's answer runs the tool when the writer
// allows it; the first answer wins; every watcher hears who answered.
func TestRemoteApproval(t *testing.T) {
	t.Parallel()
	h := home(t)
	p := listen(t, h, "s4", true)
	c, other := dial(t, h, "s4"), dial(t, h, "s4")
	req, done := approvalRun(t, p, c)
	if req.Tool != "Shell" || !strings.Contains(req.Command, "echo hi") {
		t.Fatalf("request %+v", req)
	}
	if err := c.Answer(req.ToolCallID, soul.ApproveOnce, ""); err != nil {
		t.Fatal(err)
	}
	if err := c.Answer(req.ToolCallID, soul.Reject, "too late"); err != nil {
		t.Fatal(err)
	}
	var results []AnswerResult
	var answered Answered
	for len(results) < 2 || answered.By == "" {
		switch e := next(t, c).(type) {
		case AnswerResult:
			results = append(results, e)
		case Answered:
			answered = e
		}
	}
	if !results[0].Accepted || results[1].Accepted || !strings.Contains(results[1].Reason, "already answered") {
		t.Fatalf("results %+v", results)
	}
	if !strings.HasPrefix(answered.By, "watcher pid ") || answered.Decision != soul.ApproveOnce {
		t.Fatalf("answered %+v", answered)
	}
	for {
		if a, ok := next(t, other).(Answered); ok && a.ToolCallID == req.ToolCallID {
			break
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
}

// TestRemoteApprovalNotAllowed: without the writer's permission a watcher's
// answer is refused with the reason, and the request stays pending.
func TestRemoteApprovalNotAllowed(t *testing.T) {
	t.Parallel()
	h := home(t)
	p := listen(t, h, "s5", false)
	c := dial(t, h, "s5")
	req, done := approvalRun(t, p, c)
	if c.Hello.RemoteApproval {
		t.Fatal("hello says remote approval is allowed")
	}
	if err := c.Answer(req.ToolCallID, soul.ApproveOnce, ""); err != nil {
		t.Fatal(err)
	}
	for {
		if r, ok := next(t, c).(AnswerResult); ok {
			if r.Accepted || !strings.Contains(r.Reason, "--allow-remote-approval") {
				t.Fatalf("result %+v", r)
			}
			break
		}
	}
	select {
	case err := <-done:
		t.Fatalf("the run went on without an answer: %v", err)
	default:
	}
	p.mu.Lock()
	pending := p.pending[req.ToolCallID]
	p.mu.Unlock()
	pending.Respond(soul.Reject, "no")
	if err := <-done; !errors.Is(err, soul.ErrRejected) {
		t.Fatalf("run: %v", err)
	}
}

// startHelperWriter starts TestHelperWriter in another process, writing
// session "killed" in home h, and connects to it.
func startHelperWriter(t *testing.T, h string) (*exec.Cmd, *Conn) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$")
	cmd.Env = append(os.Environ(), "LIVE_TEST_WRITER="+h)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) { // poll: another process (its pid file, its exit) signals nothing here
		c, err := Dial(context.Background(), h, "killed")
		if err == nil {
			return cmd, c
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the helper writer never listened: %v", err)
		}
	}
}

// TestWriterKilled: a writer killed with -9 closes every watcher's stream at
// once (within readTimeout at worst); its socket is then found stale.
func TestWriterKilled(t *testing.T) {
	t.Parallel()
	if os.Getenv("LIVE_TEST_WRITER") != "" {
		return
	}
	h := home(t)
	cmd, c := startHelperWriter(t, h)
	defer cmd.Wait()
	defer c.Close()
	if got := next(t, c); got != (soul.StepBegin{N: 1}) {
		t.Fatalf("%#v", got)
	}
	if got := next(t, c); got != (soul.ContentPart{Text: "partial"}) {
		t.Fatalf("%#v", got)
	}
	killed := time.Now()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for range c.Events() {
	}
	if gone := time.Since(killed); gone > readTimeout+500*time.Millisecond {
		t.Fatalf("the watcher noticed the writer was gone after %v", gone)
	}
	if _, err := Dial(context.Background(), h, "killed"); !errors.Is(err, ErrNoWriter) {
		t.Fatalf("dial after kill: %v", err)
	}
}

// TestHelperWriter is the writer process TestWriterKilled kills.
func TestHelperWriter(t *testing.T) {
	h := os.Getenv("LIVE_TEST_WRITER")
	if h == "" {
		t.Skip("helper process of TestWriterKilled")
	}
	p, err := Listen(Options{Home: h, Hello: Hello{SessionID: "killed"}})
	if err != nil {
		t.Fatal(err)
	}
	p.Publish(soul.StepBegin{N: 1})
	p.Publish(soul.ContentPart{Text: "partial"})
	time.Sleep(time.Minute) // until killed
}

// TestCompactBetweenRunsEndsIdle: a /compact between runs (a real Soul's
// Compact over real SQLite) leaves the published run idle, with no clock
// running, as a run's end does; the next run's clock starts at its own
// first step. (It stayed "running", its elapsed time counting, forever.)
func TestCompactBetweenRunsEndsIdle(t *testing.T) {
	t.Parallel()
	h := home(t)
	p := listen(t, h, "s9", false)
	ctx := context.Background()
	dir := t.TempDir()
	db := storetest.OpenAt(t, filepath.Join(dir, "rewind.db"), store.Options{})
	sess, err := db.CreateSession(ctx, store.NewSession{WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text("one"), llmtest.Text("two"), llmtest.Text("the summary"), llmtest.Text("three"))
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	s := soul.New(soul.Config{}, db, sess.ID, client, tools.Default(), dir, p.Publish)
	for _, prompt := range []string{"first", "second"} {
		if err := s.Run(ctx, prompt); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	c := dial(t, h, "s9")
	if r := c.Hello.Run; r.State != StateIdle || !r.Started.IsZero() || r.Elapsed(time.Now()) != 0 || r.Label() != StateIdle {
		t.Fatalf("after /compact the run is %+v (%q), want idle with no clock", r, r.Label())
	}
	// Nothing is in flight, so nothing is replayed: the compaction's
	// events were, and every later watcher showed "compacting…".
	if n := p.replayed.Load(); n != 0 {
		t.Fatalf("a watcher joining the idle writer was replayed %d events", n)
	}
	before := time.Now()
	p.Publish(soul.StepBegin{N: 1}) // the next run's first step
	p.mu.Lock()
	started := p.hello.Run.Started
	p.mu.Unlock()
	if started.Before(before) {
		t.Fatalf("the next run's clock started at %v, before its first step (%v)", started, before)
	}
}

// TestLongStepCostsItsLength: a step that streams 512 KB of answer and 512 KB
// of tool output in 100-byte deltas allocates a few times its size, not
// the square of its delta count (appending every delta to the merged text
// allocated gigabytes here and took seconds), and a watcher joining after it
// still gets the whole text in one event each.
func TestLongStepCostsItsLength(t *testing.T) {
	// Not parallel: it reads the process's allocation counter.
	h := home(t)
	p := listen(t, h, "long", false)
	const size, delta = 512 << 10, 100
	chunk := strings.Repeat("x", delta-1) + "\n"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p.Publish(soul.StepBegin{N: 1})
	for range size / delta {
		p.Publish(soul.ContentPart{Text: chunk})
	}
	p.Publish(soul.ToolCall{ID: "c1", Name: "Shell"})
	for range size / delta {
		p.Publish(soul.ToolOutput{ID: "c1", Text: chunk})
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 32<<20 {
		t.Errorf("publishing %d KB allocated %d MB", 2*size>>10, got>>20)
	}
	c := dial(t, h, "long")
	want := strings.Repeat(chunk, size/delta)
	next(t, c) // StepBegin
	if got := next(t, c); got != (soul.ContentPart{Text: want}) {
		t.Errorf("replayed answer: %d bytes", len(fmt.Sprint(got)))
	}
	next(t, c) // ToolCall
	if got := next(t, c); got != (soul.ToolOutput{ID: "c1", Text: want}) {
		t.Errorf("replayed output: %d bytes", len(fmt.Sprint(got)))
	}
}

// failingListener fails its first n accepts as a process out of file
// descriptors does.
type failingListener struct {
	net.Listener
	n     atomic.Int32
	calls atomic.Int32
}

func (l *failingListener) Accept() (net.Conn, error) {
	l.calls.Add(1)
	if l.n.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "unix", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// TestAcceptSurvivesRunningOutOfFiles: accept errors (EMFILE) make the
// writer wait and accept again, so watchers and `rewind runs` reach it once
// descriptors are free (the accept loop ended at the first error).
func TestAcceptSurvivesRunningOutOfFiles(t *testing.T) {
	t.Parallel()
	h := home(t)
	fl := &failingListener{}
	fl.n.Store(5)
	p, err := Listen(Options{Home: h, Hello: Hello{SessionID: "emfile"}, wrapListener: func(l net.Listener) net.Listener {
		fl.Listener = l
		return fl
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	c := dial(t, h, "emfile")
	if c.Hello.SessionID != "emfile" || fl.calls.Load() < 6 {
		t.Fatalf("hello %+v after %d accepts", c.Hello, fl.calls.Load())
	}
	runs, err := List(context.Background(), h)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %+v %v", runs, err)
	}
	// Close ends the loop also while it waits.
	fl.n.Store(1 << 20)
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hung in the accept back-off")
	}
}

// TestWatchersAreCapped: past MaxWatchers a watcher is refused with a
// reason (listers still get the hello), and a place freed is taken again.
func TestWatchersAreCapped(t *testing.T) {
	t.Parallel()
	h := home(t)
	p, err := Listen(Options{Home: h, Hello: Hello{SessionID: "cap"}, MaxWatchers: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	first := dial(t, h, "cap")
	dial(t, h, "cap")
	_, err = Dial(context.Background(), h, "cap")
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Reason != "the writer already has 2 watchers" {
		t.Fatalf("third watcher: %v", err)
	}
	if runs, err := List(context.Background(), h); err != nil || len(runs) != 1 {
		t.Fatalf("a lister at the cap: %+v %v", runs, err)
	}
	first.Close()
	for {
		c, err := Dial(context.Background(), h, "cap")
		if err == nil {
			c.Close()
			break
		}
		if !errors.As(err, &refused) {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond) // poll: the writer notices the close
	}
}

// TestPlantedSymlinkShowsNoOtherRun: a symlink planted at B's socket path
// pointing at A's socket never shows A's run as B's, `runs` lists A once,
// and B's writer replaces the link with its own socket.
func TestPlantedSymlinkShowsNoOtherRun(t *testing.T) {
	t.Parallel()
	h := home(t)
	listen(t, h, "A", false)
	pathA, _ := SocketPath(h, "A")
	pathB, _ := SocketPath(h, "B")
	if err := os.Symlink(pathA, pathB); err != nil {
		t.Fatal(err)
	}
	if c, err := Dial(context.Background(), h, "B"); err == nil {
		c.Close()
		t.Fatalf("B's watcher was shown the run of %q", c.Hello.SessionID)
	}
	runs, err := List(context.Background(), h)
	if err != nil || len(runs) != 1 || runs[0].SessionID != "A" {
		t.Fatalf("runs with the link: %+v %v", runs, err)
	}
	listen(t, h, "B", false)
	if st, err := os.Lstat(pathB); err != nil || st.Mode()&os.ModeSocket == 0 {
		t.Fatalf("B's path after B listens: %v %v", st, err)
	}
	if c := dial(t, h, "B"); c.Hello.SessionID != "B" {
		t.Fatalf("B's watcher got %q", c.Hello.SessionID)
	}
	runs, err = List(context.Background(), h)
	if err != nil || len(runs) != 2 || runs[0].SessionID == runs[1].SessionID {
		t.Fatalf("runs: %+v %v", runs, err)
	}
	// A regular file planted at a socket path is replaced as well.
	pathC, _ := SocketPath(h, "C")
	if err := os.WriteFile(pathC, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	listen(t, h, "C", false)
	if c := dial(t, h, "C"); c.Hello.SessionID != "C" {
		t.Fatalf("C's watcher got %q", c.Hello.SessionID)
	}
}

// TestCloseDeliversWhatWasPublished: a writer that publishes its last
// events and closes at once (a sub-agent's run ends, then its channel)
// still delivers them to its watchers before their connection ends: Close
// dropped the queued lines, so `rewind watch CHILD` lost the tail of what
// the child streamed.
func TestCloseDeliversWhatWasPublished(t *testing.T) {
	t.Parallel()
	h := home(t)
	p := listen(t, h, "s1", false)
	c := dial(t, h, "s1")
	p.Publish(soul.StepBegin{N: 1})
	if _, ok := next(t, c).(soul.StepBegin); !ok {
		t.Fatal("the watcher did not join")
	}
	const n = 200
	for i := range n {
		p.Publish(soul.ContentPart{Text: fmt.Sprintf("w%d ", i)})
	}
	p.Publish(soul.RunEnd{})
	p.Close()
	var got int
	for e := range c.Events() {
		switch e.(type) {
		case soul.ContentPart:
			got++
		case soul.RunEnd:
			if got != n {
				t.Fatalf("%d of the %d deltas before the run's end", got, n)
			}
			return
		}
	}
	t.Fatalf("the connection ended after %d of %d deltas, without the run's end", got, n)
}

// TestListingWhileAWriterStartsKeepsItsSocket: `rewind runs` (or the
// workspace's runs view) listing while a writer starts must not take the
// new writer's socket for a dead one. A socket bound but not yet listening
// refuses connections as a dead writer's does; List removed it, and the
// writer then listened on a path nobody could reach: its run was never
// listed and never watchable (TestWatchLiveInTmux: "rewind runs never
// listed the -p run streaming", twice at load 10–14). A lister dials in a
// loop while writers start one after another; every writer must stay
// reachable.
func TestListingWhileAWriterStartsKeepsItsSocket(t *testing.T) {
	t.Parallel()
	h := home(t)
	if err := ensureDir(h); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	listed := make(chan struct{})
	go func() {
		defer close(listed)
		for {
			select {
			case <-stop:
				return
			default:
			}
			List(context.Background(), h)
		}
	}()
	defer func() { close(stop); <-listed }()
	for i := range 300 {
		id := fmt.Sprintf("w%03d", i)
		p, err := Listen(Options{Home: h, Hello: Hello{SessionID: id}})
		if err != nil {
			t.Fatal(err)
		}
		_, statErr := os.Stat(p.Path())
		p.Close()
		if statErr != nil {
			t.Fatalf("writer %d of 300: a lister removed its socket while it started: %v", i+1, statErr)
		}
	}
}

// TestListenWithoutHardLinks: where the file system has no hard links the
// starting socket is renamed to its path instead; the writer is reachable,
// private, and its socket goes with Close. Not parallel: it replaces
// linkSocket for the package.
func TestListenWithoutHardLinks(t *testing.T) {
	linkSocket = func(oldname, newname string) error {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: syscall.EPERM}
	}
	defer func() { linkSocket = os.Link }()
	h := home(t)
	p := listen(t, h, "nolinks", false)
	st, err := os.Stat(p.Path())
	if err != nil || st.Mode().Perm() != 0o600 || st.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket mode %v, %v", st.Mode(), err)
	}
	if c := dial(t, h, "nolinks"); c.Hello.SessionID != "nolinks" {
		t.Fatalf("hello %+v", c.Hello)
	}
	entries, err := os.ReadDir(Dir(h))
	if err != nil || len(entries) != 1 {
		t.Fatalf("the run dir holds %v (%v), want the socket alone", entries, err)
	}
	p.Close()
	if _, err := os.Stat(p.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left after Close: %v", err)
	}
}

// TestWatcherAnswerIsToldBeforeTheCallRuns: the writer's screen (its
// OnRemoteAnswer) is told a watcher answered before the Soul runs the
// call. It was told after the answer reached the Soul, so under load the
// workspace put "… from a watcher" under the call's result and the
// answer after it (TestWatcherAnswerStaysOnTheWritersScreen, once in 29
// runs at load 30). The hook gives the Soul a second to run the call
// before it returns: it must not.
func TestWatcherAnswerIsToldBeforeTheCallRuns(t *testing.T) {
	t.Parallel()
	h := home(t)
	others := make(chan *Conn, 1)
	ran := make(chan bool, 1)
	p, err := Listen(Options{Home: h, Hello: Hello{SessionID: "s9"}, AllowRemoteApproval: true,
		OnRemoteAnswer: func(req *soul.ApprovalRequest, a Answer) {
			other := <-others
			window := time.NewTimer(time.Second) // a bound for what must not happen, not a wait for what must
			defer window.Stop()
			for {
				select {
				case e, ok := <-other.Events():
					if r, result := e.(soul.ToolResult); !ok || (result && r.ID == req.ToolCallID) {
						ran <- ok
						return
					}
				case <-window.C:
					ran <- false
					return
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	c := dial(t, h, "s9")
	others <- dial(t, h, "s9")
	req, done := approvalRun(t, p, c)
	if err := c.Answer(req.ToolCallID, soul.ApproveOnce, ""); err != nil {
		t.Fatal(err)
	}
	if <-ran {
		t.Fatal("the Soul ran the call before the writer was told a watcher answered it")
	}
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
}

// TestLongReplayIsBoundedByProgress: the writer's deadline for a watcher
// bounds each chunk of a long replay, not the whole of it, so a watcher
// taking a step's megabytes steadily, if slowly, is not dropped. It was
// one deadline for all that was queued: TestLongStepCostsItsLength's
// watcher, taking 1 MB under -race at load 30, was dropped ("the writer
// closed the connection") in 16 runs of 64.
func TestLongReplayIsBoundedByProgress(t *testing.T) {
	t.Parallel()
	h := home(t)
	p, conns := listenCounting(t, h, "long")
	text := strings.Repeat("x", 1<<20)
	p.Publish(soul.StepBegin{N: 1})
	p.Publish(soul.ContentPart{Text: text})
	c := dial(t, h, "long")
	next(t, c) // StepBegin
	if got := next(t, c); got != (soul.ContentPart{Text: text}) {
		t.Fatalf("replayed answer: %T", got)
	}
	cs := conns()
	if len(cs) != 1 {
		t.Fatalf("%d connections", len(cs))
	}
	if most := cs[0].mostUnderOneDeadline(); most > progressChunk {
		t.Errorf("%d bytes written under one deadline, want at most %d", most, progressChunk)
	}
}

// listenCounting listens for session id with each accepted connection a
// deadlineConn; conns returns those accepted so far.
func listenCounting(t *testing.T, h, id string) (p *Publisher, conns func() []*deadlineConn) {
	var accepted []*deadlineConn
	var mu sync.Mutex
	p, err := Listen(Options{Home: h, Hello: Hello{SessionID: id}, wrapListener: func(l net.Listener) net.Listener {
		return acceptFunc{l, func(c net.Conn) net.Conn {
			dc := &deadlineConn{Conn: c}
			mu.Lock()
			accepted = append(accepted, dc)
			mu.Unlock()
			return dc
		}}
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, func() []*deadlineConn {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(accepted)
	}
}

// acceptFunc wraps each accepted connection.
type acceptFunc struct {
	net.Listener
	wrap func(net.Conn) net.Conn
}

func (l acceptFunc) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return l.wrap(c), nil
}

// deadlineConn counts the bytes written under each write deadline set,
// and in all.
type deadlineConn struct {
	net.Conn
	mu      sync.Mutex
	written int // since the last SetWriteDeadline
	most    int
	total   int
}

func (c *deadlineConn) SetWriteDeadline(d time.Time) error {
	c.mu.Lock()
	c.written = 0
	c.mu.Unlock()
	return c.Conn.SetWriteDeadline(d)
}

func (c *deadlineConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.mu.Lock()
	c.written += n
	c.total += n
	c.most = max(c.most, c.written)
	c.mu.Unlock()
	return n, err
}

func (c *deadlineConn) mostUnderOneDeadline() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.most
}

func (c *deadlineConn) totalWritten() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// TestWatcherReadsOnWhileItDecodes: a watcher takes the writer's stream
// while it decodes a long line, so a slow decode (a megabyte's, seconds
// under -race on a loaded machine) does not stop the writer for longer
// than writeTimeout, which drops the watcher: TestLongStepCostsItsLength's
// watcher still was, in 1 run of 2 under -race at load 31, with the
// writer's deadline per 16 KB. The decode of the first long line is held
// until the writer wrote the whole replay, which does not fit in the
// socket's buffer. Not parallel: it sets lineRead.
func TestWatcherReadsOnWhileItDecodes(t *testing.T) {
	h := home(t)
	p, conns := listenCounting(t, h, "decode")
	text := strings.Repeat("x", 1<<20)
	p.Publish(soul.StepBegin{N: 1})
	p.Publish(soul.ContentPart{Text: text})
	p.Publish(soul.ToolCall{ID: "c1", Name: "Shell"})
	p.Publish(soul.ToolOutput{ID: "c1", Text: text})
	held, release := make(chan struct{}, 1), make(chan struct{})
	var releaseOnce sync.Once
	letGo := func() { releaseOnce.Do(func() { close(release) }) }
	hold := func(line []byte) {
		if len(line) < 1<<20 {
			return
		}
		select {
		case held <- struct{}{}: // the first long line only
			<-release
		default:
		}
	}
	lineRead.Store(&hold)
	t.Cleanup(func() { letGo(); lineRead.Store(nil) })
	c := dial(t, h, "decode")
	select {
	case <-held:
	case <-time.After(30 * time.Second): // a timeout, not a bound
		t.Fatal("the replay's first long line never came")
	}
	dc := conns()[0]
	deadline := time.Now().Add(10 * time.Second)
	for dc.totalWritten() < 2*len(text) {
		if time.Now().After(deadline) {
			t.Fatalf("the writer wrote %d bytes of the replay's %d while the watcher decoded a line", dc.totalWritten(), 2*len(text))
		}
		time.Sleep(5 * time.Millisecond) // poll: the bytes a socket took signal nothing
	}
	letGo()
	want := []soul.Event{soul.StepBegin{N: 1}, soul.ContentPart{Text: text}, soul.ToolCall{ID: "c1", Name: "Shell"}, soul.ToolOutput{ID: "c1", Text: text}}
	for i, w := range want {
		if got := next(t, c); got != w {
			t.Fatalf("event %d: %T, want %T", i, got, w)
		}
	}
}

// TestWatcherOutlivesAStalledWriter: a writer that says nothing for two
// seconds (stopped here; on a loaded machine its pings come late) is not
// taken for gone: a watcher gave up after one second of silence, so under
// load (-race, load 25–30) watchers fell back and reconnected
// (TestWatchRefusedByAFullWriterSaysSo's first watcher left and the second
// got its place; TestASecondWatchVisitIsNotLiveOnTheFirstVisitsConnection
// saw the first visit's connection end). A writer that exits or is killed
// is still seen gone at once: its socket closes.
func TestWatcherOutlivesAStalledWriter(t *testing.T) {
	t.Parallel()
	if os.Getenv("LIVE_TEST_WRITER") != "" {
		return
	}
	h := home(t)
	cmd, c := startHelperWriter(t, h)
	defer cmd.Wait()
	defer cmd.Process.Kill()
	defer c.Close()
	next(t, c) // StepBegin
	next(t, c) // the partial text
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // the stall itself: a duration, not a wait for something
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	select {
	case _, ok := <-c.Events():
		if !ok {
			t.Fatalf("the watcher took a writer silent for 2 s for gone: %v", c.Err())
		}
	default:
	}
}

// TestHelloComesBeforeTheReplayIsEncoded: a watcher joining a long step
// gets the hello at once; the replay is encoded after it, off the
// Publisher's lock. The writer encoded the whole replay first, under the
// lock: a megabyte under -race on a loaded machine took longer than the
// watcher waits for a hello (TestLongStepCostsItsLength: "closed before
// saying hello" in 2 runs of 31 at load 22), and Publish waited as long.
// The replay's encoding is held here until the hello came and a Publish
// returned. Not parallel: it sets replayEncoding.
func TestHelloComesBeforeTheReplayIsEncoded(t *testing.T) {
	h := home(t)
	p := listen(t, h, "hello", false)
	p.Publish(soul.StepBegin{N: 1})
	p.Publish(soul.ContentPart{Text: "a long answer"})
	release := make(chan struct{})
	var releaseOnce sync.Once
	letGo := func() { releaseOnce.Do(func() { close(release) }) }
	hold := func() { <-release }
	replayEncoding.Store(&hold)
	t.Cleanup(func() { letGo(); replayEncoding.Store(nil) })
	c := dial(t, h, "hello") // fails after readTimeout without a hello
	published := make(chan struct{})
	go func() {
		p.Publish(soul.ContentPart{Text: " and more"})
		close(published)
	}()
	select {
	case <-published:
	case <-time.After(30 * time.Second): // a timeout, not a bound
		t.Fatal("Publish waited for a watcher's replay")
	}
	letGo()
	want := []soul.Event{soul.StepBegin{N: 1}, soul.ContentPart{Text: "a long answer"}, soul.ContentPart{Text: " and more"}}
	for i, w := range want {
		if got := next(t, c); got != w {
			t.Fatalf("event %d: %#v, want %#v", i, got, w)
		}
	}
}
