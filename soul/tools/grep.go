package tools

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/rewind-agent/rewind/internal/regfile"
	"github.com/rewind-agent/rewind/internal/words"
)

//go:embed grep.md
var grepDescription string

// Grep limits.
const (
	grepMaxMatches   = 200
	grepMaxLineChars = 300
	grepMaxFileSize  = 20 << 20
	grepMaxScanLine  = 64 << 10
)

// grepArgs are Grep's arguments.
type grepArgs struct {
	Pattern    string `json:"pattern" jsonschema:"The regular expression (Go RE2 syntax)."`
	Path       string `json:"path,omitempty" jsonschema:"The file or directory to search (default: the work dir)."`
	Glob       string `json:"glob,omitempty" jsonschema:"Only search files matching this glob (e.g. *.go, src/**/*.ts)."`
	IgnoreCase bool   `json:"ignore_case,omitempty" jsonschema:"Case-insensitive search."`
}

func (grepArgs) About() About {
	return About{Name: "Grep", Description: grepDescription, ReadOnly: true, Params: map[string]Param{
		"path":        {Default: "."},
		"ignore_case": {Default: false},
	}}
}

func (a grepArgs) Label() string { return a.Pattern }

// Grep searches file contents with a Go regexp.
type Grep struct{ Typed[grepArgs] }

func (t *Grep) Call(ctx context.Context, env *Env, args json.RawMessage) Result {
	env = envOrEmpty(env)
	a, res, ok := t.Decode(args)
	if !ok {
		return res
	}
	if a.Pattern == "" {
		return invalidArgs(t.Name(), "the pattern is empty.")
	}
	expr := a.Pattern
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return errorResult("invalid pattern", "Invalid regular expression %q: %v. Grep uses Go RE2 syntax (no look-around or backreferences).", a.Pattern, err)
	}
	var globSegs []string
	globOnName := false
	if g := strings.TrimPrefix(filepath.ToSlash(strings.TrimSpace(a.Glob)), "./"); g != "" {
		if globSegs, err = splitGlob(g); err != nil {
			return errorResult("invalid glob", "Invalid glob %q: %v.", a.Glob, err)
		}
		globOnName = !strings.Contains(g, "/")
	}
	tg, res, ok := resolveForRead(ctx, env, t.Name(), a.Path, "Search")
	if !ok {
		return res
	}
	info, err := os.Stat(tg.Real)
	if err != nil {
		return statErr(tg.Display, err)
	}
	wd, _ := workDir(env)

	s := grepState{re: re}
	if !info.IsDir() {
		s.file(ctx, tg.Real, tg.Display)
	} else {
		err = walk(ctx, tg.Real, func(rel string, d fs.DirEntry) error {
			if !d.Type().IsRegular() {
				return nil
			}
			if globSegs != nil {
				name := strings.Split(rel, "/")
				if globOnName {
					name = name[len(name)-1:]
				}
				if !matchSegs(globSegs, name) {
					return nil
				}
			}
			if !s.file(ctx, filepath.Join(tg.Real, filepath.FromSlash(rel)), displayPath(wd, tg, rel)) {
				return fs.SkipAll
			}
			return nil
		})
		if res, ok := walkErr(ctx, tg, err); !ok {
			return res
		}
	}
	if ctx.Err() != nil {
		return errorResult("interrupted", "The search was interrupted.")
	}
	if s.matches == 0 {
		return Result{Output: fmt.Sprintf("No matches for %q in %s.", a.Pattern, tg.Display), Brief: "no matches"}
	}
	out := strings.TrimRight(s.out.String(), "\n")
	if s.capped {
		out += fmt.Sprintf("\n[Results capped at %d matches; narrow the pattern, path or glob.]", grepMaxMatches)
	}
	if errors.Is(err, errWalkLimit) {
		out += fmt.Sprintf("\n[Search stopped after %d entries; use a narrower path.]", walkMaxEntries)
	}
	if s.skippedBinary > 0 {
		out += fmt.Sprintf("\n[%s skipped.]", words.Count(s.skippedBinary, "binary file"))
	}
	return Result{Output: out, Brief: fmt.Sprintf("%s in %s", words.Count(s.matches, "match"), words.Count(s.files, "file"))}
}

type grepState struct {
	re            *regexp.Regexp
	out           strings.Builder
	matches       int
	files         int
	skippedBinary int
	capped        bool
}

// file searches one file; false once the match cap is reached.
func (s *grepState) file(ctx context.Context, real, display string) bool {
	if ctx.Err() != nil {
		return false
	}
	f, err := regfile.Open(real) // a FIFO in the tree must not block the search
	if err != nil {
		return true
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() || info.Size() > grepMaxFileSize {
		return true
	}
	br := bufio.NewReaderSize(regfile.NewReader(ctx, f, display), 64<<10)
	head, _ := br.Peek(binarySniffLen)
	if isBinary(head) {
		s.skippedBinary++
		return true
	}
	found := false
	for n := 1; ; n++ {
		line, _, err := readLine(br, grepMaxScanLine)
		if err != nil && line == "" {
			if !errors.Is(err, io.EOF) {
				return true
			}
			break
		}
		line = strings.TrimSuffix(line, "\r")
		if s.re.MatchString(line) {
			if s.matches == grepMaxMatches {
				s.capped = true
				return false
			}
			s.matches++
			if !found {
				found = true
				s.files++
			}
			if utf8.RuneCountInString(line) > grepMaxLineChars {
				line = clipRunes(line, grepMaxLineChars) + " …"
			}
			fmt.Fprintf(&s.out, "%s:%d:%s\n", display, n, line)
		}
		if err != nil {
			break
		}
	}
	return true
}
