package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-agent/rewind/internal/regfile"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/kimi"
)

// Export writes a generation of a session (the current one when gen is nil)
// in kimi-cli's context.jsonl format to stdout, or to the file out.
//
// An existing out file is never replaced unless force is set: the export is
// written to a temporary file next to it and then linked into place, which
// fails if the name exists (or renamed over it with force), so the target is
// either the complete export or untouched.
func Export(ctx context.Context, rt *Runtime, id string, gen *int, out string, force bool) error {
	h, err := rt.openSession(ctx, id, false)
	if err != nil {
		return err
	}
	defer h.Close(ctx)
	db, s := h.db, h.s
	g, what := -1, ""
	if gen != nil {
		g, what = *gen, fmt.Sprintf("generation %d", *gen)
	}
	var buf bytes.Buffer
	if err := kimi.Export(ctx, db, s.ID, g, &buf); err != nil {
		return storeError(err, s.ID, what)
	}
	if out == "" || out == "-" {
		_, err := rt.Stdout.Write(buf.Bytes())
		return err
	}
	if err := writeNoClobber(out, buf.Bytes(), force); err != nil {
		return err
	}
	lines := bytes.Count(buf.Bytes(), []byte("\n"))
	_, err = fmt.Fprintf(rt.Stdout, "exported session %s (%d %s) to %s\n", s.ID, lines, plural(lines, "line", "lines"), out)
	return err
}

// writeNoClobber writes data to path atomically; an existing path is kept
// unless force.
func writeNoClobber(path string, data []byte, force bool) error {
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return userErrorf(nil, "%s is a directory: give a file name to -o", path)
		}
		if !force {
			return userErrorf(nil, "%s already exists: choose another name or pass --force to replace it", path)
		}
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return userErrorf(err, "cannot write in %s: %v", dir, unwrapPathError(err))
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName)
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return userErrorf(err, "cannot write %s: %v", path, unwrapPathError(err))
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return userErrorf(err, "cannot write %s: %v", path, unwrapPathError(err))
	}
	if err := tmp.Close(); err != nil {
		return userErrorf(err, "cannot write %s: %v", path, unwrapPathError(err))
	}
	if force {
		err = os.Rename(tmpName, path)
	} else {
		err = os.Link(tmpName, path)
		if errors.Is(err, fs.ErrExist) {
			return userErrorf(err, "%s already exists: choose another name or pass --force to replace it", path)
		}
	}
	if err != nil {
		return userErrorf(err, "cannot write %s: %v", path, unwrapPathError(err))
	}
	return nil
}

// Import reads a kimi-cli context.jsonl or session directory into a new
// session of the work dir and prints the new session's id.
func Import(ctx context.Context, rt *Runtime, path string) error {
	if _, err := os.Stat(path); err != nil {
		return userErrorf(err, "cannot import %s: %v", path, unwrapPathError(err))
	}
	db, cfg, err := rt.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	s, err := kimi.ImportPath(ctx, db, path, cfg.WorkDir)
	if err != nil {
		return importError(err, path)
	}
	_, err = fmt.Fprintln(rt.Stdout, s.ID)
	return err
}

func importError(err error, path string) error {
	var le *kimi.LineError
	switch {
	case errors.As(err, &le):
		return userErrorf(err, "%s:%d: %s; nothing was imported", le.File, le.Line, oneLine(le.Err.Error()))
	case errors.Is(err, regfile.ErrNotRegular):
		return userErrorf(err, "cannot import: %v", err)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		return userErrorf(err, "cannot import %s: %s", path, oneLine(unwrapPathError(err).Error()))
	case errors.Is(err, store.ErrNotDatabase), errors.Is(err, store.ErrNewerSchema), isBusy(err):
		return err
	}
	msg := strings.TrimPrefix(oneLine(err.Error()), "import: ")
	return userErrorf(err, "cannot import %s: %s; nothing was imported", path, strings.TrimPrefix(msg, path+": "))
}

// unwrapPathError drops the "open PATH:" prefix of a *fs.PathError, the
// caller names the path itself.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
