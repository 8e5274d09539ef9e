package tools

import "testing"

// TestCallLabels: each built-in tool labels a call by its key argument,
// and a tool rewind does not know (MCP, an imported session's) by the
// first argument named like one.
func TestCallLabels(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, args, want string }{
		{"Shell", `{"command":"go test ./...","timeout":5}`, "go test ./..."},
		{"ReadFile", `{"path":"main.go","line_offset":3}`, "main.go"},
		{"WriteFile", `{"path":"a.txt","content":"x"}`, "a.txt"},
		{"StrReplaceFile", `{"path":"b.go","old":"a","new":"b"}`, "b.go"},
		{"Glob", `{"pattern":"**/*.go","directory":"src"}`, "**/*.go"},
		{"Grep", `{"pattern":"TODO","path":"src"}`, "TODO"},
		{"ListDir", `{"path":"docs"}`, "docs"},
		{"ListDir", `{}`, "."},
		{"Think", `{"thought":"check the tests"}`, "check the tests"},
		{"SetTodoList", `{"todos":[{"title":"a"},{"title":"b"}]}`, "2 todos"},
		{"SendDMail", `{"message":"x","checkpoint_id":2}`, "→ checkpoint 2"},
		{"FetchURL", `{"url":"https://go.dev"}`, "https://go.dev"},
		{"SearchWeb", `{"query":"go generics","limit":3}`, "go generics"},
		// A call whose arguments fail the tool's checks is still labelled.
		{"Shell", `{"command":"ls","timeout":"5"}`, "ls"},
		{"mcp__github__search_issues", `{"query":"is:open","repo":"x/y"}`, "is:open"},
		{"Bash", `{"command":"make"}`, "make"},
		{"mcp__x__y", `{"n":1}`, ""},
		{"ReadFile", `{"path":`, `{"path":`},
		{"Shell", ``, ""},
	} {
		if got := CallLabel(c.name, c.args); got != c.want {
			t.Errorf("CallLabel(%s, %s) = %q, want %q", c.name, c.args, got, c.want)
		}
	}
}

// TestEveryBuiltinLabelsItsCalls: no built-in tool leaves its label to the
// fallback, so a new tool is written to the Typed pattern.
func TestEveryBuiltinLabelsItsCalls(t *testing.T) {
	t.Parallel()
	for _, tool := range append(Default().All(), &SearchWeb{}, &ReadMediaFile{}) {
		if _, ok := tool.(Labeler); !ok {
			t.Errorf("%s does not label its calls (embed Typed)", tool.Name())
		}
		if _, ok := builtinLabelers[tool.Name()]; !ok {
			t.Errorf("%s is not among the built-in labelers (label.go)", tool.Name())
		}
	}
}
