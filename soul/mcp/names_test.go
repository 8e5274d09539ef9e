package mcp

import (
	"regexp"
	"strings"
	"testing"
)

var openAIName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestToolName(t *testing.T) {
	cases := []struct{ server, tool, want string }{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"my.server", "read file", "mcp__my_server__read_file"},
		{"ünï", "tool/x", "mcp___n___tool_x"},
		{"", "t", "mcp_____t"},
	}
	for _, c := range cases {
		if got := ToolName(c.server, c.tool); got != c.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
	long := strings.Repeat("a", 80)
	a, b := ToolName("s", long+"1"), ToolName("s", long+"2")
	if a == b || len(a) != 64 || !openAIName.MatchString(a) || !strings.HasPrefix(a, "mcp__s__aaa") {
		t.Errorf("long names: %q, %q", a, b)
	}
	if ToolName("s", long+"1") != a {
		t.Error("ToolName is not stable")
	}
}

func TestUniqueNameAvoidsCollisions(t *testing.T) {
	taken := map[string]bool{}
	var names []string
	for _, tool := range []string{"a.b", "a_b", "a b", strings.Repeat("x", 70) + "1", strings.Repeat("x", 70) + "1 "} {
		n := uniqueName("srv", tool, taken)
		if taken[n] {
			t.Fatalf("%q collides: %v", n, names)
		}
		if !openAIName.MatchString(n) {
			t.Errorf("%q is not a valid function name", n)
		}
		taken[n] = true
		names = append(names, n)
	}
	if names[0] != "mcp__srv__a_b" || !strings.HasPrefix(names[1], "mcp__srv__a_b_") {
		t.Errorf("names = %v", names)
	}
}
