package live

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul"
)

// Timing of the channel; variables so tests can shorten them.
var (
	pingEvery = 300 * time.Millisecond // a writer with nothing to say pings this often
	// readTimeout: a watcher that hears nothing this long falls back. A
	// writer that exits or is killed is seen gone at once (its socket
	// closes); this bound is for a frozen one, with the slack of a loaded
	// machine, where pings came more than a second late.
	readTimeout  = 5 * time.Second
	writeTimeout = 2 * time.Second // a watcher that takes nothing this long is dropped
	// joinWait is how long a writer waits for a new connection's Join line
	// before it takes it for a watcher older than Join (which sends
	// nothing) and sends it the hello and the step in flight.
	joinWait = 250 * time.Millisecond
)

// watcherQueue bounds the lines queued for one watcher beyond the replay: a
// watcher that falls this far behind is dropped (it reconnects, or falls
// back to the database), never slowing the writer.
const watcherQueue = 8192

// Options configure a writer's Publisher.
type Options struct {
	Home  string // REWIND_HOME
	Hello Hello  // the session and writer; Run is kept by the Publisher
	// AllowRemoteApproval lets watchers answer approval requests.
	AllowRemoteApproval bool
	// OnRemoteAnswer, if set, is told when a watcher's answer counted, so
	// the writer's screen can say so and close its approval prompt. It runs
	// on the connection's goroutine, before the Soul hears the answer: it
	// must not wait for the Soul.
	OnRemoteAnswer func(req *soul.ApprovalRequest, a Answer)
	// MaxWatchers caps the watchers connected at once (0: DefaultMaxWatchers);
	// one more is refused with a Refused line. Listers are not counted.
	MaxWatchers int

	// wrapListener, when set, wraps the socket's listener (tests inject
	// accept errors).
	wrapListener func(net.Listener) net.Listener
}

// DefaultMaxWatchers is how many watchers one writer serves at once: each
// costs two goroutines, a socket and a queue, and a writer must not run out
// of file descriptors for its own tools.
const DefaultMaxWatchers = 64

// Publisher is the writer side of a session's live channel. Publish is safe
// from any goroutine and never blocks on a watcher.
type Publisher struct {
	opts   Options
	path   string
	socket os.FileInfo // what path names while this writer owns it
	ln     net.Listener
	done   chan struct{} // closed by Close: stops the accept loop's back-off

	mu       sync.Mutex
	hello    Hello
	step     replay // the in-flight step since its StepBegin, deltas merged
	pending  map[string]*soul.ApprovalRequest
	watchers map[*peer]struct{}
	joining  map[net.Conn]struct{} // connected, their Join line not read yet
	closed   bool
	wg       sync.WaitGroup
	replayed atomic.Int64 // events of steps in flight sent to joining watchers (tests)
}

// peer is one connected watcher.
type peer struct {
	conn net.Conn
	out  chan []byte
	once sync.Once
	// replay is the step in flight when it joined, sent after the hello
	// (first in out) and before what out holds next: encoded by its
	// writer, off the Publisher's lock, so that a step of megabytes keeps
	// neither Publish nor the hello waiting.
	replay []soul.Event
}

func (w *peer) close() { w.once.Do(func() { w.conn.Close() }) }

