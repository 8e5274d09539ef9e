-- 0003: the log of rewinds (revert, restore, undo, file rewinds), so every
-- one of them can be undone: the generation that was current before it and
-- the file position (file_events id) whose state it replaced. Written by
-- app/timetravel through store/rewinds.go.
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
CREATE INDEX rewinds_by_session ON rewinds (session_id, id);
