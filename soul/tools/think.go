package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"

	"github.com/rewind-agent/rewind/internal/words"
)

//go:embed think.md
var thinkDescription string

// thinkArgs are Think's arguments.
type thinkArgs struct {
	Thought string `json:"thought" jsonschema:"Your thought."`
}

func (thinkArgs) About() About {
	return About{Name: "Think", Description: thinkDescription, ReadOnly: true}
}

func (a thinkArgs) Label() string { return a.Thought }

// Think lets the model think out loud; it has no side effect.
type Think struct{ Typed[thinkArgs] }

func (t *Think) Call(ctx context.Context, env *Env, args json.RawMessage) Result {
	a, res, ok := t.Decode(args)
	if !ok {
		return res
	}
	return Result{Output: "Thought logged.", Brief: words.Clip(firstLine(a.Thought), 60)}
}

// firstLine is s up to its first newline, trimmed.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