// Listen creates the session's socket (removing one left by a dead writer)
// and starts accepting watchers. It fails if another live process already
// listens for the session.
func Listen(o Options) (*Publisher, error) {
	path, err := SocketPath(o.Home, o.Hello.SessionID)
	if err != nil {
		return nil, err
	}
	if err := ensureDir(o.Home); err != nil {
		return nil, err
	}
	if err := removeStale(path); err != nil {
		return nil, err
	}
	ln, socket, err := listenAt(path)
	if err != nil {
		return nil, err
	}
	var l net.Listener = ln
	if o.wrapListener != nil {
		l = o.wrapListener(ln)
	}
	if o.MaxWatchers <= 0 {
		o.MaxWatchers = DefaultMaxWatchers
	}
	h := o.Hello
	if h.PID == 0 {
		h.PID = os.Getpid()
	}
	h.RemoteApproval = o.AllowRemoteApproval
	h.Run.State = StateIdle
	p := &Publisher{opts: o, path: path, socket: socket, ln: l, done: make(chan struct{}), hello: h, pending: map[string]*soul.ApprovalRequest{},
		watchers: map[*peer]struct{}{}, joining: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// startingSeq tells apart the names a process's writers start under.
var startingSeq atomic.Int64

// linkSocket is os.Link (tests: a file system without hard links).
var linkSocket = os.Link

// listenAt listens on a socket that appears at path only once it accepts,
// private to the user. A socket bound but not listening yet refuses
// connections as a dead writer's does, and a lister (List) removes those:
// bound at path itself, a writer that a lister met in that instant lost
// its path and could never be listed or watched. So the socket is bound
// and made private under a name no lister looks at (not *.sock), then
// linked to path, which fails if another writer took path meanwhile.
func listenAt(path string) (*net.UnixListener, os.FileInfo, error) {
	starting := filepath.Join(filepath.Dir(path), fmt.Sprintf(".%d.%d", os.Getpid(), startingSeq.Add(1)))
	if len(starting) > maxSocketPath {
		return nil, nil, fmt.Errorf("%w: %s (move REWIND_HOME to a shorter path to watch runs live)", ErrPathTooLong, starting)
	}
	os.Remove(starting) // left by a dead process of the same pid
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: starting, Net: "unix"})
	if err != nil {
		return nil, nil, fmt.Errorf("live: listen on %s: %w", path, err)
	}
	ln.SetUnlinkOnClose(false) // the starting name goes below; path is Close's
	defer os.Remove(starting)
	if err := os.Chmod(starting, 0o600); err != nil {
		ln.Close()
		return nil, nil, fmt.Errorf("live: chmod %s: %w", starting, err)
	}
	if err := linkSocket(starting, path); errors.Is(err, os.ErrExist) {
		ln.Close()
		return nil, nil, fmt.Errorf("live: %s: another process is already publishing this session", path)
	} else if err != nil {
		// A file system without hard links: a rename is as atomic, but
		// would replace a socket another writer made since removeStale.
		if rerr := os.Rename(starting, path); rerr != nil {
			ln.Close()
			return nil, nil, fmt.Errorf("live: publish %s: %w", path, rerr)
		}
	}
	socket, err := os.Lstat(path)
	if err != nil {
		ln.Close()
		return nil, nil, fmt.Errorf("live: publish %s: %w", path, err)
	}
	return ln, socket, nil
}

// removeStale clears the session's socket path: it removes a socket nobody
// accepts on (its writer died), and anything that is not a socket, such as
// a symlink planted to another session's socket (whose writer would then
// be shown to this session's watchers, and stop this one from listening).
// A live socket of its own means another process writes the session.
func removeStale(path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil && st.Mode().Type() == os.ModeSocket {
		c, err := net.DialTimeout("unix", path, 300*time.Millisecond)
		if err == nil {
			c.Close()
			return fmt.Errorf("live: %s: another process is already publishing this session", path)
		}
	}
	if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		return fmt.Errorf("live: remove stale %s: %w", path, rerr)
	}
	return nil
}

// Path is the socket's path.
func (p *Publisher) Path() string { return p.path }

// Publish sends e to every watcher and keeps it for the replay of the step
// in flight.
func (p *Publisher) Publish(e soul.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.hello.Run.note(e, time.Now())
	switch ev := e.(type) {
	case soul.StepBegin:
		p.step.reset()
	case soul.RunEnd:
		p.step.reset()
		clear(p.pending)
	case *soul.ApprovalRequest:
		p.pending[ev.ToolCallID] = ev
	case soul.ToolResult:
		delete(p.pending, ev.ID)
	}
	if p.hello.Run.State == StateIdle {
		// Nothing is in flight: a run or a /compact between runs (which
		// ends at its StatusUpdate, no RunEnd) is over, and a watcher
		// joining now needs the hello alone. The compaction's events,
		// kept, were replayed to every later watcher as a compaction
		// under way ("compacting…" while the writer idled).
		p.step.reset()
	} else {
		p.step.add(e)
	}
	// Encoded only for a watcher: with none (the usual case) a streamed
	// token cost a JSON encoding all the same.
	var line []byte
	for w := range p.watchers {
		if line == nil {
			line = encode(e)
		}
		p.sendLocked(w, line)
	}
}

