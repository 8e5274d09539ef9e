// Package shellenv builds the environment of the processes rewind starts for
// the model: Shell commands and MCP servers. They must not inherit rewind's
// own secrets (OPENAI_API_KEY, KIMI_API_KEY, the configured key variables),
// since one `env` would otherwise copy the key into the transcript, the
// database, exports and the next request.
//
// A Policy mirrors codex's shell_environment_policy: what to inherit (all,
// core, none), patterns to exclude (by default *KEY*, *SECRET*, *TOKEN*,
// *PASSWORD*), an optional include-only list and variables to set. On top of
// the policy, the named secret variables are always dropped, and so is any
// variable whose value contains a secret value, whatever its name.
//
// The package is a leaf: it imports only the standard library, so both the
// tools and an MCP client can use it.
package shellenv
