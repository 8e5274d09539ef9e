package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is wrapped by the error for a path that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError says what a refused path is and why it was refused.
type NotRegularError struct {
	Path string
	Kind string // "a named pipe (FIFO)", "a directory", …
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; rewind reads only regular files, since a pipe or device could block it forever", e.Path, e.Kind)
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
	return f, nil
}

// ReadFile is os.ReadFile for regular files only.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
