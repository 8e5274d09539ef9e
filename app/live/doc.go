// Package live is the channel from the process that writes a session to the
// processes that watch it: the writer publishes its soul events as they
// happen (text and reasoning deltas, tool calls and their live output,
// steps, retries, approvals, compaction, backtracks, status, the end of a
// run) on a unix socket, and watchers render them as the writer does.
//
// The database stays the only source of truth: nothing here is stored, and
// partial text never reaches the context table. A watcher reads the
// committed view from SQLite and gets the in-flight step from the socket (the
// writer replays the current step's events to a watcher that connects
// mid-step); when the writer is gone it falls back to the database.
//
// One socket per live session, $REWIND_HOME/run/<session id>.sock: the
// directory is 0700 and the socket 0600, so only the same user can connect
// (and answer approvals, when the writer allows it). The writer removes its
// socket on exit; a socket left by a writer that died is detected (nobody
// accepts) and removed by the next writer or by List.
//
// The wire is soul.MarshalEvent's jsonl — the encoding of `rewind -p
// --output jsonl` — one {"type","payload"} object per line, plus the few
// control messages of this package (Join, Hello, Ping, Answer,
// AnswerResult, Answered), encoded the same way. A connection first sends
// Join: a watcher gets the Hello, the step in flight and everything live; a
// lister (List, the runs view every second) gets the Hello alone, so the
// writer does not encode its step for a connection that hangs up. A
// watcher older than Join sends nothing and is served as a watcher after
// joinWait (250 ms); a writer older than Join ignores the line.
//
// Files: path.go (where sockets live), wire.go (control messages, decoding),
// state.go (the run summary kept from events), publisher.go (the writer
// side), conn.go (the watcher side), runs.go (every live session on the
// machine). No tview here: app/tui renders what this package delivers.
package live
