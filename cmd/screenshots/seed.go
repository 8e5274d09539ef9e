package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// seedScenes writes the scripted history: a parser-fixing session with a
// revert and a D-Mail backtrack, plus other sessions for the browser.
func seedScenes(ctx context.Context, db *store.DB, work string) (string, error) {
	for i, s := range []struct{ title, dir, msg string }{
		{"migrate config loader to TOML", "/home/dev/rewind", "the config loader should accept toml and yaml"},
		{"flaky CI on arm64", "/home/dev/ci", "the lookahead test times out on arm64 runners"},
		{"write release notes for 0.4", "/home/dev/rewind", "summarise the changes since 0.3"},
		{"port the tokenizer to generics", "/home/dev/lexer", "make Token generic over the position type"},
		{"explain the WAL checkpoint stalls", "/home/dev/db", "why does the WAL grow during long reads"},
		{"kimi-cli session import", "/home/dev/rewind", "import a kimi-cli session directory"},
		{"benchmark fuzzy filter", "/home/dev/rewind", "filter 10k sessions per keystroke"},
	} {
		sess, err := db.CreateSession(ctx, store.NewSession{Title: s.title, WorkDir: s.dir, Model: "kimi-k2-turbo"})
		if err != nil {
			return "", err
		}
		for j := 0; j <= i%3; j++ {
			if err := turn(ctx, db, sess.ID, s.msg, "Done — see the diff above.", 4000*(j+1)); err != nil {
				return "", err
			}
		}
	}
	sess, err := db.CreateSession(ctx, store.NewSession{Title: "fix the flaky parser lookahead test", WorkDir: work, Model: "kimi-k2-turbo"})
	if err != nil {
		return "", err
	}
	id := sess.ID
	steps := []struct{ user, answer string }{
		{"TestLookahead fails about one run in ten — find out why", "It depends on map iteration order in `peekN`: the lookahead buffer is rebuilt from a map."},
		{"make the lookahead buffer deterministic", "Replaced the map with a ring buffer; `peekN` is now O(1) and ordered."},
		{"run the parser tests 20 times", "All 20 runs pass."},
		{"now handle trailing commas in argument lists", "Trailing commas are accepted; added two test cases."},
	}
	for i, s := range steps {
		if err := turn(ctx, db, id, s.user, s.answer, 6000+i*4200); err != nil {
			return "", err
		}
	}
	// Each turn takes two checkpoints (before the prompt and before the
	// answering step): revert to the trailing-commas turn (checkpoint 6)
	// and continue differently.
	if _, err := db.RevertTo(ctx, id, 6, store.CauseRevert, ""); err != nil {
		return "", err
	}
	if err := turn(ctx, db, id, "handle trailing commas, but only in call arguments", "Done: trailing commas are accepted in calls and rejected in type lists.", 17200); err != nil {
		return "", err
	}
	// A model-initiated backtrack (D-Mail) to checkpoint 8.
	if err := turn(ctx, db, id, "now make the error messages point at the comma", "Tried three formats for the caret; none matched the test fixtures.", 21800); err != nil {
		return "", err
	}
	if _, err := db.RevertTo(ctx, id, 8, store.CauseBacktrack, "the fixtures expect column numbers from 1, not 0"); err != nil {
		return "", err
	}
	if _, err := db.StartTurn(ctx, id, false, message.DMail("the fixtures expect column numbers from 1, not 0")); err != nil {
		return "", err
	}
	call := message.NewText("assistant", "Columns are 1-based in the fixtures; fixing the caret position.")
	call.ToolCalls = []message.ToolCall{{ID: "call_fix", Type: "function", Name: "StrReplaceFile", Args: `{"path":"parser/errors.go","old":"col := pos.Offset","new":"col := pos.Offset + 1"}`}}
	if _, err := db.CommitStep(ctx, id, store.Step{Assistant: call, ToolResults: []message.Message{{Role: "tool", ToolCallID: "call_fix", Content: message.TextContent("Edited parser/errors.go (1 replacement)")}}, TokenCount: 23100}); err != nil {
		return "", err
	}
	return id, nil
}

// turn appends checkpoint, user message and a one-step answer with a Grep
// tool call in between.
func turn(ctx context.Context, db *store.DB, id, user, answer string, tokens int) error {
	if _, err := db.StartTurn(ctx, id, false, message.NewText("user", user)); err != nil {
		return err
	}
	call := message.NewText("assistant", "")
	callID := fmt.Sprintf("call_%d", tokens)
	call.ToolCalls = []message.ToolCall{{ID: callID, Type: "function", Name: "Grep", Args: `{"pattern":"peekN","path":"parser"}`}}
	if _, err := db.CommitStep(ctx, id, store.Step{Assistant: call, ToolResults: []message.Message{{Role: "tool", ToolCallID: callID, Content: message.TextContent("parser/lookahead.go:12: func (p *Parser) peekN(n int) rune {")}}, TokenCount: tokens - 800}); err != nil {
		return err
	}
	if _, err := db.Checkpoint(ctx, id, false); err != nil {
		return err
	}
	_, err := db.CommitStep(ctx, id, store.Step{Assistant: message.NewText("assistant", answer), TokenCount: tokens})
	return err
}

// lookaheadGo is the work dir's parser/lookahead.go: the scripted edit's
// target, so the approval's diff is the real tool's.
const lookaheadGo = `package parser

// Parser reads tokens with an n-token lookahead ring.
type Parser struct {
	toks []rune
	pos  int
	ring [4]rune
}

// Expr is a parsed expression.
type Expr interface{}

func (p *Parser) peek() rune { return p.peekN(1) }

func (p *Parser) peekN(n int) rune {
	if p.pos+n-1 < len(p.toks) {
		return p.toks[p.pos+n-1]
	}
	return 0
}

func (p *Parser) next() rune {
	r := p.peek()
	p.pos++
	return r
}

func (p *Parser) expr() Expr { return p.next() }

// args parses a call's arguments up to the closing parenthesis; a
// trailing comma before it is accepted.
func (p *Parser) args() []Expr {
	var args []Expr
	if p.peek() == ')' {
		return args
	}
	// One expression per comma-separated argument; the loop ends at the
	// first token that is not a comma, which must be the closing
	// parenthesis.
	// (see TestLookahead/trailing_comma)
	for {
		args = append(args, p.expr())
		if p.peek() == ',' {
			p.next()
			continue
		}
		break
	}
	return args
}
`

// goTest stands in for the go command of the scripted Shell call: it prints
// a test run's first lines and then blocks, so the frame shows the call
// running with live output until Esc interrupts it.
const goTest = `#!/bin/sh
cat <<'OUT'
=== RUN   TestLookahead
=== RUN   TestLookahead/nested_generics
=== RUN   TestLookahead/trailing_comma
--- PASS: TestLookahead (0.02s)
    --- PASS: TestLookahead/nested_generics (0.00s)
    --- PASS: TestLookahead/trailing_comma (0.00s)
=== RUN   TestLookahead
OUT
exec sleep 120
`

// seedFiles writes the work dir's parser package and, in bin, the go
// command the Shell call finds first on its PATH.
func seedFiles(work, bin string) error {
	if err := os.MkdirAll(filepath.Join(work, "parser"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(work, "parser", "lookahead.go"), []byte(lookaheadGo), 0o644); err != nil {
		return err
	}
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(bin, "go"), []byte(goTest), 0o755)
}
