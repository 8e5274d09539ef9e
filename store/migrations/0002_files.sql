-- 0002: file checkpoints (DESIGN §7). The tables belong to soul/filecp,
-- which uses them through store/files.go.

-- Content-addressed file contents: the sha256 (hex) of the raw bytes. A
-- symlink's content is its target text. codec '' stores data raw, 'zlib'
-- compressed (used only when it saves space).
CREATE TABLE blobs (
    hash       TEXT    PRIMARY KEY,
    size       INTEGER NOT NULL,
    codec      TEXT    NOT NULL DEFAULT '',
    data       BLOB    NOT NULL,
    created_at INTEGER NOT NULL
);

-- The last known metadata and hash of every snapshotted file per work dir,
-- so a scan reads only the files whose metadata changed. recorded_ns is when
-- the entry was written (entries written in the same timestamp tick as the
-- file's mtime are re-hashed: "racy" entries).
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

-- Every change the agent made to a file (WriteFile, StrReplaceFile, Shell)
-- and every change a file rewind made (tool 'rewind'), in physical order
-- (id). seq is sessions.last_seq and gen sessions.current_gen when the change
-- was recorded: the change happened after context record seq. A NULL hash
-- means the file did not exist. pending = 1: recorded before the write, the
-- after state is not known yet (filled in when the write is settled).
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
);

CREATE INDEX file_events_seq ON file_events (session_id, seq);
CREATE INDEX file_events_gen ON file_events (session_id, gen);
CREATE INDEX file_events_pending ON file_events (session_id) WHERE pending = 1;
