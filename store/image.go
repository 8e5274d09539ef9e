package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Image is a closed database held in memory that this process created and
// filled through SQLite: tests build one costly database once and start
// many from copies of it (see storetest).
type Image struct {
	file, wal []byte
}

// BuildImage creates a database in a temporary directory, lets build fill
// it, closes it and keeps its bytes; the directory is removed.
func BuildImage(ctx context.Context, build func(context.Context, *DB) error) (*Image, error) {
	dir, err := os.MkdirTemp("", "rewind-image")
	if err != nil {
		return nil, fmt.Errorf("build image: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "rewind.db")
	db, err := Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("build image: %w", err)
	}
	if !db.check.created {
		db.Close()
		return nil, errors.New("build image: the new database was not empty")
	}
	if err := build(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("build image: %w", err)
	}
	// Closing the last connection checkpoints the WAL into the file.
	if err := db.Close(); err != nil {
		return nil, fmt.Errorf("build image: close: %w", err)
	}
	im := &Image{}
	if im.file, err = os.ReadFile(path); err != nil {
		return nil, fmt.Errorf("build image: %w", err)
	}
	if wal, err := os.ReadFile(path + "-wal"); err == nil {
		im.wal = wal
	}
	return im, nil
}

// WriteNew writes the image to path, which must not exist yet, and stamps
// the copy as checked: its bytes are those of a database this process
// created and wrote only through SQLite, the case in which a process
// stamps its own file (stampCheckCache), so Open need not quick_check it.
func (im *Image) WriteNew(path string) error {
	if err := writeNewFile(path, im.file); err != nil {
		return fmt.Errorf("write image: %w", err)
	}
	if im.wal != nil {
		if err := writeNewFile(path+"-wal", im.wal); err != nil {
			return fmt.Errorf("write image: %w", err)
		}
	}
	s, ok := fileStamp(path)
	if !ok || s.size == 0 {
		return nil // an empty image: Open treats it as a new database
	}
	if err := writeCheckCache(path, s); err != nil {
		return fmt.Errorf("write image: stamp: %w", err)
	}
	return nil
}

func writeNewFile(path string, data []byte) error {
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := out.Write(data); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
