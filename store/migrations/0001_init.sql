-- 0001: sessions, generations, the context table, full-text search, leases.
-- Times are Unix milliseconds (UTC).

CREATE TABLE sessions (
    id          TEXT    PRIMARY KEY,            -- lowercase ULID, time-sortable
    title       TEXT    NOT NULL DEFAULT '',
    work_dir    TEXT    NOT NULL DEFAULT '',
    model       TEXT    NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    current_gen INTEGER NOT NULL DEFAULT 0,     -- also the highest gen: every new generation becomes current
    last_seq    INTEGER NOT NULL DEFAULT 0,     -- highest seq handed out in this session
    deleted_at  INTEGER                         -- soft delete
) WITHOUT ROWID;

CREATE INDEX sessions_updated ON sessions (updated_at DESC, id DESC);
CREATE INDEX sessions_workdir ON sessions (work_dir, updated_at DESC, id DESC);

-- A generation's view is its parent's view restricted to seq < fork_seq
-- (NULL: all of it), followed by its own records. The parent lives in
-- parent_session (NULL: this session) so that a fork shares the source
-- session's records; fork_seq is always a seq of the parent's session.
CREATE TABLE generations (
    session_id         TEXT    NOT NULL REFERENCES sessions (id),
    gen                INTEGER NOT NULL,
    parent_session     TEXT,
    parent_gen         INTEGER,
    fork_seq           INTEGER,
    source_gen         INTEGER,                 -- compact/fork/revert: the generation it came from
    cause              TEXT    NOT NULL,
    note               TEXT    NOT NULL DEFAULT '',
    created_at         INTEGER NOT NULL,
    archived_at        INTEGER,
    -- counters of the view, updated in the transaction of every append
    messages           INTEGER NOT NULL DEFAULT 0,
    next_checkpoint_id INTEGER NOT NULL DEFAULT 0,
    tokens             INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (session_id, gen)
) WITHOUT ROWID;

-- One row per message, checkpoint or usage record. seq grows monotonically
-- per session across all generations. msgs_before/tokens_before are the
-- view's counters just before the record, so reverting to a checkpoint reads
-- the new view's counters from the checkpoint record alone.
CREATE TABLE context (
    id            INTEGER PRIMARY KEY,          -- docid in context_fts
    session_id    TEXT    NOT NULL,
    seq           INTEGER NOT NULL,
    gen           INTEGER NOT NULL,
    kind          TEXT    NOT NULL CHECK (kind IN ('message', 'checkpoint', 'usage')),
    role          TEXT,
    checkpoint_id INTEGER,
    token_count   INTEGER,
    body          TEXT,                         -- JSON
    msgs_before   INTEGER NOT NULL,
    tokens_before INTEGER NOT NULL,
    created_at    INTEGER NOT NULL,
    UNIQUE (session_id, seq),
    FOREIGN KEY (session_id, gen) REFERENCES generations (session_id, gen)
);

CREATE INDEX context_segment ON context (session_id, gen, seq);
CREATE INDEX context_checkpoint ON context (session_id, gen, checkpoint_id, seq) WHERE kind = 'checkpoint';

-- Message text (string content, text parts, tool call arguments), docid = context.id.
CREATE VIRTUAL TABLE context_fts USING fts4 (text, tokenize=unicode61);

CREATE TABLE leases (
    session_id   TEXT    PRIMARY KEY,
    pid          INTEGER NOT NULL,
    hostname     TEXT    NOT NULL,
    token        TEXT    NOT NULL,
    acquired_at  INTEGER NOT NULL,
    heartbeat_at INTEGER NOT NULL
) WITHOUT ROWID;
