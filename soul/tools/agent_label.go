package tools

import "encoding/json"

// The Agent tool (and its older name, Task) lives in package soul, which
// runs sub-agents; its calls are labelled here with the built-in tools',
// so every front end shows "coder · count the failing tests".

type agentLabeler struct{}

func init() {
	builtinLabelers["Agent"] = agentLabeler{}
	builtinLabelers["Task"] = agentLabeler{}
}

// Label is the sub-agent's type and its task's description, or for a
// resumed run the agent id it continues.
func (agentLabeler) Label(args json.RawMessage) string {
	var a struct {
		Description  string `json:"description"`
		SubagentType string `json:"subagent_type"`
		SubagentName string `json:"subagent_name"`
		Resume       string `json:"resume"`
	}
	if json.Unmarshal(args, &a) != nil {
		return string(args)
	}
	typ := a.SubagentType
	if typ == "" {
		typ = a.SubagentName
	}
	switch {
	case typ == "" && a.Resume != "":
		typ = "resume " + a.Resume[:min(len(a.Resume), 10)]
	case typ == "":
		typ = "coder"
	}
	if a.Description == "" {
		return typ
	}
	return typ + " · " + a.Description
}