// replay is the step in flight as a joining watcher is sent it: its events,
// a run of text deltas of one kind (and one tool call) merged into one, so
// a replay is short however long the step streamed. The text of the run
// being merged grows in a builder: adding a delta costs its own length, not
// the text's so far (appending to the event's string made a 20 MB answer in
// 100-byte deltas take minutes).
type replay struct {
	events []soul.Event
	tail   strings.Builder // the text of events[len-1] while it is a merged delta
	merged bool            // events[len-1] is a delta whose text is in tail
}

func (r *replay) reset() {
	r.events, r.merged = nil, false
	r.tail.Reset()
}

// seal puts the merged text into the last event and starts a new builder
// (String does not copy, so the old builder's bytes stay with the event).
func (r *replay) seal() {
	if !r.merged {
		return
	}
	r.events[len(r.events)-1] = withText(r.events[len(r.events)-1], r.tail.String())
	r.tail.Reset()
	r.merged = false
}

func (r *replay) add(e soul.Event) {
	if n := len(r.events); n > 0 {
		prev := r.events[n-1]
		if text, ok := mergeable(prev, e); ok {
			if !r.merged {
				r.tail.WriteString(deltaText(prev))
				r.merged = true
			}
			r.tail.WriteString(text)
			return
		}
		if _, ok := e.(soul.StatusUpdate); ok {
			if _, ok := prev.(soul.StatusUpdate); ok {
				r.events[n-1] = e
				return
			}
		}
	}
	r.seal()
	r.events = append(r.events, e)
}

// snapshot is the replay's events, the merged text included.
func (r *replay) snapshot() []soul.Event {
	out := slices.Clone(r.events)
	if r.merged {
		out[len(out)-1] = withText(out[len(out)-1], r.tail.String())
	}
	return out
}

// mergeable returns e's text when e continues the delta prev.
func mergeable(prev, e soul.Event) (string, bool) {
	switch cur := e.(type) {
	case soul.ContentPart:
		_, ok := prev.(soul.ContentPart)
		return cur.Text, ok
	case soul.ReasoningPart:
		_, ok := prev.(soul.ReasoningPart)
		return cur.Text, ok
	case soul.ToolOutput:
		p, ok := prev.(soul.ToolOutput)
		return cur.Text, ok && p.ID == cur.ID
	}
	return "", false
}

func deltaText(e soul.Event) string {
	switch d := e.(type) {
	case soul.ContentPart:
		return d.Text
	case soul.ReasoningPart:
		return d.Text
	case soul.ToolOutput:
		return d.Text
	}
	return ""
}

func withText(e soul.Event, text string) soul.Event {
	switch d := e.(type) {
	case soul.ContentPart:
		d.Text = text
		return d
	case soul.ReasoningPart:
		d.Text = text
		return d
	case soul.ToolOutput:
		d.Text = text
		return d
	}
	return e
}

// sendLocked queues line for w, dropping a watcher that fell too far behind.
func (p *Publisher) sendLocked(w *peer, line []byte) {
	select {
	case w.out <- line:
	default:
		delete(p.watchers, w)
		w.close()
	}
}

// Close stops accepting, disconnects the watchers and removes the socket.
func (p *Publisher) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.done) // each watcher's writer sends what is queued, then ends its connection
	p.watchers = nil
	for conn := range p.joining {
		conn.Close()
	}
	p.mu.Unlock()
	err := p.ln.Close()
	// Remove the path only while it is still this writer's socket.
	if st, serr := os.Lstat(p.path); serr == nil && os.SameFile(st, p.socket) {
		os.Remove(p.path)
	}
	p.wg.Wait()
	return err
}

