-- 0012: the agent a session was started with (issue 21 §3): a built-in's
-- name ("default", "okabe") or an agent file's absolute path, so resuming
-- it keeps that agent. '' (sessions from before, imports): the agent the
-- command line or the configuration names.
ALTER TABLE sessions ADD COLUMN agent TEXT NOT NULL DEFAULT '';
