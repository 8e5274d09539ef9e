package filecp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rewind-agent/rewind/internal/ignore"
)

// Meta is what a metadata scan learns about a file without reading it.
type Meta struct {
	Size    int64
	MtimeNs int64
	// Mode holds the permission bits and the type bits (fs.ModeSymlink for
	// a symbolic link; regular files have no type bits).
	Mode fs.FileMode
}

// IsLink reports whether the entry is a symbolic link.
func (m Meta) IsLink() bool { return m.Mode&fs.ModeSymlink != 0 }

// Skip reasons.
const (
	ReasonIgnored    = "ignored by .gitignore"
	ReasonSkipDir    = "excluded directory"
	ReasonTooLarge   = "larger than the size cap"
	ReasonNotRegular = "not a regular file or symlink"
	ReasonUnreadable = "unreadable"
	ReasonOutside    = "outside the work dir"
	ReasonUnsafePath = "a parent directory is a symlink or not a directory"
)

// Skipped is a path a scan (or a revert) did not handle, with the reason.
// Directories end in "/".
type Skipped struct {
	Path   string
	Reason string
	Size   int64 // files: the size seen
	// MtimeNs is set for oversized files, so changes to them can be noticed
	// (and reported) even though their content is not kept.
	MtimeNs int64
}

// Tree is the result of a metadata scan: work-dir-relative slash-separated
// paths of the files and symlinks kept, and what was skipped.
type Tree struct {
	Files   map[string]Meta
	Skipped []Skipped
}

// Scanner walks a work dir honouring .gitignore files (the root one and
// nested ones), skipping VCS metadata, configured directories and files
// over the size cap. It never follows symlinks.
type Scanner struct {
	root      string
	opts      Options
	skipNames map[string]bool
	skipPaths map[string]bool
	max       int64
}

// NewScanner returns a scanner of root (made absolute).
func NewScanner(root string, opts Options) (*Scanner, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("filecp: work dir %q: %w", root, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("filecp: work dir: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("filecp: work dir %s is not a directory", abs)
	}
	names, paths := opts.skipDirs()
	return &Scanner{root: abs, opts: opts, skipNames: names, skipPaths: paths, max: opts.maxFileSize()}, nil
}

// Root is the absolute work dir.
func (s *Scanner) Root() string { return s.root }

// MaxFileSize is the effective size cap.
func (s *Scanner) MaxFileSize() int64 { return s.max }

// Scan walks the tree reading only metadata (lstat); no file content is read
// except .gitignore files.
func (s *Scanner) Scan(ctx context.Context) (Tree, error) {
	t := Tree{Files: make(map[string]Meta, 1024)}
	err := s.walk(ctx, "", nil, &t)
	sort.Slice(t.Skipped, func(i, j int) bool { return t.Skipped[i].Path < t.Skipped[j].Path })
	return t, err
}

func (s *Scanner) walk(ctx context.Context, rel string, layers ignore.Layers, t *Tree) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dir := filepath.Join(s.root, filepath.FromSlash(rel))
	entries, err := os.ReadDir(dir)
	if err != nil {
		if rel == "" {
			return fmt.Errorf("filecp: read work dir: %w", err)
		}
		t.Skipped = append(t.Skipped, Skipped{Path: rel + "/", Reason: ReasonUnreadable + ": " + errText(err)})
		return nil
	}
	if !s.opts.NoGitignore {
		layers = layers.Enter(dir, rel)
	}
	for _, e := range entries {
		name := e.Name()
		p := name
		if rel != "" {
			p = rel + "/" + name
		}
		if e.IsDir() {
			if s.skipNames[name] || s.skipPaths[p] {
				t.Skipped = append(t.Skipped, Skipped{Path: p + "/", Reason: ReasonSkipDir})
				continue
			}
			if layers.Ignored(p, true) {
				t.Skipped = append(t.Skipped, Skipped{Path: p + "/", Reason: ReasonIgnored})
				continue
			}
			if err := s.walk(ctx, p, layers, t); err != nil {
				return err
			}
			continue
		}
		if layers.Ignored(p, false) {
			t.Skipped = append(t.Skipped, Skipped{Path: p, Reason: ReasonIgnored})
			continue
		}
		info, err := e.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // vanished while walking
			}
			t.Skipped = append(t.Skipped, Skipped{Path: p, Reason: ReasonUnreadable + ": " + errText(err)})
			continue
		}
		m := metaOf(info)
		switch {
		case m.IsLink():
		case !info.Mode().IsRegular():
			t.Skipped = append(t.Skipped, Skipped{Path: p, Reason: ReasonNotRegular})
			continue
		case m.Size > s.max:
			t.Skipped = append(t.Skipped, Skipped{Path: p, Reason: ReasonTooLarge, Size: m.Size, MtimeNs: m.MtimeNs})
			continue
		}
		t.Files[p] = m
	}
	return nil
}

func metaOf(info fs.FileInfo) Meta {
	mode := info.Mode() & (fs.ModePerm | fs.ModeSymlink | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	return Meta{Size: info.Size(), MtimeNs: info.ModTime().UnixNano(), Mode: mode}
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// ErrUnsafePath is returned for a relative path that leaves the work dir or
// crosses a symlinked parent directory.
var ErrUnsafePath = errors.New("path is outside the work dir or crosses a symlink")

// cleanRel validates a work-dir-relative slash path.
func cleanRel(rel string) (string, error) {
	if rel == "" || strings.ContainsRune(rel, 0) || path.IsAbs(rel) {
		return "", ErrUnsafePath
	}
	c := path.Clean(rel)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", ErrUnsafePath
	}
	return c, nil
}

// checkParents verifies every existing parent directory of rel (inside root)
// is a real directory, not a symlink, so that nothing is read or written
// outside root through a link. Checking stops at the first missing parent:
// nothing below it exists, and writeState creates it as a real directory.
func checkParents(root, rel string) error {
	parts := strings.Split(rel, "/")
	cur := root
	for _, part := range parts[:len(parts)-1] {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() { // a symlink's Lstat is never a dir
			return ErrUnsafePath
		}
	}
	return nil
}

// readEntry reads the content of rel as the scan saw it: a symlink's target
// text, or a regular file's bytes (refusing anything that turned into
// something else, and anything over max). It returns the fresh metadata.
func readEntry(root, rel string, max int64) ([]byte, Meta, error) {
	if err := checkParents(root, rel); err != nil {
		return nil, Meta{}, err
	}
	full := filepath.Join(root, filepath.FromSlash(rel))
	info, err := os.Lstat(full)
	if err != nil {
		return nil, Meta{}, err
	}
	m := metaOf(info)
	if m.IsLink() {
		target, err := os.Readlink(full)
		if err != nil {
			return nil, Meta{}, err
		}
		return []byte(target), m, nil
	}
	if !info.Mode().IsRegular() {
		return nil, m, errNotRegular
	}
	if m.Size > max {
		return nil, m, errTooLarge
	}
	f, err := os.Open(full)
	if err != nil {
		return nil, Meta{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, Meta{}, err
	}
	if !fi.Mode().IsRegular() || !os.SameFile(fi, info) {
		return nil, Meta{}, errNotRegular
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, Meta{}, err
	}
	if int64(len(data)) > max {
		return nil, m, errTooLarge
	}
	m = metaOf(fi)
	m.Size = int64(len(data))
	return data, m, nil
}

var (
	errNotRegular = errors.New(ReasonNotRegular)
	errTooLarge   = errors.New(ReasonTooLarge)
)
