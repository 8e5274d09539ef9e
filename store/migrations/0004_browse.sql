-- 0004: search as you type, fork-aware search hits, kimi-cli bulk import.

-- The full-text index again, with prefix indexes for 2- and 3-letter
-- prefixes: a prefix query ("re*", "fla*") then reads one doclist instead
-- of merging every term it covers. Rebuilt from the old index (the text is
-- derived from the JSON body, so it is copied, not recomputed); about 7 s
-- per million indexed messages on a 2-core machine.
CREATE VIRTUAL TABLE context_fts_v4 USING fts4 (text, tokenize=unicode61, prefix="2,3");
INSERT INTO context_fts_v4 (docid, text) SELECT docid, text FROM context_fts;
DROP TABLE context_fts;
ALTER TABLE context_fts_v4 RENAME TO context_fts;

-- Generations whose parent lives in another session (forks): a search hit
-- in a source session names the forks that share the record.
CREATE INDEX generations_parent ON generations (parent_session, fork_seq) WHERE parent_session IS NOT NULL;

-- One row per kimi-cli session imported: its uuid (the session dir name),
-- what its files were (size and sha256 of each, in order) and the rewind
-- session it became. Re-importing the same files is a no-op; a session that
-- grew becomes a new generation of the same rewind session.
CREATE TABLE kimi_imports (
    kimi_session TEXT    PRIMARY KEY,
    session_id   TEXT    NOT NULL REFERENCES sessions (id),
    source       TEXT    NOT NULL,              -- the session dir or file imported
    files        TEXT    NOT NULL,              -- JSON [{name, size, sha256}]
    records      INTEGER NOT NULL,              -- records of the context files imported so far
    imported_at  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX kimi_imports_session ON kimi_imports (session_id);
