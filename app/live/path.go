package live

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// maxSocketPath is the longest unix socket path Linux accepts (108 bytes
// with the terminating NUL).
const maxSocketPath = 107

// ErrPathTooLong is returned when $REWIND_HOME is so deep that a socket path
// in it would not fit in a sockaddr_un.
var ErrPathTooLong = errors.New("live: socket path too long")

// Dir is the directory of the live sockets of a rewind home.
func Dir(home string) string { return filepath.Join(home, "run") }

// SocketPath is where the writer of sessionID listens.
func SocketPath(home, sessionID string) (string, error) {
	p := filepath.Join(Dir(home), sessionID+".sock")
	if len(p) > maxSocketPath {
		return "", fmt.Errorf("%w: %s (move REWIND_HOME to a shorter path to watch runs live)", ErrPathTooLong, p)
	}
	return p, nil
}

// sessionOf is the session id of a socket path.
func sessionOf(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ".sock")
}

// ensureDir makes the socket directory, private to the user.
func ensureDir(home string) error {
	d := Dir(home)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return fmt.Errorf("live: create %s: %w", d, err)
	}
	// MkdirAll keeps an existing directory's mode: tighten it.
	if err := os.Chmod(d, 0o700); err != nil {
		return fmt.Errorf("live: chmod %s: %w", d, err)
	}
	return nil
}
