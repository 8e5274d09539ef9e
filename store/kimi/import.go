package kimi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/rewind-agent/rewind/internal/regfile"
	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/store"
)

// CurrentFile is the name of the current context file in a session directory.
const CurrentFile = "context.jsonl"

// historyFile is the current context file of early kimi-cli versions.
const historyFile = "history.jsonl"

// rotatedRE matches a rotated context file: kimi-cli's NAME_N.jsonl and
// the older NAME.jsonl.N, for context and the early history names.
var rotatedRE = regexp.MustCompile(`^(?:context|history)(?:_([1-9][0-9]*)\.jsonl|\.jsonl\.([1-9][0-9]*))$`)

// currentFileIn is a session directory's current context file:
// context.jsonl, else the early versions' history.jsonl.
func currentFileIn(dir string) (string, bool) {
	for _, name := range []string{CurrentFile, historyFile} {
		if exists(filepath.Join(dir, name)) {
			return name, true
		}
	}
	return "", false
}

// SessionFiles lists the context files of a kimi-cli session directory in
// generation order: the rotated files (context_N.jsonl, and the older
// context.jsonl.N and history names) by ascending N, oldest first, then
// the current file (context.jsonl, or history.jsonl). Other files are
// ignored.
func SessionFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	type rotated struct {
		n    int
		name string
	}
	var rot []rotated
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if m := rotatedRE.FindStringSubmatch(e.Name()); m != nil {
			n, err := strconv.Atoi(m[1] + m[2])
			if err != nil { // more digits than an int holds
				continue
			}
			rot = append(rot, rotated{n, e.Name()})
		}
	}
	current, ok := currentFileIn(dir)
	if !ok {
		return nil, fmt.Errorf("%s: no %s in the directory", dir, CurrentFile)
	}
	sort.SliceStable(rot, func(i, j int) bool { return rot[i].n < rot[j].n })
	out := make([]string, 0, len(rot)+1)
	for _, r := range rot {
		out = append(out, filepath.Join(dir, r.name))
	}
	return append(out, filepath.Join(dir, current)), nil
}

// ParseFile parses one context file; errors name the path.
func ParseFile(path string) (File, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	return Parse(regfile.NewReader(context.Background(), f, path), path)
}

// ImportPath imports one context.jsonl file (one generation) or one
// kimi-cli session directory (the rotated files as archived generations,
// oldest first, then context.jsonl as the current one) with ImportAll, and
// returns its session: new, updated, or (imported before, unchanged) as it
// was. workDir is used when kimi-cli's metadata does not name the session's.
// Every file is parsed before anything is written, in one transaction: on
// any error nothing is imported.
func ImportPath(ctx context.Context, db *store.DB, path string, workDir string) (store.Session, error) {
	d, err := Discover(path)
	if err != nil {
		return store.Session{}, fmt.Errorf("import: %w", err)
	}
	if len(d.Sources) != 1 {
		return store.Session{}, fmt.Errorf("import: %s holds %d sessions: import it with ImportAll", path, len(d.Sources))
	}
	res, err := ImportAll(ctx, db, d, BulkOptions{WorkDir: workDir})
	if err != nil {
		return store.Session{}, err
	}
	id := ""
	switch {
	case len(res.SessionIDs) == 1:
		id = res.SessionIDs[0]
	case res.Unchanged == 1:
		k, _, err := db.LookupKimiImport(ctx, d.Sources[0].ID)
		if err != nil {
			return store.Session{}, err
		}
		id = k.SessionID
	default:
		return store.Session{}, fmt.Errorf("import: %s: nothing to import, the context is empty", path)
	}
	return db.GetSession(ctx, id)
}

// TitleRunes is the longest title Title makes, in runes (plus an ellipsis).
const TitleRunes = 60

var systemTagRE = regexp.MustCompile(`(?s)<system>.*?</system>`)

// Title is the first line of the first real user message of the files, in
// order: checkpoint markers and <system>…</system> text are skipped. It is
// cut to TitleRunes runes. Empty when there is no such message.
func Title(files []File) string {
	for _, f := range files {
		for _, r := range f.Records {
			if r.Kind != store.KindMessage || r.Role != "user" {
				continue
			}
			m, err := r.Message()
			if err != nil || message.IsCheckpoint(m) {
				continue
			}
			text := systemTagRE.ReplaceAllString(m.Content.PlainText(), "")
			for _, line := range strings.Split(text, "\n") {
				if line = strings.Join(strings.Fields(line), " "); line != "" {
					return cut(line, TitleRunes)
				}
			}
		}
	}
	return ""
}

func cut(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return strings.TrimRight(string(rs[:n]), " ") + "…"
}
