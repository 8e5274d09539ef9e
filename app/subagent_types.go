package app

import "github.com/rewind-agent/rewind/soul"

// builtinSubagentTypes are kimi-cli 1.49's sub-agent types (its
// agents/default/coder.yaml, explore.yaml, plan.yaml): their role text
// and allowed tools, by rewind's tool names.
//
// Interim: the agent files (soul/agentspec) define these once they land,
// and this list goes.
func builtinSubagentTypes() []soul.SubagentType {
	return []soul.SubagentType{
		{Name: "coder", Description: "Good at general software engineering tasks.",
			WhenToUse: "Use this agent for non-trivial software engineering work that may require reading files, editing code, running commands, and returning a compact but technically complete summary to the parent agent.",
			Role:      subagentRole,
			Tools:     []string{"Shell", "ReadFile", "Glob", "Grep", "ListDir", "WriteFile", "StrReplaceFile", "SearchWeb", "FetchURL", "Think"}},
		{Name: "explore", Description: "Fast codebase exploration with prompt-enforced read-only behavior.",
			WhenToUse: `Fast agent specialized for exploring codebases. Use this when you need to quickly find files by patterns, search code for keywords, or answer questions about the codebase. Specify the desired thoroughness: "quick", "medium" or "thorough". Prefer launching multiple explore agents concurrently when investigating independent questions.`,
			Role:      subagentRole + "\n\n" + exploreRole,
			Tools:     []string{"Shell", "ReadFile", "Glob", "Grep", "ListDir", "SearchWeb", "FetchURL", "Think"}},
		{Name: "plan", Description: "Read-only implementation planning and architecture design.",
			WhenToUse: "Use this agent when the parent agent needs a step-by-step implementation plan, key file identification, and architectural trade-off analysis before code changes are made.",
			Role:      subagentRole + "\n\n" + planRole,
			Tools:     []string{"ReadFile", "Glob", "Grep", "ListDir", "SearchWeb", "FetchURL", "Think"}},
	}
}

const subagentRole = "You are now running as a subagent. All the `user` messages are sent by the main agent. The main agent cannot see your context, it can only see your last message when you finish the task. You must treat the parent agent as your caller. Do not directly ask the end user questions. If something is unclear, explain the ambiguity in your final summary to the parent agent."

const exploreRole = `You are a codebase exploration specialist. Your role is EXCLUSIVELY to search, read, and analyze existing code and resources. You do NOT have access to file editing tools.

Guidelines:
- Use Glob for broad file pattern matching, Grep for searching file contents, ReadFile when you know the path
- Use Shell ONLY for read-only operations (ls, git status, git log, git diff, find); NEVER for creating or modifying files
- Adapt your search depth to the thoroughness the caller asked for
- Complete the search efficiently and report your findings clearly in a structured format.`

const planRole = `Before designing your implementation plan, consider whether you fully understand the codebase areas relevant to the task. If not, recommend the parent agent to use the explore agent (subagent_type="explore") to investigate key questions first. In your response, clearly state:
1. What you already know from the information provided
2. What questions remain unanswered that would benefit from explore agent investigation
3. Your implementation plan (either preliminary if questions remain, or final if sufficient context exists)`
