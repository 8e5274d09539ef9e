-- 0010: a change to a file over file_size_cap is recorded without its
-- content (before_hash and after_hash NULL, the modes say whether the file
-- existed on each side) and with its size, so every plan of a file rewind
-- over it can name the file it leaves behind. NULL: an ordinary change.
ALTER TABLE file_events ADD COLUMN not_kept_size INTEGER;
