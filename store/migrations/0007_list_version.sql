-- 0007: a stamp of what the session lists show. list_version.n moves with
-- every change to a listed column of sessions (and the current counters,
-- cause and fork point of their generations), and with nothing else: a
-- lease heartbeat (every 2 s per writer) moves PRAGMA data_version but not
-- this, so a workspace re-reads its session list only when the list
-- changed. Triggers keep it; creating them reads no table, so the
-- migration costs nothing on a large history.
CREATE TABLE list_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
INSERT INTO list_version (id, n) VALUES (1, 0);

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
