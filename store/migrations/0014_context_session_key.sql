-- 0014: a context row names its session by a small integer key
-- (sessions.key) instead of the 26-byte text id, and its kind by a number
-- (0 message, 1 checkpoint, 2 usage): the id was in every row and in both
-- of its indexes, a fifth of a 1M-record database (docs/DECISIONS.md).
-- Everything above the store still names sessions by their text id.
--
-- sessions.key was added and context_v14 filled before this transaction by
-- store/contextkey.go (copyContext: batches of the old table's rows, each
-- its own transaction, resumable), and its last rows in this one
-- (copyContextTail). One index serves the segment reads, the seq lookups
-- (with their generation) and the session filters: (session, seq) alone
-- was a second copy of it. There is no foreign key to sessions: an older
-- rewind dropping a half-imported session while the copy runs must not be
-- refused for rows copied already (the tail copies those ranges again).
DROP TABLE context;
ALTER TABLE context_v14 RENAME TO context;
DROP TABLE IF EXISTS context_copy;
CREATE UNIQUE INDEX context_segment ON context (session_key, gen, seq);
CREATE INDEX context_checkpoint ON context (session_key, gen, checkpoint_id, seq) WHERE kind = 1;

-- The old table's pages are free now: when it had rows, copyContextTail
-- left reclaim_pending, and Open runs VACUUM once (store.DB.reclaim).
