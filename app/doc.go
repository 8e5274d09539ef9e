// Package app wires rewind together. It owns the configuration (config.toml
// or config.yaml under $REWIND_HOME, environment and flag overrides), the
// implementation of every CLI subcommand (sessions, show, generations,
// revert, restore, undo, compact, export, import; rewinds are planned and
// applied by app/timetravel), headless print mode (`rewind -p`),
// the mapping of errors to one-line messages and exit codes, and the entry
// point of the TUI (tui_entry.go). cmd/rewind only declares flags and
// subcommands and calls into this package.
//
// Exit codes: 0 success, 1 user or runtime error, 2 usage error (bad flags or
// arguments), 75 a temporary failure that survived every retry (print mode),
// 130 interrupted by SIGINT.
package app
