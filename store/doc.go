// Package store owns rewind's SQLite database: the schema and its migrations,
// sessions, generations, the context table (messages, checkpoints, usage),
// full-text search, session leases, and the change feed watchers poll.
// It knows nothing of the Soul or the UI.
package store
