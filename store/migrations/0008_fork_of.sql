-- 0008: the session a fork was made from. A fork cut at a checkpoint
-- points its parent_session at the session whose records hold the
-- checkpoint, which for a fork of a fork is often the fork's own source:
-- parent_session alone named the wrong session as the fork's source.
-- NULL (older forks, other causes): parent_session is the source.
ALTER TABLE generations ADD COLUMN fork_of TEXT;
