package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"
)

//go:embed think.md
var thinkDescription string

// thinkArgs are Think's arguments, the one declaration of its schema.
type thinkArgs struct {
	Thought string `json:"thought" desc:"Your thought."`
}

var thinkArgsSpec = argsOf(thinkArgs{})

// Think lets the model think out loud; it has no side effect.
type Think struct{}

func (*Think) Name() string            { return "Think" }
func (*Think) Description() string     { return thinkDescription }
func (*Think) Schema() json.RawMessage { return thinkArgsSpec.schema }
func (*Think) ReadOnly() bool          { return true }

func (t *Think) Call(ctx context.Context, env *Env, args json.RawMessage) Result {
	var a thinkArgs
	if res, ok := decodeArgs(t.Name(), args, thinkArgsSpec, &a); !ok {
		return res
	}
	return Result{Output: "Thought logged.", Brief: clip(firstLine(a.Thought), 60)}
}

// firstLine is s up to its first newline, trimmed.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// clip shortens s to at most n runes, adding "…".
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
