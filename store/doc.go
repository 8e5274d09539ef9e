// Package store owns rewind's SQLite database: the schema and its migrations,
// sessions, generations, the context table (messages, checkpoints, usage),
// full-text search, session leases, and the change feed watchers poll.
// It knows nothing of the Soul or the UI.
//
// # Files and connections
//
// Open builds the only DSN (WAL, busy_timeout 5000 for readers and 50 ms
// slices for the writer, which WriteTx repeats up to 5 s: busy.go; foreign keys,
// synchronous NORMAL). Writes go through one writer *sql.DB
// (SetMaxOpenConns(1), _txlock=immediate, so every write transaction is
// BEGIN IMMEDIATE: WriteTx); reads use a small pool whose transactions are
// deferred snapshots (Reader). The append path's statements are prepared
// once on the writer, at the first append or import (a process that only
// reads prepares none), and bound to each transaction (stmts.go). Every
// connection plans without looking at bound values (qpsg.go), so the
// driver's cached statements are not prepared again at each use.
// Before anything is written, Open checks the file header and, through a
// read-only connection, PRAGMA application_id (ApplicationID, "RWND") and
// user_version: a foreign file is refused with ErrNotDatabase, a newer
// schema with ErrNewerSchema, and neither is touched. An up-to-date
// database is opened without taking the write lock.
// Migrations are migrations/NNNN_name.sql, embedded, applied in order, each
// in its own transaction that also sets user_version. A new database is
// schema.sql instead (what the migrations build, in one transaction);
// after adding a migration, rewrite it with
// `go test ./store -run TestSchemaIsTheMigrations -update-schema`.
//
// # Data model
//
// A session has numbered generations 0..current_gen; every operation that
// starts a generation makes it current, so current_gen+1 is the count. A
// generation's view is its parent's view restricted to seq < fork_seq (NULL:
// all of it), followed by its own records. Records (context rows) carry a
// per-session seq that only grows, so within a session a parent's records
// always precede a child's. A view is resolved by walking the parent chain
// into segments (session, gen, seq bound) and reading each with the index
// (session_id, gen, seq).
//
// Each generation row holds its view's counters (messages,
// next_checkpoint_id, tokens), updated in the transaction of every append,
// and each record stores the counters just before it (msgs_before,
// tokens_before). So:
//
//   - RevertTo(N) finds checkpoint N with one index probe per segment
//     (partial index on checkpoint records) and writes ONE generations row:
//     parent = the generation whose own records hold the checkpoint,
//     fork_seq = its seq, counters from the checkpoint record. No record is
//     copied; the previous generation is archived (source_gen names it).
//   - Restore(G) writes one row: parent G, fork_seq NULL, counters of G.
//   - Clear and StartCompacted start root generations; a compacted root
//     records source_gen, and RevertTo to a checkpoint that only exists in
//     that source reports ErrCompactedRegion.
//   - Listing sessions joins each session with its current generation row;
//     nothing is counted.
//
// Forks: a generation may have a parent in another session
// (generations.parent_session, NULL meaning the same session). A fork is a
// new session whose generation 0 (cause fork) points at the source
// session's generation, cut at a checkpoint or whole; the resolver follows
// (session, gen) pairs, and a fork_seq always bounds the parent's session.
// That is why a revert's parent is the generation holding the checkpoint
// rather than the previous current one: the cut is then always expressed in
// the seq space of the records it cuts, also across sessions. So a fork
// cut at a checkpoint its source shares with the source's own source
// points at that older session's records; generations.fork_of then names
// the session forked, which the lists show as the fork's source.
//
// KeepInterrupted writes two generations in one transaction: one with cause
// interrupt (the current view plus an interrupted step's partial answer),
// then a restore of the view as it was, which becomes current; so every
// generation is still made current once and the partial answer is never in
// the current view.
//
// # Rewind log
//
// rewinds(session_id, op, before_gen, after_gen, files_undo, what) is
// app/timetravel's log of every revert, restore, undo and D-Mail file
// rewind: RecordRewind appends, LastRewind reads the newest (or one by id).
//
// # Search
//
// context_fts (FTS4, unicode61, contentless since migration 13) indexes
// each message's text (string content, text parts, tool call names and
// arguments; not checkpoint markers, not metadata roles such as an
// imported "_system_prompt"), docid = context.id, written in the record's
// transaction. It keeps no copy of the text: snippets are built in Go from
// the record's body the way FTS4's snippet() built them (snippet.go), and
// the ids of records deleted since (dropped half-imports: a contentless
// index cannot delete) are retired (searchindex.go). User queries are turned into quoted
// phrases, so no input is an FTS syntax error. The index has 2- and
// 3-letter prefix indexes and keeps its doclists newest first (order=DESC):
// Search reads ORDER BY docid DESC LIMIT n, which FTS4 can then answer by
// reading doclists incrementally and stopping at the limit.
//
// # WAL checkpoints
//
// SQLite's automatic checkpoint would run inside the commit that crosses
// 1000 WAL pages (one append in ~80 then took 3 ms). The writer connection's
// wal_autocheckpoint is raised to 10000 pages as a backstop, and a goroutine
// owned by the DB (stopped by Close) runs PRAGMA wal_checkpoint(PASSIVE) on a
// reader connection after 64 writer commits (counted by a commit hook) or 1 s
// after the first one not yet checkpointed. A passive checkpoint takes no
// write lock, so appends proceed meanwhile; durability is that of
// synchronous=NORMAL in WAL mode either way.
//
// # Leases
//
// leases(session_id, pid, hostname, token, heartbeat_at): AcquireLease takes
// a free lease, or one whose holder is dead (same host, kill(pid, 0) fails)
// or silent for over 10 s; a goroutine refreshes the heartbeat every 2 s
// until Release or Close.
package store
