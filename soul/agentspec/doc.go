// Package agentspec reads agent files in kimi-cli's format (version 1):
// an agent's name, system prompt template and its arguments, tools, and
// sub-agent types. The built-in agents are such files, embedded under
// agents/: default (rewind's own prompt and tools), okabe (kimi-cli's name
// for default with SendDMail, which rewind's default already has), and the
// sub-agent types coder, explore and plan, whose prompts extend default's
// with kimi-cli's "You are now running as a subagent…" role.
//
//	version: 1
//	agent:
//	  name: …
//	  extend: default | ./base.yaml     # a built-in's name, or a path
//	  system_prompt_path: ./system.md   # paths are relative to the file
//	  system_prompt_args: {KEY: value}  # merged key by key over the base's
//	  tools: [Shell, "kimi_cli.tools.file:ReadFile", mcp__github__*]
//	  allowed_tools: […]                # when given, replaces tools
//	  exclude_tools: […]                # then removed
//	  subagents:
//	    NAME: {path: ./coder.yaml, description: …}
//	  when_to_use: …
//
// Tools are named bare (ReadFile), as kimi-cli writes them
// ("kimi_cli.tools.shell:Shell"; its Bash is Shell, its Task is Agent) or
// as MCP tools (mcp__server__tool, * matching any run). kimi-cli tools
// rewind lacks (AskUserQuestion, TaskList, …) load and are listed in
// Agent.Unavailable for one warning line; any other name is an error.
//
// The prompt is a template: ${KIMI_NOW}, ${KIMI_WORK_DIR},
// ${KIMI_WORK_DIR_LS}, ${KIMI_AGENTS_MD}, kimi-cli's other built-ins
// (${KIMI_OS}, ${KIMI_SHELL}, ${KIMI_SKILLS}, ${KIMI_ADDITIONAL_DIRS_INFO}),
// rewind's ${WORK_DIR} and ${OS}, the file's system_prompt_args, and
// {% if %} blocks on them (template.go). A prompt without
// ${KIMI_AGENTS_MD} gets the AGENTS.md section appended, as rewind always
// did.
//
// Every check happens when a file is loaded: an unknown tool, a missing
// file, a cycle in extend or an unknown variable is an *Error whose one
// line names the file, the line and the fix. Rendering a loaded agent's
// prompt cannot fail.
//
// # API
//
// Loading:
//
//	agentspec.Builtin("default")      // --agent NAME (BuiltinNames lists them)
//	agentspec.LoadFile(path)          // --agent-file PATH, .rewind/agent.yaml
//	agentspec.Default()               // the built-in default; never fails
//
// An *Agent holds Name, File, Description (a sub-agent type's, from its
// parent file), WhenToUse, Model, Tools (rewind's names, in file order),
// Unavailable and Subagents. For the Agent tool:
//
//	a.SubagentNames()                 // ["coder", "explore", "plan"]: the subagent_type enum
//	sub, ok := a.Subagent("explore")  // the type's resolved *Agent
//	sub.Description, sub.WhenToUse    // for the tool's description
//	sub.SystemPrompt(agentspec.Vars{WorkDir: wd, Instructions: files})
//	sub.ToolSet(all)                  // all (a *tools.Set) narrowed to the type's tools
//	sub.Offers("Shell")               // one name (MCP names through AllowsMCP)
//
// A soul renders its agent's prompt itself: soul.Config.Agent (nil: the
// built-in default). Its tool set stays the caller's, narrowed with
// Agent.ToolSet.
//
// MCP tools: a file that lists tools without naming an MCP tool offers
// every MCP tool the configuration starts (kimi-cli's root agent); one
// that names some offers those; an allowed_tools list is exact, so the
// built-in sub-agent types get none (kimi-cli starts no MCP servers for
// sub-agents).
//
// ReadOnlyTools are the tools plan mode lets run.
package agentspec
