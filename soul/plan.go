package soul

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/rewind-agent/rewind/soul/agentspec"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store/message"
)

// Plan mode (kimi-cli's --plan, Claude Code's plan mode): while it is on,
// only read-only tools run; any other call is refused with a tool error
// that says why, and the model presents its plan with ExitPlanMode for the
// user's approval. /plan, Shift-Tab, --plan and EnterPlanMode turn it on;
// an approved plan or the user turns it off. It belongs to the Soul, not
// to the session: a resumed session starts outside it unless asked.

// InPlanMode reports whether plan mode is on (tools.PlanMode).
func (s *Soul) InPlanMode() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.plan
}

// SetPlanMode turns plan mode on or off; the next tool call sees it. The
// status (StatusUpdate.Plan) follows.
func (s *Soul) SetPlanMode(on bool) {
	s.mu.Lock()
	changed := s.plan != on
	s.plan = on
	s.mu.Unlock()
	if changed {
		s.emitStatus()
	}
}

var _ tools.PlanMode = (*Soul)(nil)

// planSubagents are the sub-agent types that may run in plan mode: they
// only read.
var planSubagents = []string{"explore", "plan"}

// planRefusal is the tool error of a call plan mode does not let run, ""
// when it may run.
func planRefusal(name string, args json.RawMessage) string {
	if slices.Contains(agentspec.ReadOnlyTools, name) {
		return ""
	}
	if name == AgentToolName || name == agentAliasName {
		var a struct {
			Type  string `json:"subagent_type"`
			Alias string `json:"subagent_name"`
		}
		_ = json.Unmarshal(args, &a)
		typ := a.Type
		if typ == "" {
			typ = a.Alias
		}
		if slices.Contains(planSubagents, typ) {
			return ""
		}
		return "Plan mode is on: only the explore and plan sub-agents run while planning (this call asked for " + orQuoted(typ, defaultSubagent) + "). Use subagent_type explore or plan, or finish the plan and call ExitPlanMode(plan) for the user's approval."
	}
	return "Plan mode is on: " + name + " was not run, because only read-only tools run while planning (" + strings.Join(planReadOnlyNames, ", ") + ", and the explore and plan sub-agents). Finish the plan, then call ExitPlanMode(plan): once the user approves it, every tool runs again."
}

// planReadOnlyNames are the tools plan mode is said to allow.
var planReadOnlyNames = []string{"ReadFile", "Glob", "Grep", "ListDir", "FetchURL", "SearchWeb"}

func orQuoted(s, def string) string {
	if s == "" {
		s = def
	}
	return `"` + s + `"`
}

// planReminder is sent (never stored) after the messages while plan mode
// is on, so the model knows it even when the user switched it on.
const planReminder = "<system>Plan mode is on. Only read-only tools run (ReadFile, Glob, Grep, ListDir, FetchURL, SearchWeb, and the explore and plan sub-agents); do not change files or run commands. Explore, design the change, then call ExitPlanMode with the whole plan for the user's approval.</system>"

// withPlanReminder appends the reminder to a request in plan mode.
func (s *Soul) withPlanReminder(msgs []message.Message) []message.Message {
	if !s.InPlanMode() {
		return msgs
	}
	return append(msgs, message.NewText("user", planReminder))
}
