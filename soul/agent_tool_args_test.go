package soul

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/agentspec"
	"github.com/rewind-agent/rewind/soul/tools"
)

// agentToolForTest is the Agent tool (or its alias) over the default
// agent's sub-agent types, without a Soul: enough for its schema, its label
// and the calls its argument checks refuse.
func agentToolForTest(t *testing.T, name string) *agentTool {
	t.Helper()
	def := agentspec.Default()
	var types []subagentType
	for _, n := range def.SubagentNames() {
		child, _ := def.Subagent(n)
		types = append(types, subagentType{name: n, agent: child})
	}
	if len(types) == 0 {
		t.Fatal("the default agent has no sub-agent types")
	}
	return &agentTool{name: name, types: types}
}

// TestAgentToolSchema pins what the model is told about Agent's and Task's
// arguments: the type's key (subagent_name for the Task alias) is an enum
// of the agent file's types with the default type as its default.
func TestAgentToolSchema(t *testing.T) {
	t.Parallel()
	for _, name := range []string{AgentToolName, agentAliasName} {
		tool := agentToolForTest(t, name)
		typeKey, other := "subagent_type", "subagent_name"
		if name == agentAliasName {
			typeKey, other = other, typeKey
		}
		var names []any
		for _, ty := range tool.types {
			names = append(names, ty.name)
		}
		want := map[string]any{
			"type": "object",
			"properties": map[string]any{
				"description": map[string]any{"type": "string", "description": "A short (3-5 word) description of the task."},
				"prompt":      map[string]any{"type": "string", "description": "The task for the sub-agent, with everything it needs to know."},
				typeKey:       map[string]any{"type": "string", "enum": names, "default": tool.defaultType(), "description": "The sub-agent type. Defaults to `" + tool.defaultType() + "`."},
				"resume":      map[string]any{"type": "string", "description": "The agent_id of an earlier sub-agent to continue, instead of starting a new one."},
				"timeout":     map[string]any{"type": "integer", "minimum": float64(1), "maximum": float64(maxAgentTimeout), "description": "Stop the sub-agent after this many seconds (no limit by default)."},
			},
			"required": []any{"description", "prompt"},
		}
		var got map[string]any
		if err := json.Unmarshal(tool.Schema(), &got); err != nil {
			t.Fatal(err)
		}
		delete(got, "additionalProperties") // stray arguments are ignored, as by every tool
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s schema:\n got %s\nwant %v", name, tool.Schema(), want)
		}
		if strings.Contains(string(tool.Schema()), other) {
			t.Errorf("%s schema names %s: %s", name, other, tool.Schema())
		}
	}
}

// TestAgentToolArgumentErrors: a broken Agent call is refused in the words
// every tool uses, naming the tool as the model called it and the argument
// to fix, before any sub-agent starts.
func TestAgentToolArgumentErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, args, want string }{
		{AgentToolName, `{"description":"d","prompt":5}`, `Invalid arguments for Agent: argument "prompt" must be a string, got number.`},
		{AgentToolName, `{"description":"d"}`, `Invalid arguments for Agent: missing required argument "prompt" (string).`},
		{AgentToolName, `{"description":"d","prompt":"p","timeout":"5"}`, `Invalid arguments for Agent: argument "timeout" must be an integer, got string.`},
		{AgentToolName, `{"description":"d","prompt":"p","timeout":0}`, `Invalid arguments for Agent: argument "timeout" must be at least 1, got 0.`},
		{AgentToolName, `{"description":"d","prompt":"p","timeout":3601}`, `Invalid arguments for Agent: argument "timeout" must be at most 3600, got 3601.`},
		{AgentToolName, `{"description":"d","prompt":" "}`, `Invalid arguments for Agent: the prompt is empty; give the sub-agent its task.`},
		{agentAliasName, `[1]`, `Invalid arguments for Task: the arguments must be a JSON object, got array.`},
	} {
		res := agentToolForTest(t, c.name).Call(context.Background(), nil, json.RawMessage(c.args))
		if !res.IsError || res.Output != c.want {
			t.Errorf("%s %s: got %q, want %q", c.name, c.args, res.Output, c.want)
		}
	}
}

// TestAgentCallLabel: an Agent or Task call is labelled by its type and
// description ("explore · count the failing tests", as the browser names
// the child), in a live session and a stored one alike.
func TestAgentCallLabel(t *testing.T) {
	t.Parallel()
	args := `{"description":"count the failing tests","prompt":"run go test and count","subagent_type":"explore"}`
	if got := tools.CallLabel(AgentToolName, args); got != "explore · count the failing tests" {
		t.Errorf("CallLabel = %q", got)
	}
	if got := agentToolForTest(t, agentAliasName).Label(json.RawMessage(args)); got != "explore · count the failing tests" {
		t.Errorf("Label = %q", got)
	}
	if got := tools.CallLabel(agentAliasName, `{"description":"go on","prompt":"more","resume":"01m8d8g8eeggft"}`); got != "resume 01m8d8g8ee · go on" {
		t.Errorf("resume label = %q", got)
	}
}
