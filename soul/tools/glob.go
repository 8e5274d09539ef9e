package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rewind-agent/rewind/internal/ignore"
	"github.com/rewind-agent/rewind/internal/words"
)

//go:embed glob.md
var globDescription string

const (
	globMaxResults = 1000
	walkMaxEntries = 200_000
)

// globArgs are Glob's arguments.
type globArgs struct {
	Pattern   string `json:"pattern" jsonschema:"The glob, e.g. **/*.go ( ** matches any number of directories)."`
	Directory string `json:"directory,omitempty" jsonschema:"The directory to search in (default: the work dir)."`
}

func (globArgs) About() About {
	return About{Name: "Glob", Description: globDescription, ReadOnly: true, Params: map[string]Param{
		"directory": {Default: "."},
	}}
}

func (a globArgs) Label() string { return a.Pattern }

// Glob finds paths matching a pattern with ** support.
type Glob struct{ Typed[globArgs] }

var errWalkLimit = errors.New("walk limit reached")

func (t *Glob) Call(ctx context.Context, env *Env, args json.RawMessage) Result {
	env = envOrEmpty(env)
	a, res, ok := t.Decode(args)
	if !ok {
		return res
	}
	pattern := strings.TrimPrefix(filepath.ToSlash(strings.TrimSpace(a.Pattern)), "./")
	if pattern == "" {
		return invalidArgs(t.Name(), "the pattern is empty.")
	}
	if strings.HasPrefix(pattern, "/") {
		return errorResult("invalid pattern", "The pattern %q is absolute; make it relative and pass the base directory as directory.", a.Pattern)
	}
	segs, err := splitGlob(pattern)
	if err != nil {
		return errorResult("invalid pattern", "Invalid glob pattern %q: %v.", a.Pattern, err)
	}
	tg, res, ok := resolveForRead(ctx, env, t.Name(), a.Directory, "Search")
	if !ok {
		return res
	}
	wd, _ := workDir(env)
	var matches []string
	capped := false
	err = walk(ctx, tg.Real, func(rel string, d fs.DirEntry) error {
		if matchSegs(segs, strings.Split(rel, "/")) {
			if len(matches) == globMaxResults {
				capped = true
				return fs.SkipAll
			}
			shown := displayPath(wd, tg, rel)
			if d.IsDir() {
				shown += "/"
			}
			matches = append(matches, shown)
		}
		if d.IsDir() && !hasDoubleStar(segs) && strings.Count(rel, "/")+1 >= len(segs) {
			return fs.SkipDir
		}
		return nil
	})
	if res, ok := walkErr(ctx, tg, err); !ok {
		return res
	}
	sort.Strings(matches)
	if len(matches) == 0 {
		return Result{Output: fmt.Sprintf("No paths match %q in %s.", a.Pattern, tg.Display), Brief: "no matches"}
	}
	out := strings.Join(matches, "\n")
	if capped {
		out += fmt.Sprintf("\n[Results capped at %d; use a narrower pattern or directory.]", globMaxResults)
	}
	if errors.Is(err, errWalkLimit) {
		out += fmt.Sprintf("\n[Search stopped after %d entries; use a narrower directory.]", walkMaxEntries)
	}
	return Result{Output: out, Brief: fmt.Sprintf("%s for %s", words.Count(len(matches), "match"), a.Pattern)}
}

// walk visits every entry below root (not root itself) in lexical order,
// skipping .git, what the .gitignore files at and below root ignore (the
// matcher the file checkpoints use), and not following symlinks. rel uses
// forward slashes.
func walk(ctx context.Context, root string, fn func(rel string, d fs.DirEntry) error) error {
	n := 0
	layers := map[string]ignore.Layers{"": ignore.Layers(nil).Enter(root, "")}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable entry: skip it
		}
		if p == root {
			return nil
		}
		if d.IsDir() && skipDir(d.Name()) {
			return fs.SkipDir
		}
		rel := relSlash(root, p)
		parent := ""
		if i := strings.LastIndexByte(rel, '/'); i >= 0 {
			parent = rel[:i]
		}
		if layers[parent].Ignored(rel, d.IsDir()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			layers[rel] = layers[parent].Enter(p, rel)
		}
		n++
		if n > walkMaxEntries {
			return errWalkLimit
		}
		return fn(rel, d)
	})
}

// walkErr turns the error of walk into a Result (ok when it is fine to go on).
func walkErr(ctx context.Context, tg target, err error) (Result, bool) {
	switch {
	case err == nil, errors.Is(err, errWalkLimit):
		return Result{}, true
	case ctx.Err() != nil:
		return errorResult("interrupted", "The search was interrupted."), false
	}
	return statErr(tg.Display, err), false
}

// displayPath shows rel (below the searched dir) relative to the work dir
// when the searched dir is lexically inside it, else as an absolute path.
func displayPath(wd string, tg target, rel string) string {
	full := filepath.Join(tg.Abs, filepath.FromSlash(rel))
	if within(wd, tg.Abs) {
		return relSlash(wd, full)
	}
	return filepath.ToSlash(full)
}

// splitGlob splits a pattern into segments and checks their syntax.
func splitGlob(pattern string) ([]string, error) {
	var segs []string
	for _, s := range strings.Split(pattern, "/") {
		if s == "" || s == "." {
			continue
		}
		if s == "**" && len(segs) > 0 && segs[len(segs)-1] == "**" {
			continue
		}
		if _, err := path.Match(s, "x"); err != nil {
			return nil, err
		}
		segs = append(segs, s)
	}
	if len(segs) == 0 {
		return nil, errors.New("it has no segments")
	}
	return segs, nil
}

func hasDoubleStar(segs []string) bool {
	for _, s := range segs {
		if s == "**" {
			return true
		}
	}
	return false
}

// matchSegs matches path segments against glob segments; "**" matches zero
// or more segments.
func matchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			if len(rest) == 0 {
				return true
			}
			for i := 0; i <= len(name); i++ {
				if matchSegs(rest, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
