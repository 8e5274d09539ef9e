package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rewind-agent/rewind/internal/words"
)

//go:embed set_todo_list.md
var setTodoListDescription string

// setTodoListArgs are SetTodoList's arguments.
type setTodoListArgs struct {
	Todos []*Todo `json:"todos" jsonschema:"The complete todo list."`
}

func (setTodoListArgs) About() About {
	return About{Name: "SetTodoList", Description: setTodoListDescription, Params: map[string]Param{
		"todos[].status": {Enum: []string{TodoPending, TodoInProgress, TodoDone}},
	}}
}

func (a setTodoListArgs) Label() string { return words.Count(len(a.Todos), "todo") }

// SetTodoList replaces the model's todo list.
type SetTodoList struct{ Typed[setTodoListArgs] }

func (t *SetTodoList) Call(ctx context.Context, _ *Env, args json.RawMessage) Result {
	a, res, ok := t.Decode(args)
	if !ok {
		return res
	}
	todos := make([]Todo, 0, len(a.Todos))
	for i, td := range a.Todos {
		if td == nil {
			return invalidArgs(t.Name(), "todos[%d] is null; each todo is an object with title and status.", i)
		}
		td.Title = strings.TrimSpace(td.Title)
		if td.Title == "" {
			return invalidArgs(t.Name(), "todos[%d] has an empty title.", i)
		}
		switch td.Status {
		case TodoPending, TodoInProgress, TodoDone:
		case "":
			return invalidArgs(t.Name(), "todos[%d] (%q) has no status; use pending, in_progress or done.", i, td.Title)
		default:
			return invalidArgs(t.Name(), "todos[%d] (%q) has status %q; use pending, in_progress or done.", i, td.Title, td.Status)
		}
		todos = append(todos, *td)
	}
	var b strings.Builder
	done := 0
	if len(todos) == 0 {
		b.WriteString("Todo list cleared.")
	} else {
		b.WriteString("Todo list updated:\n")
	}
	for _, td := range todos {
		mark := " "
		switch td.Status {
		case TodoDone:
			mark = "x"
			done++
		case TodoInProgress:
			mark = "~"
		}
		fmt.Fprintf(&b, "- [%s] %s\n", mark, td.Title)
	}
	return Result{
		Output: strings.TrimRight(b.String(), "\n"),
		Brief:  fmt.Sprintf("%d/%d done", done, len(todos)),
		Todos:  todos,
	}
}
