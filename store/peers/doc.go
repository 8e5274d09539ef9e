// Package peers imports the session files of other coding agents, codex
// and Claude Code, into rewind's store, through the same import machinery
// as kimi-cli's (store.ImportSessions, the import record of store/imports.go):
// each format is a parser that turns the file's lines into a Session, the
// records of its generations, and this package writes them.
//
// # Sources
//
//   - codex (~/.codex or $CODEX_HOME): sessions/YYYY/MM/DD/rollout-*.jsonl,
//     one {timestamp, type, payload} object a line: session_meta (id, cwd,
//     cli_version), turn_context (model), response_item (messages,
//     reasoning, function_call and its output, local_shell_call), event_msg
//     (token_count among bookkeeping), compacted (the summary and the
//     replacement history). `codex exec resume` appends to the same file.
//   - Claude Code (~/.claude or $CLAUDE_CONFIG_DIR):
//     projects/<escaped cwd>/<session uuid>.jsonl, records linked by
//     uuid/parentUuid: user (prompts, tool_result blocks), assistant (one
//     content block a line; the lines of one answer share message.id and
//     its usage), system compact_boundary and the isCompactSummary user
//     record of a compaction, and bookkeeping (queue-operation, attachment,
//     last-prompt, mode, file-history-snapshot, ...), skipped. A sub-agent's
//     records (isSidechain) are in <session uuid>/subagents/agent-*.jsonl
//     (1.0 wrote them into the session file: Session.Sidechains, imported
//     as sub-agent sessions too, sidechains.go).
//
// # Mapping
//
// A prompt is a checkpoint record and a user message (rewind's turn); an
// answer line is an assistant message (reasoning as a think part, text,
// tool calls translated to rewind's tools where it has them: see
// translateCall); a tool output is a tool message, a failed one
// (is_error, a non-zero exit code) in rewind's tool-error shape; token
// usage is a usage record, once per answer. A compaction starts a compact
// generation whose first message is rewind's compaction marker with the
// source's summary, the generation before it archived. Each line only adds
// records, so the records of a file's first N lines are the first records
// of the whole file's: a file that grew adds only the records of its new
// lines, and a torn last line (no newline, not JSON) is left for the next
// import.
package peers
