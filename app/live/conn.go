package live

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewind-agent/rewind/soul"
)

// ErrNoWriter means no live process publishes the session (it is idle, or
// its writer died): the database is all there is.
var ErrNoWriter = errors.New("live: no writer is publishing this session")

// RefusedError means the writer would not take another watcher (it serves
// Options.MaxWatchers already); the database still shows what it commits.
type RefusedError struct {
	Reason string // "the writer already has 64 watchers"
}

func (e *RefusedError) Error() string { return "live: the writer refused this watcher: " + e.Reason }

// Conn is a watcher's connection to a session's writer.
type Conn struct {
	Hello Hello // as the writer said it on connect

	conn    net.Conn
	events  chan soul.Event
	done    chan struct{} // closed by Close: read stops delivering
	writeMu sync.Mutex
	errMu   sync.Mutex
	err     error
	once    sync.Once
}

// Dial connects to the writer of sessionID and reads its Hello. The events
// that follow (the replay of the step in flight, then everything live)
// arrive on Events. A session without a live writer gives ErrNoWriter.
func Dial(ctx context.Context, home, sessionID string) (*Conn, error) {
	path, err := SocketPath(home, sessionID)
	if err != nil {
		return nil, err
	}
	return dialPath(ctx, path, sessionID, false)
}

// ErrWrongSession means the socket at a session's path answered for
// another session (a symlink planted there): its run is not this one's.
var ErrWrongSession = errors.New("live: the socket answers for another session")

// dialPath connects to the writer at path and reads its Hello, which must
// be sessionID's. With helloOnly the writer sends the Hello alone (no replay
// of the step in flight, no events) and the connection is closed after it:
// for listers.
func dialPath(ctx context.Context, path, sessionID string, helloOnly bool) (*Conn, error) {
	d := net.Dialer{Timeout: readTimeout}
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if isRefused(err) {
			return nil, fmt.Errorf("%w (%s): %w", ErrNoWriter, path, err)
		}
		return nil, fmt.Errorf("live: connect to %s: %w", path, err)
	}
	// Say what we want first: a writer waits for it (joinWait) before it
	// sends anything, and one older than this line ignores it.
	nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := nc.Write(encode(Join{HelloOnly: helloOnly})); err != nil {
		nc.Close()
		return nil, fmt.Errorf("%w: %s: %w", ErrNoWriter, path, err)
	}
	c := &Conn{conn: nc, events: make(chan soul.Event, 1024), done: make(chan struct{})}
	sc := bufio.NewScanner(nc)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	nc.SetReadDeadline(time.Now().Add(readTimeout))
	if !sc.Scan() {
		nc.Close()
		return nil, fmt.Errorf("%w: %s closed before saying hello (%v)", ErrNoWriter, path, sc.Err())
	}
	e, err := decode(sc.Bytes())
	if r, ok := e.(Refused); ok {
		nc.Close()
		return nil, &RefusedError{Reason: r.Reason}
	}
	h, ok := e.(Hello)
	if err != nil || !ok {
		nc.Close()
		return nil, fmt.Errorf("live: %s: not a rewind writer", path)
	}
	if h.SessionID != sessionID {
		nc.Close()
		return nil, fmt.Errorf("%w: %s answers for %s, not %s", ErrWrongSession, path, h.SessionID, sessionID)
	}
	c.Hello = h
	if helloOnly {
		nc.Close()
		close(c.events)
		return c, nil
	}
	go c.read(sc)
	return c, nil
}

// read delivers events until the writer goes away (or stays silent longer
// than readTimeout: a live writer pings), then closes Events. The socket is
// read on while a line is decoded: a long line's decode (a step's replay
// of a megabyte, seconds on a loaded machine) must not stop the writer's
// stream, or the writer drops the watcher after writeTimeout.
func (c *Conn) read(sc *bufio.Scanner) {
	defer close(c.events)
	lines := make(chan []byte, 16)
	go c.scan(sc, lines) // owner: this connection; ends with it or at Close
	for line := range lines {
		if hold := lineRead.Load(); hold != nil {
			(*hold)(line)
		}
		e, err := decode(line)
		if err != nil {
			continue // a newer writer's message we do not know
		}
		if _, ping := e.(Ping); ping {
			continue
		}
		select {
		case c.events <- e:
		case <-c.done:
			return
		}
	}
}

// lineRead, when set (tests), is called with each line before its decode:
// it holds the decode.
var lineRead atomic.Pointer[func(line []byte)]

// scan reads the writer's lines into lines until the connection ends.
func (c *Conn) scan(sc *bufio.Scanner, lines chan<- []byte) {
	defer close(lines)
	for {
		c.conn.SetReadDeadline(time.Now().Add(readTimeout))
		if !sc.Scan() {
			err := sc.Err()
			if err == nil {
				err = errors.New("the writer closed the connection")
			}
			c.setErr(err)
			c.conn.Close()
			return
		}
		select {
		case lines <- bytes.Clone(sc.Bytes()):
		case <-c.done:
			return
		}
	}
}

// Events delivers the writer's events in order; it is closed when the
// writer is gone (Err says why) or Close was called.
func (c *Conn) Events() <-chan soul.Event { return c.events }

// Err is why Events was closed.
func (c *Conn) Err() error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	return c.err
}

func (c *Conn) setErr(err error) {
	c.errMu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.errMu.Unlock()
}

// Answer sends an answer to the pending approval toolCallID; the
// AnswerResult arrives on Events.
func (c *Conn) Answer(toolCallID string, d soul.ApprovalDecision, feedback string) error {
	line := encode(Answer{ToolCallID: toolCallID, Decision: d, Feedback: feedback, PID: os.Getpid()})
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := c.conn.Write(line); err != nil {
		return fmt.Errorf("live: send answer: %w", err)
	}
	return nil
}

// Close disconnects; Events is closed soon after.
func (c *Conn) Close() error {
	c.setErr(errors.New("closed"))
	var err error
	c.once.Do(func() {
		close(c.done)
		err = c.conn.Close()
	})
	return err
}
