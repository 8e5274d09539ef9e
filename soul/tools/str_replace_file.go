package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/rewind-agent/rewind/internal/words"
)

//go:embed str_replace_file.md
var strReplaceFileDescription string

// strReplaceFileArgs are StrReplaceFile's arguments.
type strReplaceFileArgs struct {
	Path       string `json:"path" jsonschema:"The file to edit (relative to the work dir, or absolute)."`
	Old        string `json:"old" jsonschema:"The exact text to replace."`
	New        string `json:"new" jsonschema:"The replacement text."`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace every occurrence instead of requiring exactly one."`
}

func (strReplaceFileArgs) About() About {
	return About{Name: "StrReplaceFile", Description: strReplaceFileDescription, Params: map[string]Param{
		"replace_all": {Default: false},
	}}
}

func (a strReplaceFileArgs) Label() string { return a.Path }

// StrReplaceFile replaces an exact string in a file after approval.
type StrReplaceFile struct{ Typed[strReplaceFileArgs] }

func (t *StrReplaceFile) Call(ctx context.Context, env *Env, args json.RawMessage) Result {
	env = envOrEmpty(env)
	a, res, ok := t.Decode(args)
	if !ok {
		return res
	}
	if strings.TrimSpace(a.Path) == "" {
		return invalidArgs(t.Name(), "the path is empty.")
	}
	if a.Old == "" {
		return invalidArgs(t.Name(), "old is empty. To create or rewrite a file use WriteFile.")
	}
	if a.Old == a.New {
		return errorResult("no change", "old and new are identical; nothing to replace.")
	}
	tg, action, res, ok := resolveForWrite(env, a.Path)
	if !ok {
		return res
	}
	content, exists, perm, res, ok := readForEdit(tg)
	if !ok {
		return res
	}
	if !exists {
		return errorResult("not found", "%s does not exist. To create a file use WriteFile.", tg.Display)
	}
	if isBinaryText(content) {
		return errorResult("binary file", "%s is a binary file; StrReplaceFile edits text files only.", tg.Display)
	}
	n := strings.Count(content, a.Old)
	switch {
	case n == 0:
		return errorResult("old not found", "old was not found in %s.%s Read the file and copy the text exactly, including whitespace and indentation.", tg.Display, notFoundHint(content, a.Old))
	case n > 1 && !a.ReplaceAll:
		return errorResult("old not unique", "old was found %d times in %s; pass replace_all=true to replace every occurrence, or make old unique by including more surrounding lines.", n, tg.Display)
	}
	replaced := 1
	newContent := strings.Replace(content, a.Old, a.New, 1)
	if a.ReplaceAll {
		replaced = n
		newContent = strings.ReplaceAll(content, a.Old, a.New)
	}
	diff := editDiff(tg.Display, content, newContent, true)
	added, removed := diffStat(diff)
	desc := fmt.Sprintf("Edit %s (replace %s)", tg.Display, words.Count(replaced, "occurrence"))
	if action == ActionEditOutside {
		desc += " (outside the work dir)"
	}
	if res, ok := approve(ctx, env, Approval{Tool: t.Name(), Action: action, Description: desc, Diff: diff}); !ok {
		return res
	}
	note, res, ok := beforeWrite(ctx, env, tg)
	if !ok {
		return res
	}
	if err := os.WriteFile(tg.Real, []byte(newContent), perm); err != nil {
		return errorResult("write failed", "Writing %s failed: %v.", tg.Display, err)
	}
	return Result{
		Output: fmt.Sprintf("Replaced %s in %s.", words.Count(replaced, "occurrence"), tg.Display) + note,
		Brief:  fmt.Sprintf("edited %s (+%d -%d)", tg.Display, added, removed),
	}
}

// notFoundHint guesses why an exact match failed.
func notFoundHint(content, old string) string {
	if strings.Contains(content, "\r\n") && !strings.Contains(old, "\r\n") && strings.Contains(old, "\n") &&
		strings.Contains(content, strings.ReplaceAll(old, "\n", "\r\n")) {
		return " The file uses CRLF (\\r\\n) line endings; old uses \\n."
	}
	if trimmed := strings.TrimSpace(old); trimmed != old && trimmed != "" && strings.Contains(content, trimmed) {
		return " The text without its leading/trailing whitespace does occur: check the whitespace."
	}
	return ""
}

// diffStat counts added and removed lines of a unified diff.
func diffStat(diff string) (added, removed int) {
	inHunk := false
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			inHunk = true
		case !inHunk:
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}
