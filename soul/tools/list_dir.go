package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-agent/rewind/internal/words"
)

//go:embed list_dir.md
var listDirDescription string

const listMaxEntries = 1000

// listDirArgs are ListDir's arguments.
type listDirArgs struct {
	Path string `json:"path,omitempty" jsonschema:"The directory to list (default: the work dir)."`
}

func (listDirArgs) About() About {
	return About{Name: "ListDir", Description: listDirDescription, ReadOnly: true, Params: map[string]Param{
		"path": {Default: "."},
	}}
}

func (a listDirArgs) Label() string {
	if a.Path == "" {
		return "."
	}
	return a.Path
}

// ListDir lists one directory.
type ListDir struct{ Typed[listDirArgs] }

func (t *ListDir) Call(ctx context.Context, env *Env, args json.RawMessage) Result {
	env = envOrEmpty(env)
	a, res, ok := t.Decode(args)
	if !ok {
		return res
	}
	tg, res, ok := resolveForRead(ctx, env, t.Name(), a.Path, "List")
	if !ok {
		return res
	}
	info, err := os.Stat(tg.Real)
	if err != nil {
		return statErr(tg.Display, err)
	}
	if !info.IsDir() {
		return errorResult("not a directory", "%s is a file (%s), not a directory; use ReadFile to read it.", tg.Display, HumanBytes(info.Size()))
	}
	entries, err := os.ReadDir(tg.Real) // sorted by name
	if err != nil {
		return statErr(tg.Display, err)
	}
	if len(entries) == 0 {
		return Result{Output: fmt.Sprintf("%s is empty.", tg.Display), Brief: "empty directory"}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n", tg.Display)
	for i, e := range entries {
		if i == listMaxEntries {
			fmt.Fprintf(&b, "[… %d more entries not shown; use Glob to narrow down.]\n", len(entries)-listMaxEntries)
			break
		}
		b.WriteString(formatEntry(tg.Real, e))
	}
	return Result{
		Output: strings.TrimRight(b.String(), "\n"),
		Brief:  fmt.Sprintf("%s in %s", words.Count(len(entries), "entry"), tg.Display),
	}
}

// formatEntry renders one directory entry as "type  size  name".
func formatEntry(dir string, e fs.DirEntry) string {
	name := e.Name()
	switch {
	case e.Type()&fs.ModeSymlink != 0:
		dest, err := os.Readlink(filepath.Join(dir, name))
		if err != nil {
			dest = "?"
		}
		return fmt.Sprintf("%-7s %9s  %s -> %s\n", "symlink", "-", name, dest)
	case e.IsDir():
		return fmt.Sprintf("%-7s %9s  %s/\n", "dir", "-", name)
	}
	size := "?"
	kind := "file"
	if info, err := e.Info(); err == nil {
		size = HumanBytes(info.Size())
		if !info.Mode().IsRegular() {
			kind, size = "other", "-"
		}
	}
	return fmt.Sprintf("%-7s %9s  %s\n", kind, size, name)
}
