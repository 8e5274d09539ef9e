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
		{"Think", `{"thought":"check the tests"}`, "check the tests"},
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
