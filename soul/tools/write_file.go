package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul/unidiff"
)

//go:embed write_file.md
var writeFileDescription string

// writeFileArgs are WriteFile's arguments.
type writeFileArgs struct {
	Path    string `json:"path" jsonschema:"The file to write (relative to the work dir, or absolute)."`
	Content string `json:"content" jsonschema:"The content to write."`
	Mode    string `json:"mode,omitempty" jsonschema:"overwrite replaces the file; append adds to its end."`
}

func (writeFileArgs) About() About {
	return About{Name: "WriteFile", Description: writeFileDescription, Params: map[string]Param{
		"mode": {Default: "overwrite", Enum: []string{"overwrite", "append"}},
	}}
}

func (a writeFileArgs) Label() string { return a.Path }

// maxDiffSource: files larger than this get no diff in the approval.
const maxDiffSource = 4 << 20

// WriteFile writes or appends to a file after approval.
type WriteFile struct{ Typed[writeFileArgs] }

func (t *WriteFile) Call(ctx context.Context, env *Env, args json.RawMessage) Result {
	env = envOrEmpty(env)
	a, res, ok := t.Decode(args)
	if !ok {
		return res
	}
	if strings.TrimSpace(a.Path) == "" {
		return invalidArgs(t.Name(), "the path is empty.")
	}
	tg, action, res, ok := resolveForWrite(env, a.Path)
	if !ok {
		return res
	}

	old, exists, perm, res, ok := readForEdit(tg)
	if !ok {
		return res
	}
	appendMode := a.Mode == "append"
	newContent := a.Content
	if appendMode {
		newContent = old + a.Content
	}
	lines := countLines(a.Content)
	var desc string
	switch {
	case !exists:
		desc = fmt.Sprintf("Create %s (%s)", tg.Display, words.Count(lines, "line"))
	case appendMode:
		desc = fmt.Sprintf("Append %s to %s", words.Count(lines, "line"), tg.Display)
	default:
		desc = fmt.Sprintf("Overwrite %s with %s", tg.Display, words.Count(lines, "line"))
	}
	unchanged := exists && old == newContent
	if unchanged {
		desc += " (no change)"
	}
	if action == ActionEditOutside {
		desc += " (outside the work dir)"
	}
	if res, ok := approve(ctx, env, Approval{
		Tool:        t.Name(),
		Action:      action,
		Description: desc,
		Diff:        editDiff(tg.Display, old, newContent, exists),
	}); !ok {
		return res
	}
	note, res, ok := beforeWrite(ctx, env, tg)
	if !ok {
		return res
	}
	if err := os.MkdirAll(filepath.Dir(tg.Real), 0o755); err != nil {
		return errorResult("write failed", "Cannot create the directory for %s: %v.", tg.Display, err)
	}
	var err error
	if appendMode && exists {
		err = appendFile(tg.Real, a.Content)
	} else {
		err = os.WriteFile(tg.Real, []byte(newContent), perm)
	}
	if err != nil {
		return errorResult("write failed", "Writing %s failed: %v.", tg.Display, err)
	}
	verb := "Wrote"
	if appendMode {
		verb = "Appended"
	}
	return Result{
		Output: fmt.Sprintf("%s %s (%s) to %s.", verb, words.Count(lines, "line"), HumanBytes(int64(len(a.Content))), tg.Display) + note,
		Brief:  fmt.Sprintf("%s %s to %s", strings.ToLower(verb), words.Count(lines, "line"), tg.Display),
	}
}

func appendFile(path, content string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readForEdit reads the current content of a file about to be edited.
// A missing file is not an error (exists is false).
func readForEdit(tg target) (content string, exists bool, perm fs.FileMode, res Result, ok bool) {
	perm = 0o644
	info, err := os.Stat(tg.Real)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, perm, Result{}, true
	}
	if err != nil {
		return "", false, perm, statErr(tg.Display, err), false
	}
	if info.IsDir() {
		return "", false, perm, errorResult("is a directory", "%s is a directory, not a file.", tg.Display), false
	}
	if !info.Mode().IsRegular() {
		return "", false, perm, errorResult("not a file", "%s is not a regular file.", tg.Display), false
	}
	b, err := os.ReadFile(tg.Real)
	if err != nil {
		return "", false, perm, statErr(tg.Display, err), false
	}
	return string(b), true, info.Mode().Perm(), Result{}, true
}

// editDiff is the diff shown in an edit approval. An unchanged file gets a
// line saying so: an empty diff would leave the dialog nothing to show.
func editDiff(display, old, new string, exists bool) string {
	if exists && old == new {
		return fmt.Sprintf("(no change: %s already has this content)\n", display)
	}
	if len(old) > maxDiffSource || len(new) > maxDiffSource {
		return fmt.Sprintf("(diff omitted: %s is %s → %s)\n", display, HumanBytes(int64(len(old))), HumanBytes(int64(len(new))))
	}
	if isBinaryText(old) || isBinaryText(new) {
		return fmt.Sprintf("(binary content, diff omitted: %s → %s)\n", HumanBytes(int64(len(old))), HumanBytes(int64(len(new))))
	}
	var before []byte
	if exists {
		before = []byte(old)
	}
	return unidiff.Unified(display, before, []byte(new))
}

// beforeWrite calls the file-checkpoint hook. note is what the result
// says about a file whose content could not be kept (over the size cap).
func beforeWrite(ctx context.Context, env *Env, tg target) (note string, res Result, ok bool) {
	if err := ctx.Err(); err != nil {
		return "", errorResult("interrupted", "The tool call was interrupted; %s was not changed.", tg.Display), false
	}
	if env.Files == nil {
		return "", Result{}, true
	}
	notKept, err := env.Files.BeforeWrite(ctx, []string{tg.Track})
	if err != nil {
		return "", errorResult("checkpoint failed", "%s was not changed: saving its checkpoint failed: %v.", tg.Display, err), false
	}
	return NotKeptNote(notKept), Result{}, true
}

// countLines counts lines, a last line without newline included.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
