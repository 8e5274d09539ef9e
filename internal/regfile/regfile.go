package regfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// ErrNotRegular is wrapped by the error for a path that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError says what a refused path is and why it was refused.
type NotRegularError struct {
	Path string
	Kind string // "a named pipe (FIFO)", "a directory", …
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; rewind reads only regular files, since a pipe, a device or a kernel file could block it forever", e.Path, e.Kind)
}

func (e *NotRegularError) Unwrap() error { return ErrNotRegular }

// Kind names the type of a file mode for messages.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// Open opens path for reading if it is a regular file (after following
// symlinks); otherwise it returns a *NotRegularError without having blocked.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Kind: Kind(info.Mode())}
	}
	if kind := pseudoKind(f); kind != "" {
		f.Close()
		return nil, &NotRegularError{Path: path, Kind: kind}
	}
	return f, nil
}

// ReadFile is os.ReadFile for regular files only, each read bounded by
// ReadTimeout (see NewReader).
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if info, err := f.Stat(); err == nil && info.Size() > 0 {
		buf.Grow(int(info.Size()) + 1)
	}
	_, err = buf.ReadFrom(NewReader(context.Background(), f, path))
	return buf.Bytes(), err
}

// ReadTimeout is how long one read of a file may take before rewind gives
// up on it. A regular file answers at once; one that does not is on a hung
// network mount or otherwise stuck, and waiting longer would hang the
// prompt or the import that asked.
const ReadTimeout = 10 * time.Second

// TimeoutError is a read that did not return within ReadTimeout.
type TimeoutError struct {
	Path    string
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("reading %s: no data for %s, gave up (a hung mount or a file that is not what it seems)", e.Path, e.Timeout)
}

// NewReader bounds each read of r in time: a Read that has not returned
// within ReadTimeout, or when ctx is done, fails (with a *TimeoutError or
// ctx's error), and so does every later one. The read itself cannot be
// stopped: a goroutine is left blocked in it, with its own buffer, until it
// returns. path names r in errors.
func NewReader(ctx context.Context, r io.Reader, path string) io.Reader {
	return newTimedReader(ctx, r, path, ReadTimeout)
}

func newTimedReader(ctx context.Context, r io.Reader, path string, d time.Duration) *timedReader {
	return &timedReader{ctx: ctx, r: r, path: path, timeout: d}
}

type timedReader struct {
	ctx     context.Context
	r       io.Reader
	path    string
	timeout time.Duration
	buf     []byte
	err     error
}

type readResult struct {
	n   int
	err error
}

func (t *timedReader) Read(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	if err := t.ctx.Err(); err != nil {
		t.err = err
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if len(t.buf) < len(p) {
		t.buf = make([]byte, len(p))
	}
	buf := t.buf[:len(p)]
	done := make(chan readResult, 1)
	go func() {
		n, err := t.r.Read(buf)
		done <- readResult{n, err}
	}()
	timer := time.NewTimer(t.timeout)
	defer timer.Stop()
	select {
	case res := <-done:
		copy(p, buf[:res.n])
		return res.n, res.err
	case <-timer.C:
		t.err = &TimeoutError{Path: t.path, Timeout: t.timeout}
	case <-t.ctx.Done():
		t.err = t.ctx.Err()
	}
	t.buf = nil // the stalled read still owns it
	return 0, t.err
}
