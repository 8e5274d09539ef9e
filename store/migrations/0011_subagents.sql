-- 0011: a sub-agent run (the Agent tool) is a session of its own. It
-- records the session whose tool call started it (subagent_of), that
-- call's id (subagent_call), its type ("coder", "explore", …), and where
-- in the parent it ran: the parent's generation and last seq when the
-- call started (the step's checkpoint). A revert of the parent to before
-- that step leaves the record out of the parent's current view: the child
-- is then archived with that generation of its parent (derived, so an
-- undo of the revert brings it back). NULL subagent_of: an ordinary session.
ALTER TABLE sessions ADD COLUMN subagent_of TEXT;
ALTER TABLE sessions ADD COLUMN subagent_call TEXT;
ALTER TABLE sessions ADD COLUMN subagent_type TEXT;
ALTER TABLE sessions ADD COLUMN subagent_gen INTEGER;
ALTER TABLE sessions ADD COLUMN subagent_seq INTEGER;
CREATE INDEX sessions_subagent_of ON sessions (subagent_of, created_at) WHERE subagent_of IS NOT NULL;