// Back-off of the accept loop after a failed accept (net/http's).
const (
	acceptBackoffMin = 5 * time.Millisecond
	acceptBackoffMax = time.Second
)

func (p *Publisher) accept() {
	defer p.wg.Done()
	var backoff time.Duration
	for {
		conn, err := p.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors (EMFILE, ENFILE), an aborted
			// connection: the channel must outlive them, or `rewind runs`
			// loses a writer that still runs. Wait, then accept again.
			backoff = min(max(2*backoff, acceptBackoffMin), acceptBackoffMax)
			t := time.NewTimer(backoff)
			select {
			case <-t.C:
				continue
			case <-p.done:
				t.Stop()
				return
			}
		}
		backoff = 0
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			conn.Close()
			return
		}
		p.joining[conn] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go p.handshake(conn)
	}
}

// handshake reads the connection's Join line (waiting joinWait at most: a
// watcher older than Join sends none) and answers it: the hello alone for a
// lister, which then hangs up, or the whole stream for a watcher.
func (p *Publisher) handshake(conn net.Conn) {
	defer p.wg.Done()
	sc := bufio.NewScanner(conn)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	conn.SetReadDeadline(time.Now().Add(joinWait))
	var j Join
	if sc.Scan() {
		if e, err := decode(sc.Bytes()); err == nil {
			j, _ = e.(Join)
		}
	} else if !isTimeout(sc.Err()) {
		p.leave(conn)
		conn.Close() // gone before it said anything
		return
	}
	conn.SetReadDeadline(time.Time{})
	if sc.Err() != nil {
		// The old watcher's deadline stopped this scanner for good.
		sc = bufio.NewScanner(conn)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
	}
	if !j.HelloOnly {
		p.join(conn, sc)
		return
	}
	p.mu.Lock()
	hello := encode(p.hello)
	p.mu.Unlock()
	p.leave(conn)
	conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	conn.Write(hello)
	conn.Close()
}

// leave forgets a connection that is no longer joining.
func (p *Publisher) leave(conn net.Conn) {
	p.mu.Lock()
	delete(p.joining, conn)
	p.mu.Unlock()
}

// join sends the hello and the replay of the step in flight, then registers
// the watcher for what follows: under one lock, so nothing is lost or sent
// twice.
func (p *Publisher) join(conn net.Conn, sc *bufio.Scanner) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.joining, conn)
	if p.closed {
		conn.Close()
		return
	}
	if len(p.watchers) >= p.opts.MaxWatchers {
		n := len(p.watchers)
		refused := encode(Refused{Reason: fmt.Sprintf("the writer already has %d %s", n, words.Plural(n, "watcher", "watchers"))})
		p.wg.Add(1)
		go func() { // never write under the lock
			defer p.wg.Done()
			conn.SetWriteDeadline(time.Now().Add(writeTimeout))
			conn.Write(refused)
			conn.Close()
		}()
		return
	}
	step := p.step.snapshot()
	w := &peer{conn: conn, out: make(chan []byte, watcherQueue+1), replay: step}
	w.out <- encode(p.hello)
	p.replayed.Add(int64(len(step)))
	p.watchers[w] = struct{}{}
	p.wg.Add(2)
	go p.write(w)
	go p.read(w, sc)
}

// write sends w's queue, pinging when there is nothing to say.
func (p *Publisher) write(w *peer) {
	defer p.wg.Done()
	defer p.drop(w)
	ping := encode(Ping{})
	dw := &deadlineWriter{conn: w.conn, timeout: writeTimeout}
	bw := bufio.NewWriter(dw)
	// The hello (queued first), then the replay, before anything else.
	if _, err := bw.Write(<-w.out); err != nil || !p.sendReplay(w, bw) {
		return
	}
	t := time.NewTimer(pingEvery)
	defer t.Stop()
	for {
		var line []byte
		select {
		case line = <-w.out:
		case <-t.C:
			line = ping
		case <-p.done:
			p.flush(w, bw, dw)
			return
		}
		if _, err := bw.Write(line); err != nil {
			return
		}
		// Write what else is queued in the same syscall.
		for more := true; more; {
			select {
			case l := <-w.out:
				if _, err := bw.Write(l); err != nil {
					return
				}
			default:
				more = false
			}
		}
		if err := bw.Flush(); err != nil {
			return
		}
		t.Reset(pingEvery)
	}
}

