-- 0005: the prompts typed in the workspace, per work dir, so the input's
-- Up/Down and Ctrl-R find them again across runs. Written by
-- store/history.go; the newest maxInputHistory per work dir are kept.
CREATE TABLE input_history (
    id          INTEGER PRIMARY KEY,
    work_dir    TEXT    NOT NULL,
    text        TEXT    NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE INDEX input_history_by_dir ON input_history (work_dir, id);
