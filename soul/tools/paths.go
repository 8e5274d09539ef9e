package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// target is a path argument resolved against the work dir.
type target struct {
	Abs     string // lexical absolute path
	Real    string // symlinks resolved (as far as the path exists)
	Display string // relative to the work dir when lexically inside it
	// Inside: Real lies in the work dir (the confinement check).
	Inside bool
	// Escapes: the path lies lexically in the work dir but a symlink takes
	// it outside. Never written through.
	Escapes bool
	// Track is the path handed to the FileTracker: Real re-expressed under
	// the work dir as the caller spelt it, when Inside.
	Track string
}

// workDir returns env.WorkDir made absolute (the current dir when empty).
func workDir(env *Env) (string, error) {
	wd := env.WorkDir
	if wd == "" {
		wd = "."
	}
	abs, err := filepath.Abs(wd)
	if err != nil {
		return "", fmt.Errorf("cannot resolve the work dir %q: %v", wd, err)
	}
	return abs, nil
}

// within reports whether p is base or below it (both clean and absolute).
func within(base, p string) bool {
	rel, err := filepath.Rel(base, p)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

// maxLinks bounds the symlinks followed in one path (Linux's MAXSYMLINKS).
const maxLinks = 40

// evalExisting resolves every symlink of p as the kernel would when
// creating it, also a dangling one (a link to a file or directory that does
// not exist yet, which a write would create wherever it points), and keeps
// the components past the first missing one as they are. p is absolute.
func evalExisting(p string) (string, error) {
	cur := string(filepath.Separator)
	rest := strings.Split(strings.TrimPrefix(filepath.Clean(p), cur), cur)
	links := 0
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur) // cur has no links left: lexical is right
			continue
		}
		next := filepath.Join(cur, name)
		fi, err := os.Lstat(next)
		switch {
		case err != nil:
			// Missing (or not a directory, or not searchable): nothing
			// below it can be reached, through a link or otherwise.
			return filepath.Join(append([]string{next}, rest...)...), nil
		case fi.Mode()&fs.ModeSymlink == 0:
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("too many levels of symlinks at %s", next)
		}
		to, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(to) {
			cur = string(filepath.Separator)
		}
		rest = append(strings.Split(to, string(filepath.Separator)), rest...)
	}
	return cur, nil
}

// resolve resolves a path argument. An empty path means the work dir.
func resolve(env *Env, p string) (target, error) {
	wd, err := workDir(env)
	if err != nil {
		return target{}, err
	}
	if strings.ContainsRune(p, 0) {
		return target{}, errors.New("the path contains a NUL byte")
	}
	var t target
	if p == "" {
		t.Abs = wd
	} else if filepath.IsAbs(p) {
		t.Abs = filepath.Clean(p)
	} else {
		t.Abs = filepath.Join(wd, p)
	}
	realWD, err := evalExisting(wd)
	if err != nil {
		return target{}, fmt.Errorf("cannot resolve the work dir %q: %v", wd, err)
	}
	if t.Real, err = evalExisting(t.Abs); err != nil {
		return target{}, fmt.Errorf("cannot resolve its symlinks: %v", err)
	}
	lexInside := within(wd, t.Abs)
	t.Inside = within(realWD, t.Real)
	t.Escapes = lexInside && !t.Inside
	if lexInside {
		t.Display, _ = filepath.Rel(wd, t.Abs)
	} else {
		t.Display = t.Abs
	}
	t.Track = t.Real
	if t.Inside {
		if rel, err := filepath.Rel(realWD, t.Real); err == nil {
			t.Track = filepath.Join(wd, rel)
		}
	}
	return t, nil
}

// resolveForRead resolves p and, when it lies outside the work dir, asks
// the user (ActionAccessOutside). ok is false with a ready Result otherwise.
func resolveForRead(ctx context.Context, env *Env, tool, p, verb string) (target, Result, bool) {
	t, res, ok := resolveArg(env, p)
	if !ok {
		return t, res, false
	}
	if t.Inside {
		return t, Result{}, true
	}
	what := t.Abs
	if t.Escapes {
		what = fmt.Sprintf("%s (a symlink to %s)", t.Display, t.Real)
	}
	res, ok = approve(ctx, env, Approval{
		Tool:        tool,
		Action:      ActionAccessOutside,
		Description: fmt.Sprintf("%s %s, outside the work dir", verb, what),
	})
	return t, res, ok
}

// resolveForWrite resolves the path argument of an edit, refuses a write
// through a symlink that leaves the work dir and reports the approval
// action for the write. ok is false with a ready Result otherwise.
func resolveForWrite(env *Env, p string) (t target, action string, res Result, ok bool) {
	t, res, ok = resolveArg(env, p)
	switch {
	case !ok:
		return t, "", res, false
	case t.Escapes:
		return t, "", errorResult("refused", "Refusing to write %s: it resolves through a symlink to %s, outside the work dir. Write to a path inside the work dir instead.", t.Display, t.Real), false
	case !t.Inside:
		return t, ActionEditOutside, Result{}, true
	}
	return t, ActionEditFile, Result{}, true
}

// resolveArg is resolve for a path argument, with the tool error.
func resolveArg(env *Env, p string) (target, Result, bool) {
	t, err := resolve(env, p)
	if err != nil {
		return t, errorResult("bad path", "Invalid path %q: %v.", p, err), false
	}
	return t, Result{}, true
}

// statErr turns a stat/open error into a tool error the model can act on.
func statErr(display string, err error) Result {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errorResult("not found", "%s does not exist. Check the path (relative paths resolve against the work dir).", display)
	case errors.Is(err, fs.ErrPermission):
		return errorResult("permission denied", "Permission denied: %s.", display)
	}
	return errorResult("error", "Cannot access %s: %v.", display, err)
}

// skipDir reports directories never walked by Glob and Grep.
func skipDir(name string) bool {
	return name == ".git"
}

// relSlash is p relative to base with forward slashes ("" when not below).
func relSlash(base, p string) string {
	rel, err := filepath.Rel(base, p)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(rel)
}

// binarySniffLen is how much of the head of a file or text is searched for
// the NUL byte that marks it as binary.
const binarySniffLen = 8192

// isBinary reports whether a file's head looks binary: a NUL byte in its
// first binarySniffLen bytes.
func isBinary(head []byte) bool {
	return bytes.IndexByte(head[:min(len(head), binarySniffLen)], 0) >= 0
}

// isBinaryText is isBinary for content held as a string.
func isBinaryText(s string) bool {
	return strings.IndexByte(s[:min(len(s), binarySniffLen)], 0) >= 0
}