// sendReplay writes w's replay after its hello, the hello flushed first.
func (p *Publisher) sendReplay(w *peer, bw *bufio.Writer) bool {
	replay := w.replay
	w.replay = nil
	if bw.Flush() != nil {
		return false
	}
	for _, e := range replay {
		if hold := replayEncoding.Load(); hold != nil {
			(*hold)()
		}
		if _, err := bw.Write(encode(e)); err != nil {
			return false
		}
	}
	return true
}

// replayEncoding, when set (tests), is called before each replayed event is
// encoded: it holds the replay.
var replayEncoding atomic.Pointer[func()]

// flush sends what is queued for w when the writer closes: the last
// events of a run that ends and closes at once reach its watchers. A
// watcher that cannot take them within writeTimeout loses them.
func (p *Publisher) flush(w *peer, bw *bufio.Writer, dw *deadlineWriter) {
	dw.by = time.Now().Add(writeTimeout)
	for {
		select {
		case l := <-w.out:
			if _, err := bw.Write(l); err != nil {
				return
			}
		default:
			bw.Flush()
			return
		}
	}
}

// read takes a watcher's answers to approval requests.
func (p *Publisher) read(w *peer, sc *bufio.Scanner) {
	defer p.wg.Done()
	defer p.drop(w)
	for sc.Scan() {
		e, err := decode(sc.Bytes())
		if err != nil {
			continue
		}
		if a, ok := e.(Answer); ok {
			res := p.answer(a)
			p.mu.Lock()
			if _, live := p.watchers[w]; live {
				p.sendLocked(w, encode(res))
			}
			p.mu.Unlock()
		}
	}
}

func (p *Publisher) drop(w *peer) {
	p.mu.Lock()
	delete(p.watchers, w)
	p.mu.Unlock()
	w.close()
}

// answer applies a watcher's answer when the writer allows it; the first
// answer (the writer's or any watcher's) wins.
func (p *Publisher) answer(a Answer) AnswerResult {
	res := AnswerResult{ToolCallID: a.ToolCallID}
	if !p.opts.AllowRemoteApproval {
		res.Reason = "the writer does not take approvals from watchers (start it with --allow-remote-approval, or set allow_remote_approval = true)"
		return res
	}
	p.mu.Lock()
	req := p.pending[a.ToolCallID]
	p.mu.Unlock()
	// Told before the Soul runs the call: said after, the writer's screen
	// put "answered from a watcher" under the call's result and the next
	// answer, and watchers heard who answered after the result.
	counted := req != nil && req.AnswerAnnounced(a.Decision, a.Feedback, func() {
		p.AnnounceAnswer(a.ToolCallID, a.Decision, fmt.Sprintf("watcher pid %d", a.PID))
		if p.opts.OnRemoteAnswer != nil {
			p.opts.OnRemoteAnswer(req, a)
		}
	})
	if !counted {
		res.Reason = "this approval was already answered"
		return res
	}
	res.Accepted = true
	return res
}

// AnnounceAnswer tells the watchers a pending approval was answered (the
// writer calls it for answers given on its own screen).
func (p *Publisher) AnnounceAnswer(toolCallID string, d soul.ApprovalDecision, by string) {
	p.mu.Lock()
	delete(p.pending, toolCallID)
	p.mu.Unlock()
	p.Publish(Answered{ToolCallID: toolCallID, Decision: d, By: by})
}

// isRefused reports a dial error meaning nobody listens on the socket.
func isRefused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOENT)
}

// RemoteApproval reports whether watchers may answer approval requests.
func (p *Publisher) RemoteApproval() bool { return p.opts.AllowRemoteApproval }

// SessionID is the session published.
func (p *Publisher) SessionID() string { return p.opts.Hello.SessionID }

// isTimeout reports a read that ran into its deadline.
func isTimeout(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }
