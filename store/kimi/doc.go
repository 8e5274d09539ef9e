// Package kimi imports and exports kimi-cli context files (context.jsonl).
//
// # Format
//
// A context.jsonl holds one JSON object per line:
//
//	{"role":"_system_prompt","content":"…"}     optional, normally the first line
//	{"role":"user","content":"…"}               messages: content is a string, a list
//	{"role":"assistant","content":[…],…}        of parts (text, think, image_url, any
//	{"role":"tool","content":…,"tool_call_id":…} other type) or null
//	{"role":"_checkpoint","id":N}
//	{"role":"_usage","token_count":N}
//
// Blank lines are skipped, as kimi-cli does. A kimi-cli session directory
// holds the current context.jsonl plus the files it rotated away on revert,
// clear and compaction: kimi-cli renames the current file to the next free
// number, so context_1.jsonl is the oldest, then context_2.jsonl, and so on.
//
// # Mapping to the store
//
// Each file becomes one generation; the rotated files become archived
// generations oldest first (cause "import"), context.jsonl the current one.
// Message lines (every role other than _checkpoint and _usage) become
// message records whose body is the line itself, compacted, so that export
// writes back exactly what was read, unknown fields and part types included.
// Parse still checks that each body decodes as a message.Message. Checkpoint and
// usage lines become checkpoint and usage records; if such a line carries
// extra fields its compacted line is kept as the record body and written
// back as it came.
//
// The system prompt line is kept where it stands, as a message record with
// role "_system_prompt" (normally the first record of its generation), so
// every generation keeps its own and a revert, which keeps a view's prefix,
// keeps it too. It is not a chat message: whoever builds a model request from
// a view must skip roles that start with "_" (kimi-cli's metadata roles) so
// that the prompt is never sent next to rewind's own system prompt.
//
// # Empty input
//
// An empty (or blank) file is a valid, empty context: kimi-cli leaves one
// after /clear. Inside a session directory it imports as an empty
// generation. An import in which every file is empty has nothing to import
// and fails with an error naming the path; no session is created.
//
// # Errors
//
// Any malformed line (invalid JSON, not an object, no string "role", a
// checkpoint id or token count that is not a non-negative integer, a message
// that does not decode) fails the whole import with a *LineError reading
// "FILE:LINE: message"; store.DB.ImportSession runs in one transaction, and
// nothing is written before every file has parsed.
package kimi
