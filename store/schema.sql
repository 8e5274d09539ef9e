-- The schema migrations/ builds, which Open writes into a new database in
-- one transaction (schema.go). Written by TestSchemaIsTheMigrations:
-- go test ./store -run TestSchemaIsTheMigrations -update-schema
-- version: 14

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
, subagent_of TEXT, subagent_call TEXT, subagent_type TEXT, subagent_gen INTEGER, subagent_seq INTEGER, agent TEXT NOT NULL DEFAULT '', key INTEGER) WITHOUT ROWID;

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
    tokens             INTEGER NOT NULL DEFAULT 0, fork_of TEXT,
    PRIMARY KEY (session_id, gen)
) WITHOUT ROWID;

CREATE TABLE leases (
    session_id   TEXT    PRIMARY KEY,
    pid          INTEGER NOT NULL,
    hostname     TEXT    NOT NULL,
    token        TEXT    NOT NULL,
    acquired_at  INTEGER NOT NULL,
    heartbeat_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE blobs (
    hash       TEXT    PRIMARY KEY,
    size       INTEGER NOT NULL,
    codec      TEXT    NOT NULL DEFAULT '',
    data       BLOB    NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE TABLE file_index (
    work_dir    TEXT    NOT NULL,
    path        TEXT    NOT NULL,               -- relative, slash-separated
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    mode        INTEGER NOT NULL,               -- Go fs.FileMode bits (symlink bit kept)
    hash        TEXT    NOT NULL REFERENCES blobs (hash),
    recorded_ns INTEGER NOT NULL,
    PRIMARY KEY (work_dir, path)
) WITHOUT ROWID;

CREATE TABLE file_events (
    id          INTEGER PRIMARY KEY,
    session_id  TEXT    NOT NULL REFERENCES sessions (id),
    seq         INTEGER NOT NULL,
    gen         INTEGER NOT NULL,
    path        TEXT    NOT NULL,
    before_hash TEXT    REFERENCES blobs (hash),
    before_mode INTEGER NOT NULL DEFAULT 0,
    after_hash  TEXT    REFERENCES blobs (hash),
    after_mode  INTEGER NOT NULL DEFAULT 0,
    pending     INTEGER NOT NULL DEFAULT 0,
    tool        TEXT    NOT NULL,
    created_at  INTEGER NOT NULL
, guarded INTEGER NOT NULL DEFAULT 0, not_kept_size INTEGER);

CREATE TABLE rewinds (
    id          INTEGER PRIMARY KEY,
    session_id  TEXT    NOT NULL REFERENCES sessions (id),
    op          TEXT    NOT NULL,             -- revert, restore, undo, backtrack
    before_gen  INTEGER NOT NULL,             -- current generation before the rewind
    after_gen   INTEGER NOT NULL,             -- current generation after it (= before_gen: files only)
    files_undo  INTEGER,                      -- RestoreFilesTo this position undoes the file part; NULL: no file changed
    what        TEXT    NOT NULL DEFAULT '',  -- what it did, in words
    created_at  INTEGER NOT NULL
);

CREATE TABLE kimi_imports (
    kimi_session TEXT    PRIMARY KEY,
    session_id   TEXT    NOT NULL REFERENCES sessions (id),
    source       TEXT    NOT NULL,              -- the session dir or file imported
    files        TEXT    NOT NULL,              -- JSON [{name, size, sha256}]
    records      INTEGER NOT NULL,              -- records of the context files imported so far
    imported_at  INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE input_history (
    id          INTEGER PRIMARY KEY,
    work_dir    TEXT    NOT NULL,
    text        TEXT    NOT NULL,
    created_at  INTEGER NOT NULL
);

CREATE TABLE list_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);

CREATE VIRTUAL TABLE "context_fts" USING fts4 (text, content="",
	tokenize=unicode61, prefix="2,3", order=DESC);

CREATE TABLE search_retired (
    lo INTEGER NOT NULL,
    hi INTEGER NOT NULL
);

CREATE TABLE "context" (
    id            INTEGER PRIMARY KEY,          -- docid in context_fts
    session_key   INTEGER NOT NULL,             -- sessions.key
    seq           INTEGER NOT NULL,
    gen           INTEGER NOT NULL,
    kind          INTEGER NOT NULL CHECK (kind IN (0, 1, 2)), -- message, checkpoint, usage
    role          TEXT,
    checkpoint_id INTEGER,
    token_count   INTEGER,
    body          TEXT,                         -- JSON
    msgs_before   INTEGER NOT NULL,
    tokens_before INTEGER NOT NULL,
    created_at    INTEGER NOT NULL
);

CREATE INDEX sessions_updated ON sessions (updated_at DESC, id DESC);

CREATE INDEX sessions_workdir ON sessions (work_dir, updated_at DESC, id DESC);

CREATE INDEX file_events_seq ON file_events (session_id, seq);

CREATE INDEX file_events_gen ON file_events (session_id, gen);

CREATE INDEX file_events_pending ON file_events (session_id) WHERE pending = 1;

CREATE INDEX rewinds_by_session ON rewinds (session_id, id);

CREATE INDEX generations_parent ON generations (parent_session, fork_seq) WHERE parent_session IS NOT NULL;

CREATE INDEX kimi_imports_session ON kimi_imports (session_id);

CREATE INDEX input_history_by_dir ON input_history (work_dir, id);

CREATE INDEX file_events_path ON file_events (session_id, path, id);

CREATE INDEX sessions_subagent_of ON sessions (subagent_of, created_at) WHERE subagent_of IS NOT NULL;

CREATE UNIQUE INDEX sessions_key ON sessions (key);

CREATE UNIQUE INDEX context_segment ON context (session_key, gen, seq);

CREATE INDEX context_checkpoint ON context (session_key, gen, checkpoint_id, seq) WHERE kind = 1;

CREATE TRIGGER sessions_list_insert AFTER INSERT ON sessions
BEGIN UPDATE list_version SET n = n + 1 WHERE id = 1; END;

CREATE TRIGGER sessions_list_delete AFTER DELETE ON sessions
BEGIN UPDATE list_version SET n = n + 1 WHERE id = 1; END;

CREATE TRIGGER sessions_list_update AFTER UPDATE OF title, work_dir, model, created_at, updated_at, current_gen, deleted_at ON sessions
BEGIN UPDATE list_version SET n = n + 1 WHERE id = 1; END;

CREATE TRIGGER generations_list_insert AFTER INSERT ON generations
BEGIN UPDATE list_version SET n = n + 1 WHERE id = 1; END;

CREATE TRIGGER generations_list_delete AFTER DELETE ON generations
BEGIN UPDATE list_version SET n = n + 1 WHERE id = 1; END;

CREATE TRIGGER generations_list_update AFTER UPDATE OF messages, next_checkpoint_id, tokens, cause, parent_session, fork_seq ON generations
BEGIN UPDATE list_version SET n = n + 1 WHERE id = 1; END;

CREATE TRIGGER sessions_key_given AFTER INSERT ON sessions WHEN NEW.key IS NULL
		BEGIN UPDATE sessions SET key = (SELECT coalesce(max(key), 0) + 1 FROM sessions) WHERE id = NEW.id; END;

INSERT INTO "list_version" VALUES (1,0);
