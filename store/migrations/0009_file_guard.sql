-- 0009: a file rewind that puts back content someone else made (the user's
-- edit a forced rewind overwrote, brought back by its undo) marks its event
-- guarded: the next rewind still treats that file as changed by someone
-- else, as it did before the forced rewind. Whether a rewind's target is
-- such content is read from the event just before the position it
-- restores, found through file_events_path.
ALTER TABLE file_events ADD COLUMN guarded INTEGER NOT NULL DEFAULT 0;
CREATE INDEX file_events_path ON file_events (session_id, path, id);
