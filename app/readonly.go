package app

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// readOnlyError phrases a failure to write the database at dbPath whose
// cause is that its directory (REWIND_HOME) or the file itself cannot be
// written: a permission error, a read-only file system, or SQLite's
// "readonly"/"cannot open" codes. ok is false for any other failure.
func readOnlyError(err error, dbPath string) (error, bool) {
	var se sqlite3.Error
	isSQLite := errors.As(err, &se) && (se.Code == sqlite3.ErrReadonly || se.Code == sqlite3.ErrCantOpen)
	if !isSQLite && !errors.Is(err, fs.ErrPermission) && !errors.Is(err, syscall.EROFS) {
		return nil, false
	}
	home := filepath.Dir(dbPath)
	switch {
	case !writable(nearestDir(home)):
		return userErrorf(err, "REWIND_HOME %s is read-only: make it writable, or pass --home (or set REWIND_HOME) to a writable directory", home), true
	case !writable(dbPath):
		return userErrorf(err, "the database %s is read-only: make it writable (chmod u+w), or pass --home to use another directory", dbPath), true
	}
	return nil, false
}

// nearestDir is dir or, when it does not exist yet, its closest existing
// ancestor (the directory rewind would have to create it in).
func nearestDir(dir string) string {
	for {
		if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
			return dir
		}
		dir = filepath.Dir(dir)
	}
}

// writable reports whether this process may write path (W_OK, which also
// fails on a read-only file system). A missing path counts as writable.
func writable(path string) bool {
	err := syscall.Access(path, 2) // W_OK
	return err == nil || errors.Is(err, fs.ErrNotExist)
}
